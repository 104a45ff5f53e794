// QueryRun: one query from text to results, tying the stages together: tokenize and parse
// (with the collection's aliases), plan with its indexes, execute against its storage.

/// A parsed and planned query over one collection, ready to execute.
struct QueryRun {
    let state: CollectionState
    let expression: QueryExpression?
    let orderBy: [SortKey]
    let limit: Int?
    let offset: Int
    let plan: QueryPlan

    /// Parses and plans; throws `QueryError` for bad text, arguments, limit or offset.
    init(state: CollectionState, where query: String?, args: [JSON], orderBy: String?, limit: Int?, offset: Int?) throws {
        guard !args.contains(where: { $0.nestsDeeper(than: JSON.maximumNesting) }) else { throw DocumentError.nestedTooDeeply }
        if let query {
            expression = try QueryParser.parseWhere(query, tokens: state.tokens(of: query), arguments: args)
        } else {
            guard args.isEmpty else {
                throw QueryError(query: "", position: 0, message: "\(args.count) arguments given without a query")
            }
            expression = nil
        }
        self.orderBy = try orderBy.map { try QueryParser.parseSortKeys($0, tokens: state.tokens(of: $0)) } ?? []
        if let limit, limit < 0 { throw QueryError(query: query ?? "", position: 0, message: "limit must not be negative") }
        if let offset, offset < 0 { throw QueryError(query: query ?? "", position: 0, message: "offset must not be negative") }
        self.state = state
        self.limit = limit
        self.offset = offset ?? 0
        plan = QueryPlanner(indexes: state.definition.indexes).plan(where: expression, orderBy: self.orderBy, limit: limit)
    }

    var executor: QueryExecutor {
        QueryExecutor(source: state, expression: expression, orderBy: orderBy, limit: limit, offset: offset)
    }

    func rows() throws -> [(rowID: Int64, document: JSON)] {
        try executor.rows(plan)
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
