// Object records in class files: a record by rowID (through the class's page cache), every
// record of a class in storage order, and the number of records. Class files hold pages of
// records (RecordPage); nothing above this file sees pages.

extension Store {
    /// How the pages of the class file of class ID `scope` are written: sealed whole with the
    /// store's key in an encrypted store, checksummed whole in a plaintext one.
    internal func pageSealing(scope: UInt64) -> PageSealing {
        PageSealing(cipher: cipher, scope: scope, checksPages: true)
    }

    /// Calls `body` with the envelope of `rowID`'s record (nil when the class file has none),
    /// the record's key bytes and the cipher that opens the envelope (nil inside a page written
    /// whole). Throws ``StoreError/corruptRecord(class:rowID:)`` when the page that holds it is
    /// damaged.
    internal func withRecord<R>(of rowID: UInt64, entry: ClassEntry,
                                _ body: (_ envelope: UnsafeRawBufferPointer?, _ key: UnsafeRawBufferPointer,
                                         _ envelopeCipher: RecordCipher?) throws -> R) throws -> R {
        let number = RecordPage.number(of: rowID)
        let sealing = pageSealing(scope: entry.classID)
        guard !entry.pageCache.isInUse else {
            // A read inside a read of this class (a readContent that faults in a neighbour).
            return try backend.withValue(forKey: RecordPage.key(forPage: number), in: entry.name) { page in
                guard let page else { return try Self.withRecord(of: rowID, in: nil, entry: entry, envelopeCipher: nil, body) }
                var opened: [UInt8] = []
                return try Self.opening(page, number: number, with: sealing, scratch: &opened, entry: entry, for: rowID) { page, envelopeCipher in
                    try Self.withRecord(of: rowID, in: page, entry: entry, envelopeCipher: envelopeCipher, body)
                }
            }
        }
        if !entry.pageCache.holds(number) {
            try backend.readValue(forKey: RecordPage.key(forPage: number), in: entry.name) { page in
                guard let page else { return entry.pageCache.store(nil, as: number) }
                try Self.opening(page, number: number, with: sealing, scratch: &openedPageScratch, entry: entry,
                                 for: rowID) { page, envelopeCipher in
                    entry.pageCache.store(page, as: number, envelopeCipher: envelopeCipher)
                }
            }
        }
        let bounds: Range<Int>?
        do {
            bounds = entry.pageCache.bytes.isEmpty ? nil : try entry.pageCache.envelopeBounds(of: rowID)
        } catch {
            throw StoreError.corruptRecord(class: entry.name, rowID: rowID)
        }
        entry.pageCache.isInUse = true
        defer { entry.pageCache.isInUse = false }
        let envelopeCipher = entry.pageCache.envelopeCipher
        return try entry.pageCache.bytes.withUnsafeBytes { page in
            let envelope = bounds.map { UnsafeRawBufferPointer(rebasing: page[$0]) }
            return try withUnsafeBytes(of: rowID.bigEndian) { key in try body(envelope, key, envelopeCipher) }
        }
    }

    /// Calls `body` with `page` opened by `sealing`; a page that does not open throws
    /// ``StoreError/corruptRecord(class:rowID:)`` for `rowID`, the record asked for.
    private static func opening<R>(_ page: UnsafeRawBufferPointer, number: UInt64, with sealing: PageSealing,
                                   scratch: inout [UInt8], entry: ClassEntry, for rowID: UInt64,
                                   _ body: (UnsafeRawBufferPointer, RecordCipher?) throws -> R) throws -> R {
        do {
            return try sealing.withOpenedPage(page, number: number, scratch: &scratch, body)
        } catch is RecordPage.Damage {
            throw StoreError.corruptRecord(class: entry.name, rowID: rowID)
        }
    }

    private static func withRecord<R>(of rowID: UInt64, in page: UnsafeRawBufferPointer?, entry: ClassEntry,
                                      envelopeCipher: RecordCipher?,
                                      _ body: (UnsafeRawBufferPointer?, UnsafeRawBufferPointer, RecordCipher?) throws -> R) throws -> R {
        var envelope: UnsafeRawBufferPointer?
        if let page {
            do {
                envelope = try RecordPage.record(of: rowID, in: page)
            } catch {
                throw StoreError.corruptRecord(class: entry.name, rowID: rowID)
            }
        }
        return try withUnsafeBytes(of: rowID.bigEndian) { key in try body(envelope, key, envelopeCipher) }
    }

    /// Calls `body` with the rowID, envelope and key bytes of every record in the class file
    /// `table`, in storage order, and the cipher that opens the envelope (nil inside a page
    /// written whole). A damaged page or a key that is not a page's throws
    /// ``StoreError/corruptRecord(class:rowID:)``.
    internal func forEachRecord(inClassFile table: String,
                                _ body: (_ rowID: UInt64, _ envelope: UnsafeRawBufferPointer, _ key: UnsafeRawBufferPointer,
                                         _ envelopeCipher: RecordCipher?) throws -> Void) throws {
        try forEachPage(inClassFile: table) { number, page, envelopeCipher in
            try RecordPage.forEachRecord(in: page, number: number) { rowID, envelope in
                try withUnsafeBytes(of: rowID.bigEndian) { key in try body(rowID, envelope, key, envelopeCipher) }
            }
        }
    }

    /// Calls `body` with the number and (opened) bytes of every page of the class file
    /// `table`, in storage order, and the cipher that opens its envelopes. A key that is not a
    /// page's, a page that does not open, or a ``RecordPage/Damage`` thrown by `body`, throws
    /// ``StoreError/corruptRecord(class:rowID:)``.
    private func forEachPage(inClassFile table: String,
                             _ body: (_ number: UInt64, _ page: UnsafeRawBufferPointer, _ envelopeCipher: RecordCipher?) throws -> Void) throws {
        let sealing = pageSealing(scope: records[table]?.classID ?? 0)
        var opened: [UInt8] = []
        try backend.forEachRecord(in: table) { key, page in
            guard let number = RecordPage.number(inKey: key) else {
                throw StoreError.corruptRecord(class: table, rowID: RowIDKey.rowID(in: key) ?? 0)
            }
            do {
                try sealing.withOpenedPage(page, number: number, scratch: &opened) { page, envelopeCipher in
                    try body(number, page, envelopeCipher)
                }
            } catch let damage as RecordPage.Damage {
                throw StoreError.corruptRecord(class: table, rowID: damage.firstRowID)
            }
            return true
        }
    }

    /// The number of records in `entry`'s class file: counted once (page headers only), then
    /// kept up to date by saves.
    internal func savedRecordCount(of entry: ClassEntry) throws -> Int {
        if let count = entry.savedRecordCount { return count }
        var count = 0
        try forEachPage(inClassFile: entry.name) { number, page, _ in
            count += try RecordPage.recordCount(in: page, number: number)
        }
        entry.savedRecordCount = count
        return count
    }

    /// Forgets every cached page: the next reads go to the files. Called whenever the store
    /// writes a batch.
    internal func forgetCachedPages() {
        for entry in entriesByType.values {
            entry.pageCache.invalidate()
        }
    }

    /// Forgets cached pages and record counts, after the files changed behind the store's
    /// back (tests that write records directly).
    internal func forgetCachedFileState() {
        forgetCachedPages()
        for entry in entriesByType.values { entry.savedRecordCount = nil }
    }

    /// Adds each class's pending records to `batch` as pages, and returns how many records each
    /// class file gains. Throws ``StoreError/corruptRecord(class:rowID:)`` when a page to merge
    /// with is damaged.
    internal func addPendingRecords(to batch: inout WriteBatch) throws -> [(entry: ClassEntry, gained: Int)] {
        var gains: [(entry: ClassEntry, gained: Int)] = []
        for entry in entriesByType.values.sorted(by: { $0.classID < $1.classID }) where !entry.pendingRecords.isEmpty {
            let savedNextRowID = entry.savedNextRowID
            let sealing = pageSealing(scope: entry.classID)
            let gained = try entry.pendingRecords.writePages(of: entry.name, to: &batch, from: backend, reading: sealing) { number in
                RecordPage.firstRowID(ofPage: number) < savedNextRowID
            }
            gains.append((entry, gained))
        }
        return gains
    }
}
