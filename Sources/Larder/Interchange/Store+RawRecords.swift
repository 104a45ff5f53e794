// Raw records: a class's registry entry and its objects' records (rowID, version, content
// bytes) read and written without the class's Swift type, for the interchange export and
// import and for tools that inspect a store whose classes they do not know. Reads open pages
// and envelopes as fetching does (checked, or decrypted with the store's key); writes seal
// them with the store's key as a save does, and keep the registry (class ID, next rowID,
// deleted rowIDs) exactly as given.

/// A class as the store's registry records it, whether or not its Swift class is registered in
/// this process.
package struct RegisteredClass: Equatable, Sendable {
    /// The storage name (``StoredObject/storageName``): also its class file's name.
    package let name: String
    /// The registry record: class ID, next rowID, version, deleted rowIDs.
    let record: ClassRecord

    /// A class; nil when `deletedRowIDs` are not ascending and disjoint, or `classID` or
    /// `nextRowID` is 0.
    package init?(name: String, classID: UInt64, version: UInt8, nextRowID: UInt64, deletedRowIDs: [ClosedRange<UInt64>]) {
        guard classID >= 1, nextRowID >= 1, let deleted = RowIDRanges(validating: deletedRowIDs) else { return nil }
        self.init(name: name, record: ClassRecord(classID: classID, nextRowID: nextRowID, version: version, deletedRowIDs: deleted))
    }

    init(name: String, record: ClassRecord) {
        self.name = name
        self.record = record
    }

    /// The ID references to its objects carry (`writeAnyReference`).
    package var classID: UInt64 { record.classID }
    /// The class's ``StoredObject/version`` when its registry entry was last written.
    package var version: UInt8 { record.version }
    /// The rowID the class hands out next: every rowID of the class is below it.
    package var nextRowID: UInt64 { record.nextRowID }
    /// RowIDs handed out and deleted (never reused), as ascending, disjoint ranges.
    package var deletedRowIDs: [ClosedRange<UInt64>] { record.deletedRowIDs.ranges }
    /// How many objects the class has: every rowID handed out and not deleted.
    package var objectCount: Int { record.expectedRecordCount }

    /// Whether an object of the class has `rowID`.
    package func holds(_ rowID: UInt64) -> Bool {
        rowID >= 1 && rowID < record.nextRowID && !record.deletedRowIDs.contains(rowID)
    }
}

/// One object's record as stored: its rowID, the class version that wrote it and the content
/// its `writeContent(to:)` wrote.
package struct RawRecord: Equatable, Sendable {
    package var rowID: UInt64
    package var version: UInt8
    package var content: [UInt8]

    package init(rowID: UInt64, version: UInt8, content: [UInt8]) {
        self.rowID = rowID
        self.version = version
        self.content = content
    }
}

extension Store {
    /// Every class of the store's registry, by class ID, as last saved.
    package func registeredClasses() throws -> [RegisteredClass] {
        try checkOpen()
        return records.map { RegisteredClass(name: $0.key, record: $0.value) }.sorted { $0.classID < $1.classID }
    }

    /// The rowIDs of the saved objects of the class named `name`, ascending.
    package func savedRowIDs(ofClass name: String) throws -> [UInt64] {
        var rowIDs: [UInt64] = []
        try forEachRawRecord(ofClass: name) { rowIDs.append($0.rowID) }
        return rowIDs
    }

    /// Calls `body` with the saved record of every object of the class named `name`, in
    /// ascending rowID order, one page of records in memory at a time. Throws
    /// ``StoreError/classNotRegistered(_:)`` for a name the registry does not hold,
    /// ``StoreError/corruptRecord(class:rowID:)`` for a damaged page or envelope or a record the
    /// registry says cannot exist, and ``StoreError/missingRecords(table:expected:found:)``
    /// when the class file holds fewer records than the registry says.
    package func forEachRawRecord(ofClass name: String, _ body: (RawRecord) throws -> Void) throws {
        try checkOpen()
        guard let record = records[name] else { throw StoreError.classNotRegistered(name) }
        let sealing = pageSealing(scope: record.classID)
        let pageCount = try backend.recordCount(in: name)
        var opened: [UInt8] = []
        var buffer = DataBuffer()
        var pagesRead = 0
        var found = 0
        var number: UInt64 = 0
        let lastPage = RecordPage.number(of: max(record.nextRowID, 1) - 1)
        // Pages by number, so that rowIDs come out ascending from files kept in hash order; the
        // count of pages ends the walk at the last one (a damaged next rowID cannot make it long).
        while pagesRead < pageCount && number <= lastPage {
            defer { number += 1 }
            try backend.readValue(forKey: RecordPage.key(forPage: number), in: name) { page in
                guard let page else { return }
                pagesRead += 1
                do {
                    try sealing.withOpenedPage(page, number: number, scratch: &opened) { page, envelopeCipher in
                        try RecordPage.forEachRecord(in: page, number: number) { rowID, envelope in
                            guard record.deletedRowIDs.contains(rowID) == false, rowID >= 1, rowID < record.nextRowID else {
                                throw StoreError.corruptRecord(class: name, rowID: rowID)
                            }
                            try withUnsafeBytes(of: rowID.bigEndian) { key in
                                try open(envelope, key: key, cipher: envelopeCipher, className: name, record: record,
                                         rowID: rowID, into: &buffer)
                            }
                            found += 1
                            try body(RawRecord(rowID: rowID, version: buffer.versionOfData, content: buffer.bytes))
                        }
                    }
                } catch let damage as RecordPage.Damage {
                    throw StoreError.corruptRecord(class: name, rowID: damage.firstRowID)
                }
            }
        }
        guard found == record.expectedRecordCount else {
            throw StoreError.missingRecords(table: name, expected: record.expectedRecordCount, found: found)
        }
    }

    /// The saved record of the object `rowID` of the class named `name`, or nil when there is
    /// none. Throws as ``forEachRawRecord(ofClass:_:)`` does for damage.
    package func rawRecord(ofClass name: String, rowID: UInt64) throws -> RawRecord? {
        try checkOpen()
        guard let record = records[name] else { throw StoreError.classNotRegistered(name) }
        guard rowID >= 1, rowID < record.nextRowID, !record.deletedRowIDs.contains(rowID) else { return nil }
        let number = RecordPage.number(of: rowID)
        let sealing = pageSealing(scope: record.classID)
        var opened: [UInt8] = []
        var buffer = DataBuffer()
        return try backend.withValue(forKey: RecordPage.key(forPage: number), in: name) { page -> RawRecord? in
            guard let page else { return nil }
            do {
                return try sealing.withOpenedPage(page, number: number, scratch: &opened) { page, envelopeCipher -> RawRecord? in
                    guard let envelope = try RecordPage.record(of: rowID, in: page) else { return nil }
                    try withUnsafeBytes(of: rowID.bigEndian) { key in
                        try open(envelope, key: key, cipher: envelopeCipher, className: name, record: record, rowID: rowID,
                                 into: &buffer)
                    }
                    return RawRecord(rowID: rowID, version: buffer.versionOfData, content: buffer.bytes)
                }
            } catch is RecordPage.Damage {
                throw StoreError.corruptRecord(class: name, rowID: rowID)
            }
        }
    }

    private func open(_ envelope: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, cipher envelopeCipher: RecordCipher?,
                      className: String, record: ClassRecord, rowID: UInt64, into buffer: inout DataBuffer) throws {
        do {
            try RecordEnvelope.open(envelope, key: key, cipher: envelopeCipher, scope: record.classID, into: &buffer)
        } catch .encryptedWithoutKey where cipher == nil {
            throw StoreError.encryptionKeyRequired
        } catch {
            throw StoreError.corruptRecord(class: className, rowID: rowID)
        }
    }
}
