// DocumentCollection+Reading: find, findOne, count and explain; prepare for the same run
// many times (DocumentQuery).

import Larder

extension DocumentCollection {
    /// The document whose `"__rowid__"` is `id`, with it, or nil when there is none.
    ///
    /// ```swift
    /// let id = try people.insert(["name": "Ada"])
    /// let ada = try people.document(id: id)   // ["name": "Ada", "__rowid__": 1]
    /// ```
    public func document(id: RowID) throws -> JSON? {
        guard let rowID = Int64(exactly: id) else { return nil }
        return try withState { try $0.document(rowID) }
    }

    /// The documents the query matches (all when `where` is nil), each with its
    /// `"__rowid__"`, in `orderBy` order (`[field] DESC, [other]`; rowID order without one),
    /// after skipping `offset` and at most `limit`.
    ///
    /// ```swift
    /// let page = try people.find(where: "[age] >= ? AND [address.country] IN (?, ?)", arguments: [18, "UK", "FR"],
    ///                            orderBy: "[last_name], [first_name]", limit: 20, offset: 40)
    /// ```
    public func find(where query: String? = nil, arguments: [JSON] = [], orderBy: String? = nil,
                     limit: Int? = nil, offset: Int? = nil) throws -> [JSON] {
        try withState { state in
            try QueryRun(state: state, where: query, arguments: arguments, orderBy: orderBy, limit: limit, offset: offset).documents()
        }
    }

    /// The first document (lowest rowID) the query matches, or nil.
    ///
    /// ```swift
    /// let ada = try people.findOne(where: "[email] = ?", arguments: ["ada@example.com"])
    /// ```
    public func findOne(where query: String, arguments: [JSON] = []) throws -> JSON? {
        try find(where: query, arguments: arguments, limit: 1).first
    }

    /// How many documents the query matches (all when nil).
    ///
    /// ```swift
    /// let adults = try people.count(where: "[age] >= ?", arguments: [18])
    /// ```
    public func count(where query: String? = nil, arguments: [JSON] = []) throws -> Int {
        try withState { state in
            if query == nil && arguments.isEmpty { return try state.documentCount() }
            return try QueryRun(state: state, where: query, arguments: arguments, orderBy: nil, limit: nil, offset: nil).count()
        }
    }

    /// How the query would run: which index and which ranges, or "full scan"; and whether
    /// the order comes from the index or a sort (an index gives the order of an orderBy
    /// with a `limit` even without a WHERE).
    ///
    /// ```swift
    /// print(try people.explain(where: "[last_name] = ?", arguments: ["Lovelace"]))
    /// // index [last_name], [first_name]: [last_name] = "Lovelace" (1 range, exact)
    /// ```
    public func explain(where query: String? = nil, arguments: [JSON] = [], orderBy: String? = nil,
                        limit: Int? = nil) throws -> String {
        try withState { state in
            try QueryRun(state: state, where: query, arguments: arguments, orderBy: orderBy, limit: limit, offset: nil).explanation
        }
    }

    /// Parses a find or count once, to run it many times with different arguments, like
    /// SQLite's prepared statements. Throws `QueryError` for bad text, a negative limit or
    /// offset; each run checks its arguments.
    ///
    /// ```swift
    /// let page = try people.prepare(where: "[last_name] >= ?", orderBy: "[last_name], [first_name]", limit: 20)
    /// let first = try page.find(arguments: ["A"])
    /// let next = try page.find(arguments: ["Lovelace"])
    /// ```
    public func prepare(where query: String? = nil, orderBy: String? = nil, limit: Int? = nil,
                        offset: Int? = nil) throws -> DocumentQuery {
        try withState { state in
            try DocumentQuery(collection: self,
                              parsed: ParsedQuery(state: state, where: query, orderBy: orderBy, limit: limit, offset: offset)
                                  .prepared(in: state))
        }
    }
}
