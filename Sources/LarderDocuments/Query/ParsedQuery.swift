// ParsedQuery: the texts of a find or count parsed with a collection's aliases, its limit and
// offset checked: what a prepared DocumentQuery keeps, and what each run binds arguments to.

/// A query's WHERE clause, orderBy, limit and offset, parsed and checked.
struct ParsedQuery: Sendable {
    /// The WHERE clause; nil matches every document.
    let template: QueryTemplate?
    let orderBy: [SortKey]
    /// The orderBy text the keys were parsed from.
    let orderByText: String?
    var limit: Int?
    var offset: Int
    /// The aliases the texts were expanded with.
    let aliases: [String: String]
    /// The plan chosen when the query was prepared, if it holds for any arguments.
    private(set) var preparedPlan: PreparedPlan?

    /// Throws `QueryError` for bad text, a negative limit or offset.
    init(state: CollectionEngine, where query: String?, orderBy: String?, limit: Int?, offset: Int?) throws {
        template = try query.map { try state.template(of: $0) }
        self.orderBy = try orderBy.map { try state.sortKeys(of: $0) } ?? []
        orderByText = orderBy
        if let limit, limit < 0 { throw QueryError(query: query ?? "", position: 0, message: "limit must not be negative") }
        if let offset, offset < 0 { throw QueryError(query: query ?? "", position: 0, message: "offset must not be negative") }
        self.limit = limit
        self.offset = offset ?? 0
        aliases = state.definition.aliases
    }

    /// This query with its plan chosen now, among `state`'s indexes, for runs to bind their
    /// arguments to (when its plan does not depend on them: PreparedPlan).
    func prepared(in state: CollectionEngine) -> ParsedQuery {
        var query = self
        query.preparedPlan = PreparedPlan(template: template, orderBy: orderBy, limit: limit, indexes: state.definition.indexes)
        return query
    }

    /// This query as `state`'s aliases read it now: itself, or its texts parsed again when
    /// the aliases changed since (without a prepared plan: each run of it plans).
    func current(in state: CollectionEngine) throws -> ParsedQuery {
        guard aliases != state.definition.aliases else { return self }
        return try ParsedQuery(state: state, where: template?.text, orderBy: orderByText, limit: limit, offset: offset)
    }

    /// The plan for a run with `arguments`, when the plan prepared still holds for them among
    /// `state`'s indexes; else nil, and the planner decides.
    func plan(binding arguments: [JSON], in state: CollectionEngine) -> QueryPlan? {
        guard let preparedPlan, preparedPlan.indexes == state.definition.indexes else { return nil }
        return preparedPlan.plan(binding: arguments)
    }

    /// The WHERE clause with `arguments` bound (nil without one); `QueryError` when their
    /// number is not the placeholders'.
    func expression(binding arguments: [JSON]) throws -> QueryExpression? {
        guard let template else {
            guard arguments.isEmpty else {
                throw QueryError(query: "", position: 0, message: "\(arguments.count) arguments given without a query")
            }
            return nil
        }
        return try template.bound(to: arguments)
    }
}
