// History: the versions of the objects of classes that keep history (StoredObject.keepsHistory).
// Each save appends, in its own batch, the versions of the objects it writes or deletes of such a
// class (one HistoryRecord per history page of 256 rowIDs), under the save's sequence number, to the
// class's ordered table `_history.<Class>`;
// this file reads them back (history(of:), object(of:rowID:asOf:)) and prunes them. The history
// exists exactly when the save does: no version without its save, no save without its version.

import Foundation

extension Store {
    /// Every version of `object`, oldest first: one per save that inserted or updated it (the
    /// object as that save wrote it, decoded with the class's `readContent` and the version of
    /// the class that wrote it), and its deletion last if it was deleted. Empty for an object
    /// never saved. Throws ``StoreError/historyNotKept(class:)`` when the class does not keep
    /// history, ``StoreError/corruptHistory(class:rowID:sequence:reason:)`` for a damaged version.
    ///
    /// ```swift
    /// for version in try store.history(of: note) {
    ///     print(version.sequence, version.savedAt, version.object?.text ?? "deleted")
    /// }
    /// ```
    public func history<T: StoredObject>(of object: T) throws -> [ObjectVersion<T>] {
        try checkOpen()
        if let owner = object.attachedStore, owner !== self {
            throw StoreError.objectInAnotherStore(class: type(of: object).storageName, rowID: object.rowID)
        }
        return try history(of: type(of: object), rowID: object.rowID)
    }

    /// Every version of the object of class `type` with `rowID`, oldest first, as
    /// ``history(of:)`` gives them: also for an object deleted, whose instance is gone.
    ///
    /// ```swift
    /// let versions = try store.history(of: Note.self, rowID: 7)
    /// let lastText = versions.last { !$0.isDeletion }?.object?.text
    /// ```
    public func history<T: StoredObject>(of type: T.Type, rowID: RowID) throws -> [ObjectVersion<T>] {
        let entry = try historyEntry(for: type)
        var versions: [ObjectVersion<T>] = []
        try forEachVersion(of: rowID, entry: entry, reverse: false) { record, version in
            versions.append(try self.version(version, of: record, entry: entry))
            return true
        }
        return versions
    }

    /// The object of class `type` with `rowID` as it was at `date`: decoded from its latest
    /// version saved at or before `date` (the one with the highest sequence number, should the
    /// clock have gone back), detached from the store; nil when it had not been saved yet, had
    /// been deleted, or its versions of that time were pruned.
    ///
    /// ```swift
    /// let yesterday = try store.object(of: Note.self, rowID: 7, asOf: Date(timeIntervalSinceNow: -86_400))
    /// ```
    public func object<T: StoredObject>(of type: T.Type, rowID: RowID, asOf date: Date) throws -> T? {
        let entry = try historyEntry(for: type)
        let limit = date.timeIntervalSinceReferenceDate
        var found: (record: HistoryRecord, version: HistoryRecord.Version)?
        try forEachVersion(of: rowID, entry: entry, reverse: true) { record, version in
            guard record.savedAt <= limit else { return true }
            found = (record, version)
            return false
        }
        guard let found else { return nil }
        return try version(found.version, of: found.record, entry: entry).object
    }

    /// Removes, in one atomic commit, the versions of `type`'s objects that no question about
    /// `date` or later needs: every version saved before `date` but each object's latest one
    /// before it (which ``object(of:rowID:asOf:)`` answers with until the next version), and
    /// that one too when it is a deletion (the object's whole history is then gone). Versions
    /// saved at or after `date` stay. Returns how many versions were removed. Pruning changes no
    /// object: it takes no sequence number and sends no change.
    ///
    /// ```swift
    /// try store.pruneHistory(of: Note.self, before: Date(timeIntervalSinceNow: -30 * 86_400))
    /// ```
    @discardableResult
    public func pruneHistory(of type: StoredObject.Type, before date: Date) throws -> Int {
        let entry = try historyEntry(for: type)
        guard !backend.isReadOnly else { throw StoreError.readOnly }
        let limit = date.timeIntervalSinceReferenceDate
        let table = HistoryRecord.table(forClass: entry.name)
        var batch = WriteBatch()
        var removedVersions = 0
        var removedRecords = 0
        // The records of the page being read, in save order.
        var records: [HistoryRecord] = []
        func finishPage() throws {
            defer { records.removeAll(keepingCapacity: true) }
            // Each object's versions before `date`, as (record, position) in save order.
            var before: [UInt64: [(record: Int, position: Int)]] = [:]
            for (index, record) in records.enumerated() where record.savedAt < limit {
                for (position, version) in record.versions.enumerated() { before[version.rowID, default: []].append((index, position)) }
            }
            var removed = Array(repeating: Set<Int>(), count: records.count)
            for places in before.values {
                guard let last = places.last else { continue }
                for place in places.dropLast() { removed[place.record].insert(place.position) }
                if records[last.record].versions[last.position].isDeletion { removed[last.record].insert(last.position) }
            }
            for (index, positions) in removed.enumerated() where !positions.isEmpty {
                var record = records[index]
                removedVersions += positions.count
                let key = HistoryRecord.key(page: record.page, sequence: record.sequence)
                record.versions = record.versions.enumerated().filter { !positions.contains($0.offset) }.map(\.element)
                if record.versions.isEmpty {
                    batch.removeValue(forKey: key, in: table)
                    removedRecords += 1
                } else {
                    batch.put(try record.encodedValue(table: table, cipher: cipher), forKey: key, in: table)
                }
            }
        }
        try backend.forEachRecord(in: table, from: nil, through: nil, reverse: false) { key, value in
            let record = try openRecord(key: key, value: value, entry: entry)
            if let first = records.first, first.page != record.page { try finishPage() }
            records.append(record)
            return true
        }
        try finishPage()
        guard !batch.isEmpty else { return 0 }
        let current = historyCounts[entry.name] ?? 0
        let count = current >= UInt64(removedRecords) ? current - UInt64(removedRecords) : 0
        try addHistoryCount(count, ofClass: entry.name, to: &batch)
        try applyToBackend(batch)
        historyCounts[entry.name] = count
        return removedVersions
    }

    // MARK: Saving

    /// Adds to `batch` the versions the save in progress appends to the histories of its
    /// classes, under `sequence` (the number ``addChange(classes:namedBuffers:to:)`` gives the
    /// save), all dated now, and each history's new number of versions. Returns the numbers,
    /// to adopt once the batch is applied (``historyCounts``).
    internal func addHistory(sequence: UInt64, to batch: inout WriteBatch) throws -> [String: UInt64] {
        let savedAt = Date().timeIntervalSinceReferenceDate
        var key = [UInt8](repeating: 0, count: HistoryRecord.keySize)
        var scratch: [UInt8] = []
        var counts: [String: UInt64] = [:]
        for entry in entriesByType.values.sorted(by: { $0.classID < $1.classID }) where !entry.pendingHistory.isEmpty {
            let table = HistoryRecord.table(forClass: entry.name)
            let cipher = cipher
            let pages = try entry.pendingHistory.forEachPage { page, count, versions in
                key.withUnsafeMutableBytes {
                    $0.storeBytes(of: page.bigEndian, as: UInt64.self)
                    $0.storeBytes(of: sequence.bigEndian, toByteOffset: 8, as: UInt64.self)
                }
                do {
                    try batch.put(forKey: key, in: table) { bytes, keyStart in
                        try HistoryRecord.appendValue(table: table, cipher: cipher, to: &bytes, keyStart: keyStart,
                                                      scratch: &scratch) { body in
                            HistoryRecord.appendBodyHeader(savedAt: savedAt, count: count, to: &body)
                            versions { rowID, version, content in
                                HistoryRecord.appendVersion(rowID: rowID, version: version, content: content, to: &body)
                            }
                        }
                    }
                } catch let error as StoreError {
                    throw error
                } catch {
                    throw StoreError.encryptionFailure(reason: "\(error)")
                }
            }
            let count = (historyCounts[entry.name] ?? 0) &+ UInt64(pages)
            try addHistoryCount(count, ofClass: entry.name, to: &batch)
            counts[entry.name] = count
        }
        return counts
    }

    /// Adds the `history/<Class>` record: `count` versions.
    private func addHistoryCount(_ count: UInt64, ofClass name: String, to batch: inout WriteBatch) throws {
        var buffer = DataBuffer()
        buffer.writeVarInt(count)
        try addMetadata(buffer, forKey: HistoryRecord.countKey(forClass: name), to: &batch)
    }

    /// Forgets the versions of a save that ended (committed or not).
    internal func clearPendingHistory() {
        for entry in entriesByType.values where !entry.pendingHistory.isEmpty { entry.pendingHistory = PendingHistory() }
    }

    // MARK: Reading

    /// The entry of `type`, which must keep history.
    private func historyEntry(for type: StoredObject.Type) throws -> ClassEntry {
        let entry = try entry(for: type)
        guard entry.keepsHistory else { throw StoreError.historyNotKept(class: entry.name) }
        return entry
    }

    /// Calls `body` with each version of `rowID` and the record that holds it, in ascending
    /// sequence order (descending with `reverse`), until it returns false.
    private func forEachVersion(of rowID: UInt64, entry: ClassEntry, reverse: Bool,
                                _ body: (HistoryRecord, HistoryRecord.Version) throws -> Bool) throws {
        let page = HistoryRecord.layout.number(of: rowID)
        try backend.forEachRecord(in: HistoryRecord.table(forClass: entry.name),
                                  from: HistoryRecord.key(page: page, sequence: 0),
                                  through: HistoryRecord.key(page: page, sequence: .max), reverse: reverse) { key, value in
            let record = try openRecord(key: key, value: value, entry: entry, rowID: rowID)
            guard let version = record.version(of: rowID) else { return true }
            return try body(record, version)
        }
    }

    /// Opens the record stored under `key`; a damaged one, or one that names a save the store
    /// has not made or a rowID the class never handed out, throws
    /// ``StoreError/corruptHistory(class:rowID:sequence:reason:)`` naming `rowID` (by default the
    /// first rowID of the record's page).
    internal func openRecord(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, className: String,
                             nextRowID: UInt64, cipher: RecordCipher?, rowID: UInt64? = nil) throws -> HistoryRecord {
        let parts = HistoryRecord.parts(ofKey: key)
        let named = rowID ?? max(1, HistoryRecord.layout.firstRowID(ofPage: parts?.page ?? 0))
        let record: HistoryRecord
        do {
            record = try HistoryRecord(key: key, value: value, table: HistoryRecord.table(forClass: className), cipher: cipher)
        } catch .sealedWithoutKey {
            throw StoreError.encryptionKeyRequired
        } catch {
            throw StoreError.corruptHistory(class: className, rowID: named, sequence: parts?.sequence ?? 0, reason: error.reason)
        }
        guard record.sequence >= 1, record.sequence <= changeLog.sequence else {
            throw StoreError.corruptHistory(class: className, rowID: named, sequence: record.sequence,
                                            reason: "the store's last save is \(changeLog.sequence)")
        }
        guard record.versions.allSatisfy({ $0.rowID >= 1 && $0.rowID < nextRowID }) else {
            throw StoreError.corruptHistory(class: className, rowID: named, sequence: record.sequence,
                                            reason: "a rowID was never handed out")
        }
        return record
    }

    private func openRecord(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, entry: ClassEntry,
                            rowID: UInt64? = nil) throws -> HistoryRecord {
        try openRecord(key: key, value: value, className: entry.name, nextRowID: entry.savedNextRowID, cipher: cipher, rowID: rowID)
    }

    /// `version`, held by `record`, as an ObjectVersion, its object decoded (detached).
    private func version<T: StoredObject>(_ version: HistoryRecord.Version, of record: HistoryRecord,
                                          entry: ClassEntry) throws -> ObjectVersion<T> {
        let savedAt = Date(timeIntervalSinceReferenceDate: record.savedAt)
        guard let object = try decodedObject(from: version, entry: entry) else {
            return ObjectVersion(sequence: record.sequence, savedAt: savedAt, object: nil)
        }
        guard let typed = object as? T else {
            throw StoreError.undecodableRecord(class: entry.name, rowID: version.rowID, reason: "not a \(T.self)")
        }
        return ObjectVersion(sequence: record.sequence, savedAt: savedAt, object: typed)
    }

    /// A new object of `entry`'s class decoded from `version` (nil for a deletion), outside the
    /// identity map, with its rowID set.
    internal func decodedObject(from version: HistoryRecord.Version, entry: ClassEntry) throws -> StoredObject? {
        guard let classVersion = version.version else { return nil }
        let object = entry.type.init()
        object.rowID = version.rowID
        var buffer = DataBuffer(bytes: version.content, versionOfData: classVersion)
        try readContent(of: object, from: &buffer, entry: entry)
        return object
    }
}
