// DocumentQuery+Async: a prepared query's runs as async functions, on its collection's serial
// queue, in order with the collection's other operations.

extension DocumentQuery {
    /// Async form of ``find(arguments:)``.
    ///
    /// ```swift
    /// let uk = try await byCountry.find(arguments: ["UK"])
    /// ```
    public func find(arguments: [JSON] = []) async throws -> [JSON] {
        try await collection.enqueue { try self.find(arguments: arguments) as [JSON] }
    }

    /// Async form of ``findOne(arguments:)``.
    ///
    /// ```swift
    /// let oldest = try await byCountry.findOne(arguments: ["UK"])
    /// ```
    public func findOne(arguments: [JSON] = []) async throws -> JSON? {
        try await collection.enqueue { try self.findOne(arguments: arguments) as JSON? }
    }

    /// Async form of ``count(arguments:)``.
    ///
    /// ```swift
    /// let everyone = try await byCountry.count(arguments: ["UK"])
    /// ```
    public func count(arguments: [JSON] = []) async throws -> Int {
        try await collection.enqueue { try self.count(arguments: arguments) as Int }
    }

    /// Async form of ``explain(arguments:)``.
    ///
    /// ```swift
    /// print(try await byCountry.explain(arguments: ["UK"]))
    /// ```
    public func explain(arguments: [JSON] = []) async throws -> String {
        try await collection.enqueue { try self.explain(arguments: arguments) as String }
    }

    /// Async form of ``find(arguments:as:)``.
    ///
    /// ```swift
    /// let users = try await byCountry.find(arguments: ["UK"], as: User.self)
    /// ```
    public func find<T: Decodable & Sendable>(arguments: [JSON] = [], as type: T.Type) async throws -> [T] {
        let documents: [JSON] = try await find(arguments: arguments)
        return try documents.map { try $0.decode(as: T.self) }
    }
}
