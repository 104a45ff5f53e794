// CollectionEngine+Writing: how a collection's engine stages a write (documents, index entries, the
// definition) into a PendingWrite, checks unique indexes against the write's own changes, and
// commits it as one batch.

import Foundation
import Larder

extension CollectionEngine {

    /// One call's changes, staged before anything is applied.
    struct PendingWrite {
        var definition: CollectionDefinition
        /// The documents' records written and removed.
        var records: PendingRecords
        /// Index id -> the entries added and removed.
        var indexChanges: [Int: IndexChanges] = [:]
        /// Documents removed (nil) or written that the cache holds, to update it after the commit.
        var documents: [(rowID: Int64, document: JSON?)] = []
        /// Unique index id -> entry prefix -> the rowID that has it in this write.
        var claimed: [Int: [[UInt8]: Int64]] = [:]
        /// Index id -> full keys removed by this write.
        var removed: [Int: Set<[UInt8]>] = [:]
        /// The documents as this write leaves them (nil: removed), for later stages of it.
        var staged: [Int64: JSON?] = [:]
        /// The key paths of the staged definition's indexes, made when a stored document's
        /// old key values are first read.
        var keyPaths: IndexKeyPaths?
    }

    func beginWrite() -> PendingWrite {
        PendingWrite(definition: definition, records: PendingRecords(layout: documents.layout))
    }

    /// Stages a new document; returns its rowID.
    func stageInsert(_ document: JSON, into write: inout PendingWrite) throws -> Int64 {
        let content = try Self.content(of: document)
        let rowID = write.definition.nextRowID
        let (next, overflow) = rowID.addingReportingOverflow(1)
        guard !overflow else { throw DocumentError.identifiersExhausted(collection: name) }
        write.definition.nextRowID = next
        try stage(rowID: rowID, old: nil, new: content, into: &write)
        return rowID
    }

    /// Stages an imported document at `rowID`, which the caller has checked is new and below
    /// the staged definition's next rowID (DocumentCollection+Interchange).
    func stageImported(_ document: JSON, rowID: Int64, into write: inout PendingWrite) throws {
        try stage(rowID: rowID, old: nil, new: try Self.content(of: document), into: &write)
    }

    /// Stages the replacement of document `rowID`; throws when there is none.
    func stageUpdate(_ document: JSON, into write: inout PendingWrite) throws {
        let rowID = try Self.rowID(of: document)
        let content = try Self.content(of: document)
        try stage(rowID: rowID, old: try currentKeyValues(rowID, in: &write), new: content, into: &write)
    }

    /// Stages the removal of document `rowID`; throws when there is none.
    func stageRemove(rowID: Int64, into write: inout PendingWrite) throws {
        try stage(rowID: rowID, old: try currentKeyValues(rowID, in: &write), new: nil, into: &write)
    }

    /// The key values of each index of the staged definition, one index after another, in
    /// document `rowID` as the write has left it so far; throws when there is none. A stored
    /// document that is not cached is not decoded whole: only its key values are read.
    private func currentKeyValues(_ rowID: Int64, in write: inout PendingWrite) throws -> [JSON] {
        let indexes = write.definition.indexes
        let defaults = write.definition.defaults
        let found: JSON?
        if let staged = write.staged[rowID] {
            found = staged
        } else if let cached = cache.document(for: rowID) {
            found = cached
        } else {
            if write.keyPaths?.fit(indexes) != true { write.keyPaths = IndexKeyPaths(indexes) }
            if let paths = write.keyPaths,
               let values = try documents.keyValues(of: rowID, paths: paths, indexes: indexes, defaults: defaults) {
                return values
            }
            found = nil
        }
        guard let found else { throw DocumentError.documentNotFound(collection: name, rowID: rowID) }
        return Self.keyValues(of: found, rowID: rowID, indexes: indexes, defaults: defaults)
    }

    /// The key values of each of `indexes`, one index after another, in `document`.
    private static func keyValues(of document: JSON, rowID: Int64, indexes: [IndexDefinition], defaults: JSON) -> [JSON] {
        var values: [JSON] = []
        // One index after another: room for all at once, not regrown as they come.
        values.reserveCapacity(indexes.reduce(0) { $0 + $1.keys.count })
        for index in indexes { index.appendKeyValues(of: document, rowID: rowID, defaults: defaults, to: &values) }
        return values
    }

    /// Applies the staged write atomically, then adopts its definition and updates the cache.
    func commit(_ write: PendingWrite) throws {
        var batch = WriteBatch()
        // The run directories the write leaves (encrypted stores), adopted once it is applied.
        var directories: [Int: RunDirectory?] = [:]
        // A dropped index loses every run (read by key only: damaged runs go too).
        for index in definition.indexes where !write.definition.indexes.contains(where: { $0.id == index.id }) {
            var table = tableToReplace(index)
            try table.write(IndexChanges(replacesAll: true), into: &batch)
            directories[index.id] = .some(nil)
        }
        for index in write.definition.indexes {
            guard let changes = write.indexChanges[index.id] else { continue }
            var table = changes.replacesAll ? tableToReplace(index) : try table(of: index)
            try table.write(changes, into: &batch)
            directories[index.id] = table.sealedRuns?.directory
        }
        var gained: Int?
        if !write.records.isEmpty {
            gained = try documents.write(write.records, firstNewRowID: definition.nextRowID, into: &batch)
        }
        if write.definition != definition {
            let key = CollectionDefinition.metadataKey(for: name)
            batch.put(try DocumentRecord.seal(write.definition.json, key: key, cipher: cipher, scope: DocumentStore.metadataTable),
                      forKey: key, in: DocumentStore.metadataTable)
        }
        do {
            try backend.apply(batch)
        } catch {
            documents.didWrite(gained: nil)
            runDirectories.removeAll()
            throw error
        }
        documents.didWrite(gained: gained)
        for (id, directory) in directories { runDirectories[id] = directory }
        // The write's new rowIDs are the ones its definition handed out; the documents it
        // replaced or removed are the ones it staged.
        feed.publish(inserted: definition.nextRowID ..< write.definition.nextRowID, staged: write.staged)
        definition = write.definition
        for (rowID, document) in write.documents {
            if var document, cache.contains(rowID) {
                Self.addRowID(rowID, to: &document)
                cache.store(document, for: rowID)
            } else if document == nil {
                cache.remove(rowID)
            }
        }
    }

    /// Removes every document, index entry and the definition, in one batch. The state is not
    /// used again.
    func drop() throws {
        var batch = WriteBatch()
        try backend.removeEveryRecord(in: name, into: &batch)
        for index in definition.indexes {
            var table = tableToReplace(index)
            try table.write(IndexChanges(replacesAll: true), into: &batch)
        }
        batch.removeValue(forKey: CollectionDefinition.metadataKey(for: name), in: DocumentStore.metadataTable)
        documents.didWrite(gained: nil)
        try backend.apply(batch)
        cache.capacity = 0
    }

    /// Adds an index to the staged definition and stages all its entries; a unique violation
    /// in the existing documents throws before anything is applied.
    func stageNewIndex(keys: [SortKey], isUnique: Bool, into write: inout PendingWrite) throws {
        var index = IndexDefinition(id: write.definition.nextIndexID, keys: keys, isUnique: isUnique)
        let (next, overflow) = write.definition.nextIndexID.addingReportingOverflow(1)
        guard !overflow else { throw DocumentError.identifiersExhausted(collection: name) }
        write.definition.nextIndexID = next
        try stageEntries(of: &index, into: &write)
        write.definition.indexes.append(index)
    }

    /// Removes every entry of every index and stages them again (after a change of defaults).
    func stageRebuildOfIndexes(into write: inout PendingWrite) throws {
        for position in write.definition.indexes.indices {
            var index = write.definition.indexes[position]
            write.indexChanges[index.id] = IndexChanges(replacesAll: true)
            index.isMultiValued = false
            try stageEntries(of: &index, into: &write)
            write.definition.indexes[position] = index
        }
    }

    private func stageEntries(of index: inout IndexDefinition, into write: inout PendingWrite) throws {
        var owners: [[UInt8]: Int64] = [:]
        var changes = write.indexChanges[index.id] ?? IndexChanges()
        let defaults = write.definition.defaults
        let current = index
        try forEachDocument { rowID, document in
            let (entries, sawArray) = current.entries(for: document, rowID: rowID, defaults: defaults)
            if sawArray { index.isMultiValued = true }
            for entry in entries {
                let prefix = entry.prefix
                if current.isUnique && !entry.hasNull {
                    if let owner = owners[prefix], owner != rowID {
                        throw DocumentError.uniqueConstraint(
                            index: current.name, value: current.values(of: document, rowID: rowID, defaults: defaults, matching: prefix))
                    }
                    owners[prefix] = rowID
                }
                changes.appended.append(entry.key)
            }
            return true
        }
        write.indexChanges[index.id] = changes
    }

    /// Stages document `rowID`'s change from a document whose key values in the indexes of the
    /// staged definition are `old` (one index after another; nil: a new document) to `new`
    /// (nil: removed). `old` comes from the same indexes (currentKeyValues).
    private func stage(rowID: Int64, old: [JSON]?, new: JSON?, into write: inout PendingWrite) throws {
        let defaults = write.definition.defaults
        let allNewValues = old == nil ? nil : new.map { Self.keyValues(of: $0, rowID: rowID, indexes: write.definition.indexes, defaults: defaults) }
        var start = 0
        for position in write.definition.indexes.indices {
            let index = write.definition.indexes[position]
            guard let old else {
                // A new document: its entries are all new.
                if let new { try stageNewEntries(of: new, rowID: rowID, index: position, into: &write) }
                continue
            }
            let end = start + index.keys.count
            defer { start = end }
            let oldValues = old[start ..< end]
            let newValues = allNewValues?[start ..< end]
            // Most updates leave most indexes' values as they were: then their entries are the
            // same, and nothing is encoded. (A unique index still checks them, as before.)
            if let newValues, !index.isUnique, IndexKey.encodeAlike(newValues, oldValues) {
                if !index.isMultiValued && newValues.contains(where: \.isArray) { write.definition.indexes[position].isMultiValued = true }
                continue
            }
            // A document has a few entries per index: arrays beat hashing byte strings.
            let oldKeys = index.entries(of: Array(oldValues), rowID: rowID).entries.map(\.key)
            var newKeys: [[UInt8]] = []
            if let newValues, let new {
                let (entries, sawArray) = index.entries(of: Array(newValues), rowID: rowID)
                if sawArray && !index.isMultiValued { write.definition.indexes[position].isMultiValued = true }
                for entry in entries {
                    if index.isUnique && !entry.hasNull {
                        try checkUnique(index, prefix: entry.prefix, rowID: rowID, document: new, in: &write)
                    }
                    newKeys.append(entry.key)
                }
            }
            for key in oldKeys where !newKeys.contains(key) {
                write.indexChanges[index.id, default: IndexChanges()].change(key, isAdded: false)
                // Only unique checks ask what this write removed.
                if index.isUnique { write.removed[index.id, default: []].insert(key) }
            }
            for key in newKeys where !oldKeys.contains(key) {
                write.indexChanges[index.id, default: IndexChanges()].change(key, isAdded: true)
                if index.isUnique { write.removed[index.id]?.remove(key) }
            }
        }
        if let new {
            let sealed = try DocumentRecord.seal(new, key: DocumentTable.recordKey(rowID), isDocument: true, cipher: cipher, scope: name)
            sealed.withUnsafeBytes { write.records.add(envelope: $0, rowID: UInt64(rowID)) }
        } else {
            write.records.delete(rowID: UInt64(rowID))
        }
        // New rowIDs are not cached, nor can a later stage of this write name them.
        if old != nil {
            // Only the cache needs them, and only those it holds.
            if new == nil || cache.contains(rowID) { write.documents.append((rowID, new)) }
            write.staged[rowID] = .some(new)
        }
    }

    private func stageNewEntries(of document: JSON, rowID: Int64, index position: Int, into write: inout PendingWrite) throws {
        let index = write.definition.indexes[position]
        let (entries, sawArray) = index.entries(for: document, rowID: rowID, defaults: write.definition.defaults)
        if sawArray && !index.isMultiValued { write.definition.indexes[position].isMultiValued = true }
        for entry in entries {
            if index.isUnique && !entry.hasNull {
                try checkUnique(index, prefix: entry.prefix, rowID: rowID, document: document, in: &write)
            }
            write.indexChanges[index.id, default: IndexChanges()].appended.append(entry.key)
        }
    }

    /// Throws when another document (stored and not removed by this write, or staged in it)
    /// has `prefix` in the unique `index`.
    private func checkUnique(_ index: IndexDefinition, prefix: [UInt8], rowID: Int64, document: JSON,
                             in write: inout PendingWrite) throws {
        var taken = write.claimed[index.id]?[prefix].map { $0 != rowID } ?? false
        if !taken {
            let removed = write.removed[index.id] ?? []
            try table(of: index).forEachEntry(from: prefix, through: prefix + IndexKey.prefixEnd, reverse: false) { key in
                guard let owner = IndexKey.rowID(in: key), owner != rowID, !removed.contains(Array(key)) else { return true }
                taken = true
                return false
            }
        }
        if taken {
            throw DocumentError.uniqueConstraint(
                index: index.name, value: index.values(of: document, rowID: rowID, defaults: write.definition.defaults, matching: prefix))
        }
        write.claimed[index.id, default: [:]][prefix] = rowID
    }

    // MARK: Documents

    /// The document to store; throws unless it is an object nesting no deeper than allowed.
    /// Any `"__rowid__"` it carries stays in memory (copying the document to drop it would
    /// cost more) but is never stored, nor read as a field: `[__rowid__]` is the rowID.
    static func content(of document: JSON) throws -> JSON {
        guard case .object = document else { throw DocumentError.notAnObject(document) }
        // Recursive encoders and comparisons must not run out of stack.
        guard !document.nestsDeeper(than: JSON.maximumNesting) else { throw DocumentError.nestedTooDeeply }
        return document
    }

    static func rowID(of document: JSON) throws -> Int64 {
        guard let rowID = document[FieldPath.rowIDField].intValue else { throw DocumentError.missingRowID }
        return rowID
    }

    /// Turns a stored document into what the caller sees: with `__rowid__`. In place, so that
    /// a document nothing else holds is not copied.
    static func addRowID(_ rowID: Int64, to document: inout JSON) {
        guard case var .object(members) = document else { return }
        document = .null
        members[FieldPath.rowIDField] = .int(rowID)
        document = .object(members)
    }
}
