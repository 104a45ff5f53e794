// Object records in class files: a record by rowID (through the class's page cache), every
// record of a class in storage order, and the number of records. Class files hold pages of
// records (RecordPage); nothing above this file sees pages.

extension Store {
    /// Calls `body` with the envelope of `rowID`'s record (nil when the class file has none)
    /// and the record's key bytes. Throws ``StoreError/corruptRecord(class:rowID:)`` when the
    /// page that holds it is damaged.
    internal func withRecord<R>(of rowID: UInt64, entry: ClassEntry,
                                _ body: (_ envelope: UnsafeRawBufferPointer?, _ key: UnsafeRawBufferPointer) throws -> R) throws -> R {
        let number = RecordPage.number(of: rowID)
        guard !entry.pageCache.isInUse else {
            // A read inside a read of this class (a readContent that faults in a neighbour).
            return try backend.withValue(forKey: RecordPage.key(forPage: number), in: entry.name) { page in
                try Self.withRecord(of: rowID, in: page, entry: entry, body)
            }
        }
        if !entry.pageCache.holds(number) {
            try backend.readValue(forKey: RecordPage.key(forPage: number), in: entry.name) { page in
                entry.pageCache.store(page, as: number)
            }
        }
        entry.pageCache.isInUse = true
        defer { entry.pageCache.isInUse = false }
        return try entry.pageCache.bytes.withUnsafeBytes { page in
            try Self.withRecord(of: rowID, in: page.isEmpty ? nil : page, entry: entry, body)
        }
    }

    private static func withRecord<R>(of rowID: UInt64, in page: UnsafeRawBufferPointer?, entry: ClassEntry,
                                      _ body: (UnsafeRawBufferPointer?, UnsafeRawBufferPointer) throws -> R) throws -> R {
        var envelope: UnsafeRawBufferPointer?
        if let page {
            do {
                envelope = try RecordPage.record(of: rowID, in: page)
            } catch {
                throw StoreError.corruptRecord(class: entry.name, rowID: rowID)
            }
        }
        return try withUnsafeBytes(of: rowID.bigEndian) { key in try body(envelope, key) }
    }

    /// Calls `body` with the rowID, envelope and key bytes of every record in the class file
    /// `table`, in storage order. A damaged page or a key that is not a page's throws
    /// ``StoreError/corruptRecord(class:rowID:)``.
    internal func forEachRecord(inClassFile table: String,
                                _ body: (_ rowID: UInt64, _ envelope: UnsafeRawBufferPointer, _ key: UnsafeRawBufferPointer) throws -> Void) throws {
        try forEachPage(inClassFile: table) { number, page in
            try RecordPage.forEachRecord(in: page, number: number) { rowID, envelope in
                try withUnsafeBytes(of: rowID.bigEndian) { key in try body(rowID, envelope, key) }
            }
        }
    }

    /// Calls `body` with the number and bytes of every page of the class file `table`, in
    /// storage order. A key that is not a page's, or a ``RecordPage/Damage`` thrown by `body`,
    /// throws ``StoreError/corruptRecord(class:rowID:)``.
    private func forEachPage(inClassFile table: String,
                             _ body: (_ number: UInt64, _ page: UnsafeRawBufferPointer) throws -> Void) throws {
        try backend.forEachRecord(in: table) { key, page in
            guard let number = RecordPage.number(inKey: key) else {
                throw StoreError.corruptRecord(class: table, rowID: RowIDKey.rowID(in: key) ?? 0)
            }
            do {
                try body(number, page)
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
        try forEachPage(inClassFile: entry.name) { number, page in
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
            let gained = try entry.pendingRecords.writePages(of: entry.name, to: &batch, from: backend) { number in
                RecordPage.firstRowID(ofPage: number) < savedNextRowID
            }
            gains.append((entry, gained))
        }
        return gains
    }
}
