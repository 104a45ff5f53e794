// CollectionState: the engine behind one collection, used under its own lock. Reads
// documents (through the cache) and index ranges for the executor, and stages every write
// (documents, index entries, the definition) into one WriteBatch, checking unique indexes
// before anything is applied, so a call either commits whole or changes nothing.

import Foundation
import Larder

/// One collection's definition, cache and storage access.
final class CollectionState: DocumentSource {
    let name: String
    let backend: SharedBackend
    /// Held for each whole operation on the collection: one at a time, in order.
    let lock = NSLock()
    private(set) var definition: CollectionDefinition
    var cache: DocumentCache


    init(name: String, backend: SharedBackend, definition: CollectionDefinition, cacheSize: Int) {
        self.name = name
        self.backend = backend
        self.definition = definition
        self.cache = DocumentCache(capacity: cacheSize)
    }

    var defaults: JSON { definition.defaults }

    static func documentKey(_ rowID: Int64) -> [UInt8] {
        RowIDKey.bytes(UInt64(bitPattern: rowID))
    }

    // MARK: Reading (DocumentSource)

    func document(_ rowID: Int64) throws -> JSON? {
        if let cached = cache.document(for: rowID) { return cached }
        var result: JSON?
        try backend.readValue(forKey: Self.documentKey(rowID), in: name) { bytes in
            guard let bytes else { return }
            result = try decodeRecord(bytes, key: Self.documentKey(rowID), rowID: rowID)
        }
        if let result { cache.store(result, for: rowID) }
        return result
    }

    func forEachDocument(_ body: (Int64, JSON) throws -> Bool) throws {
        try backend.forEachRecord(in: name) { key, value in
            guard let raw = RowIDKey.rowID(in: key) else {
                throw DocumentError.corruptDocument(collection: name, rowID: 0, reason: "a key is not a rowID")
            }
            let rowID = Int64(bitPattern: raw)
            return try body(rowID, cache.document(for: rowID) ?? decodeRecord(value, key: Array(key), rowID: rowID))
        }
    }

    func forEachIndexEntry(_ index: IndexDefinition, in range: KeyRange, reverse: Bool,
                           _ body: (Int64) throws -> Bool) throws {
        try backend.forEachRecord(in: index.table(in: name), from: range.start, through: range.end, reverse: reverse) { key, _ in
            guard let rowID = IndexKey.rowID(in: key) else { return true }
            return try body(rowID)
        }
    }

    private func decodeRecord(_ bytes: UnsafeRawBufferPointer, key: [UInt8], rowID: Int64) throws -> JSON {
        do {
            return try key.withUnsafeBytes { try DocumentRecord.open(bytes, key: $0) }
        } catch let failure as JSONBinary.DecodingFailure {
            throw DocumentError.corruptDocument(collection: name, rowID: rowID, reason: failure.reason)
        }
    }

    // MARK: Writing

    /// One call's changes, staged before anything is applied.
    struct PendingWrite {
        var batch = WriteBatch()
        var definition: CollectionDefinition
        /// Documents written (nil: removed), to update the cache after the commit.
        var documents: [(rowID: Int64, document: JSON?)] = []
        /// Unique index id -> entry prefix -> the rowID that has it in this write.
        var claimed: [Int: [[UInt8]: Int64]] = [:]
        /// Index id -> full keys removed by this write.
        var removed: [Int: Set<[UInt8]>] = [:]
        /// The documents as this write leaves them (nil: removed), for later stages of it.
        var staged: [Int64: JSON?] = [:]
        /// Index table -> keys of new documents' entries, put in key order at the commit:
        /// Tokyo Cabinet's B+tree then fills leaf after leaf instead of touching them at random.
        var newEntries: [String: [[UInt8]]] = [:]
    }

    func beginWrite() -> PendingWrite {
        PendingWrite(definition: definition)
    }

    /// Stages a new document; returns its rowID.
    func stageInsert(_ document: JSON, into write: inout PendingWrite) throws -> Int64 {
        let content = try Self.content(of: document)
        let rowID = write.definition.nextRowID
        write.definition.nextRowID += 1
        try stage(rowID: rowID, old: nil, new: content, into: &write)
        return rowID
    }

    /// Stages the replacement of document `rowID`; throws when there is none.
    func stageUpdate(_ document: JSON, into write: inout PendingWrite) throws {
        let rowID = try Self.rowID(of: document)
        let content = try Self.content(of: document)
        try stage(rowID: rowID, old: try current(rowID, in: write), new: content, into: &write)
    }

    /// Stages the removal of document `rowID`; throws when there is none.
    func stageRemove(rowID: Int64, into write: inout PendingWrite) throws {
        try stage(rowID: rowID, old: try current(rowID, in: write), new: nil, into: &write)
    }

    /// Document `rowID` as the write has left it so far; throws when there is none.
    private func current(_ rowID: Int64, in write: PendingWrite) throws -> JSON {
        let found: JSON? = if let staged = write.staged[rowID] { staged } else { try document(rowID) }
        guard let found else { throw DocumentError.documentNotFound(collection: name, rowID: rowID) }
        return found
    }

    /// Applies the staged write atomically, then adopts its definition and updates the cache.
    func commit(_ write: PendingWrite) throws {
        var batch = write.batch
        for (table, keys) in write.newEntries.sorted(by: { $0.key < $1.key }) {
            let ordered = keys.sorted { left, right in
                left.withUnsafeBytes { l in
                    right.withUnsafeBytes { r in
                        guard let leftBase = l.baseAddress, let rightBase = r.baseAddress else { return l.count < r.count }
                        let order = memcmp(leftBase, rightBase, min(l.count, r.count))
                        return order != 0 ? order < 0 : l.count < r.count
                    }
                }
            }
            for key in ordered { batch.put([], forKey: key, in: table) }
        }
        if write.definition != definition {
            let key = CollectionDefinition.metadataKey(for: name)
            batch.put(DocumentRecord.seal(write.definition.json, key: key), forKey: key, in: DocumentStore.metadataTable)
        }
        try backend.apply(batch)
        definition = write.definition
        for (rowID, document) in write.documents {
            if let document, cache.contains(rowID) { cache.store(document, for: rowID) } else if document == nil { cache.remove(rowID) }
        }
    }

    /// Adds an index to the staged definition and stages all its entries; a unique violation
    /// in the existing documents throws before anything is applied.
    func stageNewIndex(keys: [SortKey], isUnique: Bool, into write: inout PendingWrite) throws {
        var index = IndexDefinition(id: write.definition.nextIndexID, keys: keys, isUnique: isUnique)
        write.definition.nextIndexID += 1
        try stageEntries(of: &index, into: &write)
        write.definition.indexes.append(index)
    }

    /// Removes every entry of every index and stages them again (after a change of defaults).
    func stageRebuildOfIndexes(into write: inout PendingWrite) throws {
        for position in write.definition.indexes.indices {
            var index = write.definition.indexes[position]
            var keys: [[UInt8]] = []
            try backend.forEachRecord(in: index.table(in: name), from: nil, through: nil, reverse: false) { key, _ in
                keys.append(Array(key))
                return true
            }
            for key in keys { write.batch.removeValue(forKey: key, in: index.table(in: name)) }
            index.isMultiValued = false
            try stageEntries(of: &index, into: &write)
            write.definition.indexes[position] = index
        }
    }

    private func stageEntries(of index: inout IndexDefinition, into write: inout PendingWrite) throws {
        var owners: [[UInt8]: Int64] = [:]
        let table = index.table(in: name)
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
                var key = prefix
                IndexKey.appendRowID(rowID, to: &key)
                write.batch.put([], forKey: key, in: table)
            }
            return true
        }
    }

    private func stage(rowID: Int64, old: JSON?, new: JSON?, into write: inout PendingWrite) throws {
        let defaults = write.definition.defaults
        for position in write.definition.indexes.indices {
            let index = write.definition.indexes[position]
            let table = index.table(in: name)
            guard let old else {
                // A new document: its entries are all new.
                if let new { try stageNewEntries(of: new, rowID: rowID, index: position, into: &write) }
                continue
            }
            // A document has a few entries per index: arrays beat hashing byte strings.
            let oldKeys = index.entries(for: old, rowID: rowID, defaults: defaults).entries.map { fullKey($0.prefix, rowID) }
            var newKeys: [[UInt8]] = []
            if let new {
                let (entries, sawArray) = index.entries(for: new, rowID: rowID, defaults: defaults)
                if sawArray && !index.isMultiValued { write.definition.indexes[position].isMultiValued = true }
                for entry in entries {
                    if index.isUnique && !entry.hasNull {
                        try checkUnique(index, prefix: entry.prefix, rowID: rowID, document: new, in: &write)
                    }
                    newKeys.append(fullKey(entry.prefix, rowID))
                }
            }
            for key in oldKeys where !newKeys.contains(key) {
                write.batch.removeValue(forKey: key, in: table)
                // Only unique checks ask what this write removed.
                if index.isUnique { write.removed[index.id, default: []].insert(key) }
            }
            for key in newKeys where !oldKeys.contains(key) {
                write.batch.put([], forKey: key, in: table)
                if index.isUnique { write.removed[index.id]?.remove(key) }
            }
        }
        if let new {
            let key = Self.documentKey(rowID)
            write.batch.put(DocumentRecord.seal(new, key: key), forKey: key, in: name)
        } else {
            write.batch.removeValue(forKey: Self.documentKey(rowID), in: name)
        }
        // New rowIDs are not cached, nor can a later stage of this write name them.
        if old != nil {
            write.documents.append((rowID, new))
            write.staged[rowID] = .some(new)
        }
    }

    private func stageNewEntries(of document: JSON, rowID: Int64, index position: Int, into write: inout PendingWrite) throws {
        let index = write.definition.indexes[position]
        let table = index.table(in: name)
        let (entries, sawArray) = index.entries(for: document, rowID: rowID, defaults: write.definition.defaults)
        if sawArray && !index.isMultiValued { write.definition.indexes[position].isMultiValued = true }
        for entry in entries {
            if index.isUnique && !entry.hasNull {
                try checkUnique(index, prefix: entry.prefix, rowID: rowID, document: document, in: &write)
            }
            write.newEntries[table, default: []].append(fullKey(entry.prefix, rowID))
        }
    }

    /// Throws when another document (stored and not removed by this write, or staged in it)
    /// has `prefix` in the unique `index`.
    private func checkUnique(_ index: IndexDefinition, prefix: [UInt8], rowID: Int64, document: JSON,
                             in write: inout PendingWrite) throws {
        var taken = write.claimed[index.id]?[prefix].map { $0 != rowID } ?? false
        if !taken {
            let removed = write.removed[index.id] ?? []
            try backend.forEachRecord(in: index.table(in: name), from: prefix, through: prefix + IndexKey.prefixEnd,
                                      reverse: false) { key, _ in
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

    private func fullKey(_ prefix: [UInt8], _ rowID: Int64) -> [UInt8] {
        var key = prefix
        IndexKey.appendRowID(rowID, to: &key)
        return key
    }

    // MARK: Documents

    /// A document without its `__rowid__`; throws unless it is an object.
    static func content(of document: JSON) throws -> JSON {
        guard case var .object(members) = document else { throw DocumentError.notAnObject(document) }
        // Recursive encoders and comparisons must not run out of stack.
        guard document.nestingDepth <= JSON.maximumNesting else { throw DocumentError.nestedTooDeeply }
        // Only a document that carries one is copied to drop it.
        guard members[FieldPath.rowIDField] != nil else { return document }
        members[FieldPath.rowIDField] = nil
        return .object(members)
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
