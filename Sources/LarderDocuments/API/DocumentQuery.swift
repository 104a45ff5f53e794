// DocumentQuery: a find or count prepared once and run many times with different arguments,
// as SQLite's prepared statements: the texts are tokenized and parsed when it is made, and
// planned too when the plan cannot depend on the arguments (PreparedPlan); each run binds its
// arguments, plans with the collection's current indexes if it must, and executes.

/// A query of one collection, parsed once; made by
/// `DocumentCollection.prepare(where:orderBy:limit:offset:)`. Runs go through the
/// collection, in order with its other operations. If the collection's aliases change, the
/// next run parses the texts again with the new ones.
///
/// ```swift
/// let byCountry = try people.prepare(where: "[address.country] = ?", orderBy: "[age] DESC", limit: 10)
/// for country in ["UK", "FR"] {
///     print(country, try byCountry.find(arguments: [.string(country)]).count, try byCountry.count(arguments: [.string(country)]))
/// }
/// ```
public final class DocumentQuery: Sendable {
    /// The collection the query reads.
    ///
    /// ```swift
    /// print(byCountry.collection.name)   // people
    /// ```
    public let collection: DocumentCollection
    private let parsed: ParsedQuery

    init(collection: DocumentCollection, parsed: ParsedQuery) {
        self.collection = collection
        self.parsed = parsed
    }

    /// The matching documents, each with its `"__rowid__"`, in the query's order, after its
    /// offset and at most its limit.
    ///
    /// ```swift
    /// let uk = try byCountry.find(arguments: ["UK"])
    /// ```
    public func find(arguments: [JSON] = []) throws -> [JSON] {
        try run(arguments) { try $0.documents() }
    }

    /// The first document the query would find, or nil.
    ///
    /// ```swift
    /// let oldest = try byCountry.findOne(arguments: ["UK"])
    /// ```
    public func findOne(arguments: [JSON] = []) throws -> JSON? {
        try run(arguments, adjusting: { $0.limit = min($0.limit ?? 1, 1) }) { try $0.firstDocument() }
    }

    /// How many documents match; the limit and offset apply to finds only.
    ///
    /// ```swift
    /// let everyone = try byCountry.count(arguments: ["UK"])
    /// ```
    public func count(arguments: [JSON] = []) throws -> Int {
        try run(arguments, adjusting: { $0.limit = nil; $0.offset = 0 }) { try $0.count() }
    }

    /// How a run with `arguments` would go: which index and ranges, or "full scan"; see
    /// `DocumentCollection.explain(where:arguments:orderBy:limit:)`.
    ///
    /// ```swift
    /// print(try byCountry.explain(arguments: ["UK"]))
    /// ```
    public func explain(arguments: [JSON] = []) throws -> String {
        try run(arguments) { $0.explanation }
    }

    /// The matching documents decoded as `T` (a `__rowid__` property receives the rowID).
    ///
    /// ```swift
    /// let users = try byCountry.find(arguments: ["UK"], as: User.self)
    /// ```
    public func find<T: Decodable>(arguments: [JSON] = [], as type: T.Type) throws -> [T] {
        try find(arguments: arguments).map { try $0.decode(as: T.self) }
    }

    /// Binds `arguments` to the parsed query (after `adjusting` it), plans, and runs `body`.
    private func run<Result>(_ arguments: [JSON], adjusting adjust: (inout ParsedQuery) -> Void = { _ in },
                             _ body: (QueryRun) throws -> Result) throws -> Result {
        try collection.withState { state in
            var query = try parsed.current(in: state)
            adjust(&query)
            return try body(QueryRun(state: state, query: query, arguments: arguments))
        }
    }
}
