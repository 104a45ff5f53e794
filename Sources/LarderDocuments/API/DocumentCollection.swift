// DocumentCollection: the public face of one collection: its definitions (indexes, queryable
// fields, aliases, defaults, cache size) and its writes. Reads are in
// DocumentCollection+Reading.swift, async forms in DocumentCollection+Async.swift.

import Dispatch
import Larder

/// A collection of JSON documents (objects) in a ``DocumentStore``, with secondary indexes.
/// Every document gets a `"__rowid__"` that is never reused.
///
/// ```swift
/// let people = try store.collection("people")
/// try people.addUniqueIndex("[email]")
/// let id = try people.insert(["email": "ada@example.com", "age": 36])
/// if var ada = try people.document(id: id) {
///     ada["age"] = 37
///     try people.update(ada)
/// }
/// ```
public final class DocumentCollection: Sendable {
    /// The collection's name.
    ///
    /// ```swift
    /// print(people.name)   // people
    /// ```
    public let name: String
    let store: DocumentStore
    /// Runs the async forms of this collection's operations one at a time, in order.
    let queue: DispatchQueue

    init(store: DocumentStore, name: String, queue: DispatchQueue) {
        self.store = store
        self.name = name
        self.queue = queue
    }

    func withState<Result>(_ body: (CollectionEngine) throws -> Result) throws -> Result {
        try store.withCollection(name, body)
    }

    // MARK: Definitions

    /// Adds an index on one or more keys, each ascending or `DESC`; existing documents are
    /// indexed at once. Adding an index that exists (plain or unique, on the same keys) does
    /// nothing.
    ///
    /// ```swift
    /// try people.addIndex("[last_name], [first_name] DESC")
    /// try people.addIndex("[tags]")   // one entry per element: [tags] CONTAINS ? uses it
    /// ```
    public func addIndex(_ keys: String) throws {
        try addIndex(keys, isUnique: false)
    }

    /// Adds a unique index: no two documents may have the same key values (for an array,
    /// the same element). Throws ``DocumentError/uniqueConstraint(index:value:)`` if existing
    /// documents already break it; then nothing is built. A plain index on the same keys is
    /// replaced by the unique one (kept, if the documents break the rule).
    ///
    /// ```swift
    /// try people.addUniqueIndex("[email]")
    /// ```
    public func addUniqueIndex(_ keys: String) throws {
        try addIndex(keys, isUnique: true)
    }

    /// Removes the index on `keys` (unique or not) and its entries; returns false when the
    /// collection has no such index. Dropping and adding an index rebuilds it, which mends
    /// one reported damaged (``DocumentError/corruptIndex(collection:index:reason:)``).
    ///
    /// ```swift
    /// try people.dropIndex("[last_name], [first_name] DESC")
    /// ```
    @discardableResult
    public func dropIndex(_ keys: String) throws -> Bool {
        try withState { state in
            let parsed = try QueryParser.parseSortKeys(keys, aliases: state.definition.aliases)
            var write = state.beginWrite()
            write.definition.indexes.removeAll { $0.keys == parsed }
            guard write.definition.indexes.count < state.definition.indexes.count else { return false }
            try state.commit(write)
            return true
        }
    }

    /// One index per list of keys: a unique index serves where a plain one is asked for, and a
    /// plain one asked to be unique is rebuilt unique in the same commit (or stays as it is
    /// when the documents break the rule).
    private func addIndex(_ keys: String, isUnique: Bool) throws {
        try withState { state in
            let parsed = try QueryParser.parseSortKeys(keys, aliases: state.definition.aliases)
            let existing = state.definition.indexes.first { $0.keys == parsed }
            if let existing, existing.isUnique || !isUnique { return }
            var write = state.beginWrite()
            write.definition.indexes.removeAll { $0.keys == parsed }
            try state.stageNewIndex(keys: parsed, isUnique: isUnique, into: &write)
            try state.commit(write)
        }
    }

    /// Declares fields that queries use. Every field can be queried in LarderDocuments; the
    /// declarations are kept with the collection (``queryableFields``) for tools and for
    /// NTJsonStore-style code.
    ///
    /// ```swift
    /// try people.addQueryableFields("[age], [address.city]")
    /// ```
    public func addQueryableFields(_ fields: String) throws {
        try withState { state in
            let parsed = try QueryParser.parseSortKeys(fields, aliases: state.definition.aliases)
            var write = state.beginWrite()
            for field in parsed.map(\.path.description) where !write.definition.queryableFields.contains(field) {
                write.definition.queryableFields.append(field)
            }
            try state.commit(write)
        }
    }

    /// The fields declared with `addQueryableFields(_:)`.
    ///
    /// ```swift
    /// print(try people.queryableFields)   // ["[age]", "[address.city]"]
    /// ```
    public var queryableFields: [String] {
        get throws { try withState { $0.definition.queryableFields } }
    }

    /// The collection's indexes, in the order they were added.
    ///
    /// ```swift
    /// for index in try people.indexes {
    ///     print(index.isUnique, index.keys.map(\.path))   // true ["[email]"], false ["[last_name]", "[first_name]"]
    /// }
    /// ```
    public var indexes: [DocumentIndex] {
        get throws { try withState { $0.definition.indexes.map(DocumentIndex.init) } }
    }

    /// Names that queries, orderBy and index definitions may use for longer text: a bare
    /// word that is an alias is replaced by its text (never inside strings or brackets).
    ///
    /// ```swift
    /// try people.setAliases(["country": "[address.country]"])
    /// let britons = try people.find(where: "country = ?", arguments: ["UK"])
    /// ```
    public var aliases: [String: String] {
        get throws { try withState { $0.definition.aliases } }
    }

    /// Replaces the aliases. Names must be identifiers and not keywords; each text must be
    /// valid query text.
    ///
    /// ```swift
    /// try people.setAliases(["adult": "[age] >= 18"])
    /// ```
    public func setAliases(_ aliases: [String: String]) throws {
        for (alias, text) in aliases {
            guard QueryTokenizer.isIdentifier(alias) else { throw DocumentError.invalidAlias(alias) }
            _ = try QueryTokenizer.tokenize(text, aliases: [:])
        }
        try withState { state in
            var write = state.beginWrite()
            write.definition.aliases = aliases
            try state.commit(write)
        }
    }

    /// The document whose values fill in fields a document lacks, for queries, orderBy and
    /// indexes (returned documents are as stored).
    ///
    /// ```swift
    /// try people.setDefaultJSON(["active": true])
    /// let active = try people.count(where: "[active] = TRUE")
    /// ```
    public var defaultJSON: JSON {
        get throws { try withState { $0.definition.defaults } }
    }

    /// Replaces the default document (an object) and rebuilds the indexes with it, atomically.
    ///
    /// ```swift
    /// try people.setDefaultJSON(["address": ["country": "unknown"]])
    /// ```
    public func setDefaultJSON(_ defaults: JSON) throws {
        guard case .object = defaults else { throw DocumentError.notAnObject(defaults) }
        guard !defaults.nestsDeeper(than: JSON.maximumNesting) else { throw DocumentError.nestedTooDeeply }
        try withState { state in
            var write = state.beginWrite()
            write.definition.defaults = defaults
            try state.stageRebuildOfIndexes(into: &write)
            try state.commit(write)
        }
    }

    /// How many decoded documents the collection keeps in memory (least recently used are
    /// dropped first): 1,000 to start with. Set it with ``setCacheSize(_:)``.
    ///
    /// ```swift
    /// print(try people.cacheSize)   // 1000
    /// ```
    public var cacheSize: Int {
        get throws { try withState { $0.cache.capacity } }
    }

    /// Sets how many decoded documents the collection keeps in memory; 0 turns the cache
    /// off. Not persisted.
    ///
    /// ```swift
    /// try people.setCacheSize(10_000)
    /// ```
    public func setCacheSize(_ size: Int) throws {
        try withState { $0.cache.capacity = max(0, size) }
    }

    // MARK: Writing

    /// Inserts a document (an object; a `"__rowid__"` in it is ignored) and returns its new
    /// rowID.
    ///
    /// ```swift
    /// let id = try people.insert(["name": "Ada", "tags": ["math"]])
    /// ```
    @discardableResult
    public func insert(_ document: JSON) throws -> RowID {
        try insertBatch([document])[0]
    }

    /// Inserts documents in one atomic commit: all of them, or (on any error, such as a
    /// unique violation) none.
    ///
    /// ```swift
    /// let ids = try people.insertBatch([["name": "Ada"], ["name": "Grace"]])
    /// ```
    @discardableResult
    public func insertBatch(_ documents: [JSON]) throws -> [RowID] {
        try withState { state in
            var write = state.beginWrite()
            let rowIDs = try documents.map { try state.stageInsert($0, into: &write) }
            try state.commit(write)
            return rowIDs.map { RowID(clamping: $0) }
        }
    }

    /// Replaces the stored document with the same `"__rowid__"`. Throws
    /// ``DocumentError/missingRowID`` or ``DocumentError/documentNotFound(collection:rowID:)``.
    ///
    /// ```swift
    /// var doc = try people.findOne(where: "[name] = ?", arguments: ["Ada"])!
    /// doc["age"] = 37
    /// try people.update(doc)
    /// ```
    public func update(_ document: JSON) throws {
        try withState { state in
            var write = state.beginWrite()
            try state.stageUpdate(document, into: &write)
            try state.commit(write)
        }
    }

    /// Replaces several documents (each with its `"__rowid__"`) in one atomic commit: all of
    /// them, or (on any error) none.
    ///
    /// ```swift
    /// let older = try people.find(where: "[age] > 60").map { doc -> JSON in
    ///     var doc = doc
    ///     doc["senior"] = true
    ///     return doc
    /// }
    /// try people.updateBatch(older)
    /// ```
    public func updateBatch(_ documents: [JSON]) throws {
        try withState { state in
            var write = state.beginWrite()
            for document in documents { try state.stageUpdate(document, into: &write) }
            try state.commit(write)
        }
    }

    /// Deletes the document with the same `"__rowid__"`; throws when there is none.
    ///
    /// ```swift
    /// try people.delete(doc)
    /// ```
    public func delete(_ document: JSON) throws {
        try withState { state in
            var write = state.beginWrite()
            try state.stageRemove(rowID: try CollectionEngine.rowID(of: document), into: &write)
            try state.commit(write)
        }
    }

    /// Deletes every document the query matches, atomically; returns how many.
    ///
    /// ```swift
    /// let deleted = try people.delete(where: "[age] < ?", arguments: [18])
    /// ```
    @discardableResult
    public func delete(where query: String, arguments: [JSON] = []) throws -> Int {
        try withState { state in
            let rows = try QueryRun(state: state, where: query, arguments: arguments, orderBy: nil, limit: nil, offset: nil).rows()
            var write = state.beginWrite()
            for row in rows { try state.stageRemove(rowID: row.rowID, into: &write) }
            try state.commit(write)
            return rows.count
        }
    }
}
