// Full-text search on the store: queries, counts and rebuilds, and the two hooks the rest of the
// store calls: attaching a class's index at registration and adding index changes to a save.

extension Store {
    /// The objects of class `type` whose indexed text for `attribute` (see
    /// ``StoredObject/indexedText()``) matches `query`, as faults in ascending rowID order.
    ///
    /// The query uses Tokyo Dystopia's compound expressions: words separated by spaces must all
    /// match; `&&` is AND, `||` OR (it binds tighter), `!!` AND NOT. A bare word or a
    /// `"quoted phrase"` matches anywhere in the text; `[[word]]` matches a whole word,
    /// `[[word*]]` a word's start, `[[*word]]` its end, `[[*word*]]` any part of a word.
    /// Matching ignores case and Unicode normalization differences ("Café" finds "CAFÉ" and
    /// "cafe\u{301}"). The index follows saves: unsaved changes are not searched, and objects
    /// deleted and not yet saved are left out.
    ///
    /// ```swift
    /// let songs = try store.objects(of: Song.self, matchingText: "[[blue*]] || kind", forAttribute: "title")
    /// ```
    ///
    /// Throws ``SearchQueryError`` for a malformed query.
    @inlinable
    public func objects<T: StoredObject>(of type: T.Type, matchingText query: String,
                                         forAttribute attribute: String) throws -> [T] {
        try storedObjects(of: type, matchingText: query, forAttribute: attribute).map { unsafeDowncast($0, to: T.self) }
    }

    /// The number of objects ``objects(of:matchingText:forAttribute:)`` would return, without
    /// making any.
    ///
    /// ```swift
    /// let count = try store.countOfObjects(of: Song.self, matchingText: "[[*blue*]]", forAttribute: "title")
    /// ```
    public func countOfObjects(of type: StoredObject.Type, matchingText query: String,
                               forAttribute attribute: String) throws -> Int {
        let entry = try entry(for: type)
        return try matchingRowIDs(of: entry, query: query, attribute: attribute).count
    }

    /// Rebuilds the full-text index of class `type` from its objects, in one atomic save: for a
    /// class whose ``StoredObject/indexedText()`` changed (other attributes, another text), or
    /// whose objects were saved before it declared indexed text. The store must have no unsaved
    /// changes.
    ///
    /// ```swift
    /// try store.rebuildTextIndex(of: Song.self)
    /// ```
    public func rebuildTextIndex(of type: StoredObject.Type) throws {
        let entry = try entry(for: type)
        guard !backend.isReadOnly else { throw StoreError.readOnly }
        guard !hasUnsavedChanges else { throw StoreError.unsavedChanges }
        let index = entry.textIndex ?? TextIndex(className: entry.name, classID: entry.classID,
                                                 isRegistered: false, declaresText: true)
        var batch = WriteBatch()
        for table in TextIndex.tables(for: entry.name) where index.isRegistered {
            var keys: [[UInt8]] = []
            try backend.forEachRecord(in: table) { key, _ in
                keys.append(Array(key))
                return true
            }
            for key in keys { batch.removeValue(forKey: key, in: table) }
        }
        var rows: [TextIndexUpdate.Row] = []
        try forEachStoredObject(of: type) { rows.append(($0.rowID, $0)) }
        var update = TextIndexUpdate()
        try update.add(rows, of: index, savedNextRowID: entry.savedNextRowID, rowsAreNew: true,
                       vocabularies: [:], nextTokenID: 1, in: self, to: &batch)
        try applyToBackend(batch)
        update.adopt()
        entry.textIndex = index
    }

    // MARK: Internal

    /// ``objects(of:matchingText:forAttribute:)`` without generics.
    @usableFromInline
    internal func storedObjects(of type: StoredObject.Type, matchingText query: String,
                                forAttribute attribute: String) throws -> [StoredObject] {
        let entry = try entry(for: type)
        return try matchingRowIDs(of: entry, query: query, attribute: attribute).compactMap {
            reference(rowID: $0, entry: entry)
        }
    }

    /// The rowIDs matching `query`, ascending, without rows deleted (saved or not).
    internal func matchingRowIDs(of entry: ClassEntry, query text: String, attribute: String) throws -> [UInt64] {
        let query = try SearchQuery.parse(text)
        guard let index = entry.textIndex, index.isRegistered else { return [] }
        let vocabulary = try index.loadedVocabularies(in: self)[attribute]
        let evaluator = TextSearchEvaluator(index: index, attribute: attribute, vocabulary: vocabulary, store: self)
        return try evaluator.rowIDs(matching: query).filter { rowID in
            entry.savedRowMayExist(rowID) && entry.liveObject(rowID)?.pendingChange != .deleted
        }
    }

    /// Gives a newly registered class its index, when it declares indexed text or the store
    /// has an index for it.
    internal func attachTextIndex(to entry: ClassEntry) throws {
        let key = TextIndex.registryKey(for: entry.name)
        let isRegistered = try backend.withValue(forKey: key, in: Self.metadataTable) { $0 != nil }
        let declaresText = entry.type.declaresIndexedText()
        guard isRegistered || declaresText else { return }
        entry.textIndex = TextIndex(className: entry.name, classID: entry.classID, isRegistered: isRegistered,
                                    declaresText: declaresText)
    }

    /// Adds the index changes of the pending inserts, updates and deletes to a save's batch;
    /// nil (at no cost) when no registered class has an index.
    internal func addTextIndexChanges(to batch: inout WriteBatch) throws -> TextIndexUpdate? {
        guard entriesByType.values.contains(where: { $0.textIndex != nil }) else { return nil }
        var rowsByEntry: [ObjectIdentifier: [TextIndexUpdate.Row]] = [:]
        func note(_ object: StoredObject, _ change: PendingChange, deleted: Bool) {
            guard object.pendingChange == change, let entry = object.entry, entry.textIndex != nil else { return }
            rowsByEntry[ObjectIdentifier(entry), default: []].append((object.rowID, deleted ? nil : object))
        }
        for object in updatedObjects { note(object, .updated, deleted: false) }
        for object in insertedObjects { note(object, .inserted, deleted: false) }
        for object in deletedObjects { note(object, .deleted, deleted: true) }
        var update = TextIndexUpdate()
        for entry in entriesByType.values {
            guard let index = entry.textIndex, let rows = rowsByEntry[ObjectIdentifier(entry)] else { continue }
            let vocabularies = try index.loadedVocabularies(in: self)
            try update.add(rows, of: index, savedNextRowID: entry.savedNextRowID, vocabularies: vocabularies,
                           nextTokenID: index.nextTokenID, in: self, to: &batch)
        }
        return update
    }

    /// The normalized indexed text of an object, nil when it has none.
    internal static func normalizedText(of object: StoredObject) -> RowText? {
        var text: RowText = [:]
        for (attribute, value) in object.indexedText() where !value.isEmpty {
            text[attribute] = TextNormalizer.normalize(value)
        }
        return text.isEmpty ? nil : text
    }
}
