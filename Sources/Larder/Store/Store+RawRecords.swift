// Raw records: a class's records read as they are stored (the version that wrote each and its
// content bytes), without the class being registered. For tools that inspect a store they have
// no Swift classes for (the `larder` command's `dump`); the store itself reads records through
// the class's `readContent`.

extension Store {
    /// One object record as stored: its rowID, the version of the class that wrote it, and its
    /// content (the fields `writeContent` wrote), checked or decrypted but not decoded.
    ///
    /// ```swift
    /// try store.forEachRawRecord(ofClassNamed: "Song") { record in
    ///     print(record.rowID, record.version, record.content.count)
    /// }
    /// ```
    package struct RawRecord: Sendable, Equatable {
        /// The object's rowID.
        package var rowID: UInt64
        /// The version of the class that wrote the record (`buffer.versionOfData` when read).
        package var version: UInt8
        /// The record's content bytes.
        package var content: [UInt8]
    }

    /// The storage names of every class in the store's registry, registered in this session or
    /// not, sorted.
    ///
    /// ```swift
    /// print(store.storedClassNames)   // ["Playlist", "Song"]
    /// ```
    package var storedClassNames: [String] { records.keys.sorted() }

    /// Calls `body` with every record of the class named `name`, in rowID order, whether or not
    /// the class is registered: the file's page keys are collected and sorted first, then the
    /// pages read one at a time, so memory stays flat but for the keys (8 bytes per 32 rowIDs).
    /// Records at rowIDs the class never handed out, which ``verify()`` reports, are given too.
    /// Throws ``StoreError/classNotRegistered(_:)`` when the store has no such class,
    /// ``StoreError/corruptRecord(class:rowID:)`` for a damaged page or record, or a key that
    /// is not a page's.
    ///
    /// ```swift
    /// try store.forEachRawRecord(ofClassNamed: "Song") { print($0.rowID) }
    /// ```
    package func forEachRawRecord(ofClassNamed name: String, _ body: (RawRecord) throws -> Void) throws {
        try checkOpen()
        guard let record = records[name] else { throw StoreError.classNotRegistered(name) }
        var numbers: [UInt64] = []
        try backend.forEachRecord(in: name) { key, _ in
            guard let number = RecordPage.number(inKey: key) else {
                throw StoreError.corruptRecord(class: name, rowID: RowIDKey.rowID(in: key) ?? 0)
            }
            numbers.append(number)
            return true
        }
        let sealing = pageSealing(scope: record.classID)
        var opened: [UInt8] = []
        for number in numbers.sorted() {
            let found: [RawRecord] = try backend.withValue(forKey: RecordPage.key(forPage: number), in: name) { page in
                guard let page else { return [] }
                var found: [RawRecord] = []
                do {
                    try sealing.withOpenedPage(page, number: number, scratch: &opened) { page, envelopeCipher in
                        try RecordPage.forEachRecord(in: page, number: number) { rowID, envelope in
                            try withUnsafeBytes(of: rowID.bigEndian) { key in
                                found.append(try Self.rawRecord(rowID: rowID, envelope: envelope, key: key, cipher: envelopeCipher,
                                                                scope: record.classID, className: name))
                            }
                        }
                    }
                } catch let damage as RecordPage.Damage {
                    throw StoreError.corruptRecord(class: name, rowID: damage.firstRowID)
                }
                return found
            }
            for raw in found { try body(raw) }
        }
    }

    /// The record of `rowID` in the class named `name` (registered or not), or nil when the
    /// class file holds none. Throws as ``forEachRawRecord(ofClassNamed:_:)``.
    ///
    /// ```swift
    /// if let song = try store.rawRecord(ofClassNamed: "Song", rowID: 7) { print(song.content) }
    /// ```
    package func rawRecord(ofClassNamed name: String, rowID: UInt64) throws -> RawRecord? {
        try checkOpen()
        guard let record = records[name] else { throw StoreError.classNotRegistered(name) }
        let number = RecordPage.number(of: rowID)
        let sealing = pageSealing(scope: record.classID)
        return try backend.withValue(forKey: RecordPage.key(forPage: number), in: name) { page -> RawRecord? in
            guard let page else { return nil }
            var opened: [UInt8] = []
            do {
                return try sealing.withOpenedPage(page, number: number, scratch: &opened) { page, envelopeCipher in
                    guard let envelope = try RecordPage.record(of: rowID, in: page) else { return nil }
                    return try withUnsafeBytes(of: rowID.bigEndian) { key in
                        try Self.rawRecord(rowID: rowID, envelope: envelope, key: key, cipher: envelopeCipher,
                                           scope: record.classID, className: name)
                    }
                }
            } catch is RecordPage.Damage {
                throw StoreError.corruptRecord(class: name, rowID: rowID)
            }
        }
    }

    private static func rawRecord(rowID: UInt64, envelope: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer,
                                  cipher: RecordCipher?, scope: UInt64, className: String) throws -> RawRecord {
        let buffer: DataBuffer
        do {
            buffer = try RecordEnvelope.open(envelope, key: key, cipher: cipher, scope: scope)
        } catch {
            throw StoreError.corruptRecord(class: className, rowID: rowID)
        }
        return RawRecord(rowID: rowID, version: buffer.versionOfData, content: Array(buffer.bytes[buffer.readPosition...]))
    }
}
