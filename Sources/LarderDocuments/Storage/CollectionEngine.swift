// CollectionState: the engine behind one collection, used under its own lock. Reads
// documents (through the cache and DocumentTable) and index ranges (IndexTable) for the
// executor, and stages every write (documents, index entries, the definition), checking
// unique indexes, before one WriteBatch applies it all: a call commits whole or changes
// nothing.

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
    /// The documents' pages.
    var documents: DocumentTable
    /// The store's cipher, in an encrypted store.
    let cipher: DocumentCipher?
    /// Index id -> the directory of its sealed runs, in an encrypted store: read once, then
    /// kept up to date by commits.
    private var runDirectories: [Int: RunDirectory] = [:]
    /// Set when the store replaced this state (a rekey): an operation that took it before
    /// takes the new one.
    var isRetired = false

    init(name: String, backend: SharedBackend, definition: CollectionDefinition, cacheSize: Int, cipher: DocumentCipher?) {
        self.name = name
        self.backend = backend
        self.definition = definition
        self.cipher = cipher
        self.cache = DocumentCache(capacity: cacheSize)
        self.documents = DocumentTable(backend: backend, name: name, layout: definition.pageLayout, cipher: cipher)
    }

    var defaults: JSON { definition.defaults }

    /// Query and orderBy texts parsed lately, with the aliases they were expanded with: an
    /// application runs the same few queries with different arguments.
    private var templateCache: [String: QueryTemplate] = [:]
    private var sortKeyCache: [String: [SortKey]] = [:]
    private var parseCacheAliases: [String: String] = [:]
    private static let parseCacheSize = 128

    /// The WHERE clause `text` parsed with the collection's aliases, placeholders unbound.
    func template(of text: String) throws -> QueryTemplate {
        clearParseCachesIfAliasesChanged()
        return try parsed(text, cache: &templateCache, QueryParser.parseTemplate)
    }

    /// The keys of the orderBy `text`, parsed with the collection's aliases.
    func sortKeys(of text: String) throws -> [SortKey] {
        clearParseCachesIfAliasesChanged()
        return try parsed(text, cache: &sortKeyCache, QueryParser.parseSortKeys)
    }

    /// `text` tokenized with the collection's aliases and parsed by `parse`, from `cache`
    /// when it was lately (the caches hold texts parsed with the aliases of now).
    private func parsed<Value>(_ text: String, cache: inout [String: Value],
                               _ parse: (String, [QueryToken]) throws -> Value) throws -> Value {
        if let value = cache[text] { return value }
        let value = try parse(text, QueryTokenizer.tokenize(text, aliases: definition.aliases))
        if cache.count >= Self.parseCacheSize { cache.removeAll() }
        cache[text] = value
        return value
    }

    private func clearParseCachesIfAliasesChanged() {
        guard parseCacheAliases != definition.aliases else { return }
        templateCache.removeAll()
        sortKeyCache.removeAll()
        parseCacheAliases = definition.aliases
    }

    /// The table of `index` (in an encrypted store, with the directory of its runs, read on
    /// first use).
    func table(of index: IndexDefinition) throws -> IndexTable {
        var table = plaintextTable(of: index)
        if let cipher {
            if runDirectories[index.id] == nil { runDirectories[index.id] = try table.readDirectory(with: cipher) }
            table.sealedRuns = SealedRuns(cipher: cipher, directory: runDirectories[index.id] ?? RunDirectory())
        }
        return table
    }

    /// The table of `index` for a write that replaces all its runs (sealed with `cipher`, by
    /// default the store's): its directory is not read, so a damaged one goes too.
    func tableToReplace(_ index: IndexDefinition, sealingWith cipher: DocumentCipher?? = nil) -> IndexTable {
        var table = plaintextTable(of: index)
        table.sealedRuns = (cipher ?? self.cipher).map { SealedRuns(cipher: $0, directory: RunDirectory()) }
        return table
    }

    /// The table of `index` without its sealed runs (a plaintext store's table).
    func plaintextTable(of index: IndexDefinition) -> IndexTable {
        // The definition rather than its name: the name is only made for an error.
        let tableName = index.table(in: name)
        backend.declareOrderedTable(tableName)
        return IndexTable(backend: backend, name: tableName, collection: name, definition: index,
                          restartPoints: definition.indexRunsHaveRestartPoints)
    }

    /// The number of documents.
    func documentCount() throws -> Int {
        try documents.count()
    }

    // MARK: Reading (DocumentSource)

    func document(_ rowID: Int64) throws -> JSON? {
        if let cached = cache.document(for: rowID) { return cached }
        let result = try documents.document(rowID)
        if let result { cache.store(result, for: rowID) }
        return result
    }

    func documents(_ rowIDs: [Int64]) throws -> [(rowID: Int64, document: JSON)] {
        var wanted = rowIDs
        if zip(wanted, wanted.dropFirst()).contains(where: { $0 >= $1 }) {
            // Sorted, then each rowID once (no set to build for the 20 rows of an ordered find).
            wanted.sort()
            var kept = 0
            for position in wanted.indices where kept == 0 || wanted[position] != wanted[kept - 1] {
                wanted[kept] = wanted[position]
                kept += 1
            }
            wanted.removeLast(wanted.count - kept)
        }
        var cached: [(rowID: Int64, document: JSON)] = []
        if cache.capacity > 0 {
            var missing: [Int64] = []
            for rowID in wanted {
                if let document = cache.document(for: rowID) { cached.append((rowID, document)) } else { missing.append(rowID) }
            }
            wanted = missing
        }
        let pageBound = Int(documents.layout.number(of: UInt64(max(definition.nextRowID, 1)))) + 1
        let batches = try documents.records(of: wanted, pageBound: pageBound)
        let name = name
        let cipher = cipher
        var found = try RecordBatch.decode(batches, shapes: documents.shapes) { record, rowID, shapes in
            try DocumentTable.open(record, rowID: rowID, collection: name, cipher: cipher, shapes: shapes)
        }
        // Caching every document in turn would leave the last ones: cache only those.
        for position in max(0, found.count - cache.capacity) ..< found.count {
            cache.store(found[position].document, for: found[position].rowID)
        }
        if !cached.isEmpty {
            found += cached
            found.sort { $0.rowID < $1.rowID }
        }
        return found
    }

    func forEachDocument(_ body: (Int64, JSON) throws -> Bool) throws {
        try documents.forEachRecord { rowID, record in
            try body(rowID, cache.document(for: rowID) ?? documents.open(record, rowID: rowID))
        }
    }

    func forEachIndexEntry(_ index: IndexDefinition, in range: KeyRange, reverse: Bool,
                           _ body: (Int64) throws -> Bool) throws {
        try table(of: index).forEachEntry(from: range.start, through: range.end, reverse: reverse) { key in
            guard let rowID = IndexKey.rowID(in: key) else { return true }
            return try body(rowID)
        }
    }

    func countIndexEntries(_ index: IndexDefinition, in range: KeyRange) throws -> Int {
        try table(of: index).count(from: range.start, through: range.end)
    }

    // MARK: Writing

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

    private func stage(rowID: Int64, old: JSON?, new: JSON?, into write: inout PendingWrite) throws {
        let defaults = write.definition.defaults
        for position in write.definition.indexes.indices {
            let index = write.definition.indexes[position]
            guard let old else {
                // A new document: its entries are all new.
                if let new { try stageNewEntries(of: new, rowID: rowID, index: position, into: &write) }
                continue
            }
            // A document has a few entries per index: arrays beat hashing byte strings.
            let oldKeys = index.entries(for: old, rowID: rowID, defaults: defaults).entries.map(\.key)
            var newKeys: [[UInt8]] = []
            if let new {
                let (entries, sawArray) = index.entries(for: new, rowID: rowID, defaults: defaults)
                if sawArray && !index.isMultiValued { write.definition.indexes[position].isMultiValued = true }
                for entry in entries {
                    if index.isUnique && !entry.hasNull {
                        try checkUnique(index, prefix: entry.prefix, rowID: rowID, document: new, in: &write)
                    }
                    newKeys.append(entry.key)
                }
            }
            for key in oldKeys where !newKeys.contains(key) {
                write.indexChanges[index.id, default: IndexChanges()].changed[key] = false
                // Only unique checks ask what this write removed.
                if index.isUnique { write.removed[index.id, default: []].insert(key) }
            }
            for key in newKeys where !oldKeys.contains(key) {
                write.indexChanges[index.id, default: IndexChanges()].changed[key] = true
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
            // Only the cache needs them, and only those it holds (reading `old` put it there).
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
