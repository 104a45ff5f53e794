// QueryRun: one query from text to results, tying the stages together: tokenize and parse
// (with the collection's aliases; ParsedQuery), bind the arguments, plan with the indexes,
// execute against the collection's storage.

/// A parsed and planned query over one collection, ready to execute.
struct QueryRun {
    let state: CollectionEngine
    let expression: QueryExpression?
    let orderBy: [SortKey]
    let limit: Int?
    let offset: Int
    let plan: QueryPlan

    /// Parses and plans; throws `QueryError` for bad text, arguments, limit or offset.
    init(state: CollectionEngine, where query: String?, arguments: [JSON], orderBy: String?, limit: Int?, offset: Int?) throws {
        try self.init(state: state, query: ParsedQuery(state: state, where: query, orderBy: orderBy, limit: limit, offset: offset),
                      arguments: arguments)
    }

    /// Binds `arguments` to a query parsed before, and plans; throws `QueryError` for wrong arguments.
    init(state: CollectionEngine, query: ParsedQuery, arguments: [JSON]) throws {
        guard !arguments.contains(where: { $0.nestsDeeper(than: JSON.maximumNesting) }) else { throw DocumentError.nestedTooDeeply }
        expression = try query.expression(binding: arguments)
        orderBy = query.orderBy
        limit = query.limit
        offset = query.offset
        self.state = state
        plan = query.plan(binding: arguments, in: state)
            ?? QueryPlanner(indexes: state.definition.indexes).plan(where: expression, orderBy: orderBy, limit: limit)
    }

    var executor: QueryExecutor {
        QueryExecutor(source: state, expression: expression, orderBy: orderBy, limit: limit, offset: offset)
    }

    func rows() throws -> [(rowID: Int64, document: JSON)] {
        try executor.rows(plan)
    }

    /// The documents of `rows()` alone, each with its "__rowid__".
    func documents() throws -> [JSON] {
        var rows = try rows()
        // Moved out rather than copied: a copy would touch every document (written by
        // decoding threads, so in other cores' caches) to retain it, then release it.
        var documents = [JSON](repeating: .null, count: rows.count)
        for position in rows.indices { swap(&documents[position], &rows[position].document) }
        return documents
    }

    /// The first document found (a find of one): moved out of its row, as ``documents()``
    /// moves them, with no array made for it.
    func firstDocument() throws -> JSON? {
        var rows = try rows()
        guard !rows.isEmpty else { return nil }
        var document = JSON.null
        swap(&document, &rows[0].document)
        return document
    }

    func count() throws -> Int {
        try executor.count(plan)
    }

    /// The plan in words: the index and its ranges, or "full scan"; and how the order comes.
    var explanation: String {
        var text: String
        switch plan {
        case .fullScan: text = "full scan"
        case let .rowIDs(rowIDs):
            text = "rowid lookup: " + (rowIDs.isEmpty ? "none" : rowIDs.map(String.init).joined(separator: ", "))
        case let .index(scan):
            text = scan.description + " (\(scan.ranges.count) range\(scan.ranges.count == 1 ? "" : "s")"
                + (scan.reverse ? ", backwards" : "") + (scan.isExact ? ", exact" : "") + ")"
        }
        if !orderBy.isEmpty { text += plan.isOrdered ? "; order from the index" : "; then sort" }
        return text
    }
}
