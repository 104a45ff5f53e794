// DocumentQuery+Async: a prepared query's runs as async functions, on its collection's serial
// queue, in order with the collection's other operations.

extension DocumentQuery {
    /// Async form of ``find(args:)``.
    ///
    /// ```swift
    /// let uk = try await byCountry.find(args: ["UK"])
    /// ```
    public func find(args: [JSON] = []) async throws -> [JSON] {
        try await collection.enqueue { try self.find(args: args) as [JSON] }
    }

    /// Async form of ``findOne(args:)``.
    ///
    /// ```swift
    /// let oldest = try await byCountry.findOne(args: ["UK"])
    /// ```
    public func findOne(args: [JSON] = []) async throws -> JSON? {
        try await collection.enqueue { try self.findOne(args: args) as JSON? }
    }

    /// Async form of ``count(args:)``.
    ///
    /// ```swift
    /// let everyone = try await byCountry.count(args: ["UK"])
    /// ```
    public func count(args: [JSON] = []) async throws -> Int {
        try await collection.enqueue { try self.count(args: args) as Int }
    }

    /// Async form of ``explain(args:)``.
    ///
    /// ```swift
    /// print(try await byCountry.explain(args: ["UK"]))
    /// ```
    public func explain(args: [JSON] = []) async throws -> String {
        try await collection.enqueue { try self.explain(args: args) as String }
    }

    /// Async form of ``find(args:as:)``.
    ///
    /// ```swift
    /// let users = try await byCountry.find(args: ["UK"], as: User.self)
    /// ```
    public func find<T: Decodable & Sendable>(args: [JSON] = [], as type: T.Type) async throws -> [T] {
        let documents: [JSON] = try await find(args: args)
        return try documents.map { try $0.decode(as: T.self) }
    }
}
