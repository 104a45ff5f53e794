// Spellings the README showed before the API consistency pass (`args:` became `arguments:`,
// `remove` became `delete`), kept as deprecated forwards so that code written from it still
// builds, with a fix-it to the new name.

extension DocumentCollection {
    /// Deprecated: `find(where:arguments:orderBy:limit:offset:)`.
    @available(*, deprecated, renamed: "find(where:arguments:orderBy:limit:offset:)")
    public func find(where query: String? = nil, args: [JSON], orderBy: String? = nil,
                     limit: Int? = nil, offset: Int? = nil) throws -> [JSON] {
        try find(where: query, arguments: args, orderBy: orderBy, limit: limit, offset: offset)
    }

    /// Deprecated: `findOne(where:arguments:)`.
    @available(*, deprecated, renamed: "findOne(where:arguments:)")
    public func findOne(where query: String, args: [JSON]) throws -> JSON? {
        try findOne(where: query, arguments: args)
    }

    /// Deprecated: `count(where:arguments:)`.
    @available(*, deprecated, renamed: "count(where:arguments:)")
    public func count(where query: String? = nil, args: [JSON]) throws -> Int {
        try count(where: query, arguments: args)
    }

    /// Deprecated: `explain(where:arguments:orderBy:limit:)`.
    @available(*, deprecated, renamed: "explain(where:arguments:orderBy:limit:)")
    public func explain(where query: String? = nil, args: [JSON], orderBy: String? = nil, limit: Int? = nil) throws -> String {
        try explain(where: query, arguments: args, orderBy: orderBy, limit: limit)
    }

    /// Deprecated: `delete(where:arguments:)`.
    @available(*, deprecated, renamed: "delete(where:arguments:)")
    @discardableResult
    public func remove(where query: String, args: [JSON] = []) throws -> Int {
        try delete(where: query, arguments: args)
    }

    /// Deprecated: the async `find(where:arguments:orderBy:limit:offset:)`.
    @available(*, deprecated, renamed: "find(where:arguments:orderBy:limit:offset:)")
    public func find(where query: String? = nil, args: [JSON], orderBy: String? = nil,
                     limit: Int? = nil, offset: Int? = nil) async throws -> [JSON] {
        try await find(where: query, arguments: args, orderBy: orderBy, limit: limit, offset: offset)
    }
}

extension DocumentQuery {
    /// Deprecated: `find(arguments:)`.
    @available(*, deprecated, renamed: "find(arguments:)")
    public func find(args: [JSON]) throws -> [JSON] {
        try find(arguments: args)
    }

    /// Deprecated: `count(arguments:)`.
    @available(*, deprecated, renamed: "count(arguments:)")
    public func count(args: [JSON]) throws -> Int {
        try count(arguments: args)
    }
}
