// Full-text search of a class by its storage name, registered or not: the rowIDs whose indexed
// text matches a query, read from the index alone (no object is made). For tools that search a
// store they have no Swift classes for (the `larder` command's `search`).

extension Store {
    /// The rowIDs of the class named `name` whose indexed text for `attribute` matches `query`
    /// (the syntax of ``objects(of:matchingText:forAttribute:)``), ascending, without deleted
    /// rows; nil when the store keeps no full-text index of the class. The class need not be
    /// registered. Throws ``SearchQueryError`` for a malformed query,
    /// ``StoreError/classNotRegistered(_:)`` when the store has no such class, and
    /// ``StoreError/corruptTextIndex(class:reason:)`` for a damaged index.
    ///
    /// ```swift
    /// let rowIDs = try store.rowIDs(ofClassNamed: "Track", matchingText: "[[blue*]]", forAttribute: "title")
    /// ```
    package func rowIDs(ofClassNamed name: String, matchingText query: String, forAttribute attribute: String) throws -> [UInt64]? {
        try checkOpen()
        let parsed = try SearchQuery.parse(query)
        guard let index = try storedTextIndex(ofClassNamed: name), let record = records[name] else { return nil }
        let vocabulary = try index.loadedVocabularies(in: self)[attribute]
        let evaluator = TextSearchEvaluator(index: index, attribute: attribute, vocabulary: vocabulary, store: self)
        return try evaluator.rowIDs(matching: parsed).filter { rowID in
            rowID < record.nextRowID && !record.deletedRowIDs.contains(rowID)
        }
    }

    /// The attributes the full-text index of the class named `name` holds words of, sorted; nil
    /// when the store keeps no index of the class.
    ///
    /// ```swift
    /// print(try store.textAttributes(ofClassNamed: "Track") ?? [])   // ["artist", "title"]
    /// ```
    package func textAttributes(ofClassNamed name: String) throws -> [String]? {
        try checkOpen()
        guard let index = try storedTextIndex(ofClassNamed: name) else { return nil }
        return try index.loadedVocabularies(in: self).keys.sorted()
    }

    /// The class's full-text index: the registered class's, or one made for reading when the
    /// class is not registered; nil when the store keeps none.
    private func storedTextIndex(ofClassNamed name: String) throws -> TextIndex? {
        guard let record = records[name] else { throw StoreError.classNotRegistered(name) }
        if let index = entriesByName[name]?.textIndex { return index.isRegistered ? index : nil }
        let isRegistered = try backend.withValue(forKey: TextIndex.registryKey(for: name), in: Self.metadataTable) { $0 != nil }
        guard isRegistered else { return nil }
        return TextIndex(className: name, classID: record.classID, isRegistered: true, declaresText: false)
    }
}
