// DocumentCollection+Codable: insert and find typed values; they travel as JSON objects. The
// generic inserts are disfavored overloads, so that a literal such as ["name": "Ada"] is a
// JSON document and not an Encodable [String: String] sent through JSONEncoder.

extension DocumentCollection {
    /// Inserts an `Encodable` value (it must encode as an object); returns its rowID.
    ///
    /// ```swift
    /// struct User: Codable { var name: String; var age: Int }
    /// let id = try users.insert(User(name: "Ada", age: 36))
    /// ```
    @discardableResult @_disfavoredOverload
    public func insert(_ value: some Encodable) throws -> Int64 {
        try insert(JSON(encoding: value))
    }

    /// Inserts `Encodable` values in one atomic commit.
    ///
    /// ```swift
    /// let ids = try users.insertBatch([User(name: "Ada", age: 36), User(name: "Grace", age: 45)])
    /// ```
    @discardableResult @_disfavoredOverload
    public func insertBatch<Value: Encodable>(_ values: [Value]) throws -> [Int64] {
        try insertBatch(values.map { try JSON(encoding: $0) })
    }

    /// The matching documents decoded as `T` (a `__rowid__` property receives the rowID).
    ///
    /// ```swift
    /// let adults = try users.find(where: "[age] >= ?", args: [18], as: User.self)
    /// ```
    public func find<T: Decodable>(where query: String? = nil, args: [JSON] = [], orderBy: String? = nil,
                                   limit: Int? = nil, offset: Int? = nil, as type: T.Type) throws -> [T] {
        try find(where: query, args: args, orderBy: orderBy, limit: limit, offset: offset).map { try $0.decode(as: T.self) }
    }

    /// The first matching document decoded as `T`, or nil.
    ///
    /// ```swift
    /// let ada = try users.findOne(where: "[name] = ?", args: ["Ada"], as: User.self)
    /// ```
    public func findOne<T: Decodable>(where query: String, args: [JSON] = [], as type: T.Type) throws -> T? {
        try findOne(where: query, args: args).map { try $0.decode(as: T.self) }
    }

    /// Async form of ``insert(_:)-(Encodable)``.
    ///
    /// ```swift
    /// let id = try await users.insert(User(name: "Ada", age: 36))
    /// ```
    @discardableResult @_disfavoredOverload
    public func insert(_ value: some Encodable & Sendable) async throws -> Int64 {
        let document = try JSON(encoding: value)
        return try await insert(document)
    }

    /// Async form of ``find(where:args:orderBy:limit:offset:as:)``.
    ///
    /// ```swift
    /// let adults = try await users.find(where: "[age] >= ?", args: [18], as: User.self)
    /// ```
    public func find<T: Decodable & Sendable>(where query: String? = nil, args: [JSON] = [], orderBy: String? = nil,
                                              limit: Int? = nil, offset: Int? = nil, as type: T.Type) async throws -> [T] {
        let documents: [JSON] = try await find(where: query, args: args, orderBy: orderBy, limit: limit, offset: offset)
        return try documents.map { try $0.decode(as: T.self) }
    }
}
