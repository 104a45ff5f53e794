// DocumentCollection+Codable: insert and find typed values; they travel as JSON objects. The
// generic inserts are disfavored overloads, so that a literal such as ["name": "Ada"] is a
// JSON document and not an Encodable [String: String] sent through JSONEncoder.

import Larder

extension DocumentCollection {
    /// Inserts an `Encodable` value (it must encode as an object); returns its rowID.
    ///
    /// ```swift
    /// struct User: Codable { var name: String; var age: Int }
    /// let id = try users.insert(User(name: "Ada", age: 36))
    /// ```
    @discardableResult @_disfavoredOverload
    public func insert(_ value: some Encodable) throws -> RowID {
        try insert(JSON(encoding: value))
    }

    /// Inserts `Encodable` values in one atomic commit.
    ///
    /// ```swift
    /// let ids = try users.insertBatch([User(name: "Ada", age: 36), User(name: "Grace", age: 45)])
    /// ```
    @discardableResult @_disfavoredOverload
    public func insertBatch<Value: Encodable>(_ values: [Value]) throws -> [RowID] {
        try insertBatch(values.map { try JSON(encoding: $0) })
    }

    /// The matching documents decoded as `T` (a `__rowid__` property receives the rowID).
    ///
    /// ```swift
    /// let adults = try users.find(where: "[age] >= ?", arguments: [18], as: User.self)
    /// ```
    public func find<T: Decodable>(where query: String? = nil, arguments: [JSON] = [], orderBy: String? = nil,
                                   limit: Int? = nil, offset: Int? = nil, as type: T.Type) throws -> [T] {
        try find(where: query, arguments: arguments, orderBy: orderBy, limit: limit, offset: offset).map { try $0.decode(as: T.self) }
    }

    /// The document whose `"__rowid__"` is `id` decoded as `T`, or nil when there is none.
    ///
    /// ```swift
    /// let ada = try users.document(id: id, as: User.self)
    /// ```
    public func document<T: Decodable>(id: RowID, as type: T.Type) throws -> T? {
        try document(id: id).map { try $0.decode(as: T.self) }
    }

    /// The first matching document decoded as `T`, or nil.
    ///
    /// ```swift
    /// let ada = try users.findOne(where: "[name] = ?", arguments: ["Ada"], as: User.self)
    /// ```
    public func findOne<T: Decodable>(where query: String, arguments: [JSON] = [], as type: T.Type) throws -> T? {
        try findOne(where: query, arguments: arguments).map { try $0.decode(as: T.self) }
    }

    /// Async form of ``insert(_:)-(Encodable)``.
    ///
    /// ```swift
    /// let id = try await users.insert(User(name: "Ada", age: 36))
    /// ```
    @discardableResult @_disfavoredOverload
    public func insert(_ value: some Encodable & Sendable) async throws -> RowID {
        let document = try JSON(encoding: value)
        return try await insert(document)
    }

    /// Async form of ``find(where:arguments:orderBy:limit:offset:as:)``.
    ///
    /// ```swift
    /// let adults = try await users.find(where: "[age] >= ?", arguments: [18], as: User.self)
    /// ```
    public func find<T: Decodable & Sendable>(where query: String? = nil, arguments: [JSON] = [], orderBy: String? = nil,
                                              limit: Int? = nil, offset: Int? = nil, as type: T.Type) async throws -> [T] {
        let documents: [JSON] = try await find(where: query, arguments: arguments, orderBy: orderBy, limit: limit, offset: offset)
        return try documents.map { try $0.decode(as: T.self) }
    }
}
