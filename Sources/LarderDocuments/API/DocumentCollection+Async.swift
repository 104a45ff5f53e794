// DocumentCollection+Async: every operation as an async function. A collection runs them one
// at a time on its own serial queue, in the order they were issued; different collections'
// queues run side by side (only their Tokyo Cabinet calls take turns).

import Dispatch
import Larder

extension DocumentCollection {
    /// Runs `work` on the collection's queue, after everything issued before it.
    func enqueue<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Swift.Result { try work() }) }
        }
    }

    /// Async form of ``addIndex(_:)``.
    ///
    /// ```swift
    /// try await people.addIndex("[age]")
    /// ```
    public func addIndex(_ keys: String) async throws {
        try await enqueue { try self.addIndex(keys) as Void }
    }

    /// Async form of ``dropIndex(_:)``.
    ///
    /// ```swift
    /// try await people.dropIndex("[age]")
    /// ```
    @discardableResult
    public func dropIndex(_ keys: String) async throws -> Bool {
        try await enqueue { try self.dropIndex(keys) }
    }

    /// Async form of ``addUniqueIndex(_:)``.
    ///
    /// ```swift
    /// try await people.addUniqueIndex("[email]")
    /// ```
    public func addUniqueIndex(_ keys: String) async throws {
        try await enqueue { try self.addUniqueIndex(keys) as Void }
    }

    /// Async form of ``addQueryableFields(_:)``.
    ///
    /// ```swift
    /// try await people.addQueryableFields("[age]")
    /// ```
    public func addQueryableFields(_ fields: String) async throws {
        try await enqueue { try self.addQueryableFields(fields) as Void }
    }

    /// Async form of ``setAliases(_:)``.
    ///
    /// ```swift
    /// try await people.setAliases(["country": "[address.country]"])
    /// ```
    public func setAliases(_ aliases: [String: String]) async throws {
        try await enqueue { try self.setAliases(aliases) as Void }
    }

    /// Async form of ``setDefaultJSON(_:)``.
    ///
    /// ```swift
    /// try await people.setDefaultJSON(["active": true])
    /// ```
    public func setDefaultJSON(_ defaults: JSON) async throws {
        try await enqueue { try self.setDefaultJSON(defaults) as Void }
    }

    /// Async form of ``insert(_:)-(JSON)``.
    ///
    /// ```swift
    /// let id = try await people.insert(["name": "Ada"])
    /// ```
    @discardableResult
    public func insert(_ document: JSON) async throws -> RowID {
        try await enqueue { try self.insert(document) as RowID }
    }

    /// Async form of ``insertBatch(_:)-([JSON])``.
    ///
    /// ```swift
    /// let ids = try await people.insertBatch([["name": "Ada"], ["name": "Grace"]])
    /// ```
    @discardableResult
    public func insertBatch(_ documents: [JSON]) async throws -> [RowID] {
        try await enqueue { try self.insertBatch(documents) as [RowID] }
    }

    /// Async form of ``update(_:)``.
    ///
    /// ```swift
    /// try await people.update(doc)
    /// ```
    public func update(_ document: JSON) async throws {
        try await enqueue { try self.update(document) as Void }
    }

    /// Async form of ``updateBatch(_:)``.
    ///
    /// ```swift
    /// try await people.updateBatch(changed)
    /// ```
    public func updateBatch(_ documents: [JSON]) async throws {
        try await enqueue { try self.updateBatch(documents) as Void }
    }

    /// Async form of ``delete(_:)``.
    ///
    /// ```swift
    /// try await people.delete(doc)
    /// ```
    public func delete(_ document: JSON) async throws {
        try await enqueue { try self.delete(document) as Void }
    }

    /// Async form of ``delete(where:arguments:)``.
    ///
    /// ```swift
    /// let deleted = try await people.delete(where: "[age] < ?", arguments: [18])
    /// ```
    @discardableResult
    public func delete(where query: String, arguments: [JSON] = []) async throws -> Int {
        try await enqueue { try self.delete(where: query, arguments: arguments) as Int }
    }

    /// Async form of ``document(id:)``.
    ///
    /// ```swift
    /// let ada = try await people.document(id: id)
    /// ```
    public func document(id: RowID) async throws -> JSON? {
        try await enqueue { try self.document(id: id) as JSON? }
    }

    /// Async form of ``find(where:arguments:orderBy:limit:offset:)``.
    ///
    /// ```swift
    /// let adults = try await people.find(where: "[age] >= ?", arguments: [18])
    /// ```
    public func find(where query: String? = nil, arguments: [JSON] = [], orderBy: String? = nil,
                     limit: Int? = nil, offset: Int? = nil) async throws -> [JSON] {
        try await enqueue { try self.find(where: query, arguments: arguments, orderBy: orderBy, limit: limit, offset: offset) as [JSON] }
    }

    /// Async form of ``findOne(where:arguments:)``.
    ///
    /// ```swift
    /// let ada = try await people.findOne(where: "[name] = ?", arguments: ["Ada"])
    /// ```
    public func findOne(where query: String, arguments: [JSON] = []) async throws -> JSON? {
        try await enqueue { try self.findOne(where: query, arguments: arguments) as JSON? }
    }

    /// Async form of ``count(where:arguments:)``.
    ///
    /// ```swift
    /// let total = try await people.count()
    /// ```
    public func count(where query: String? = nil, arguments: [JSON] = []) async throws -> Int {
        try await enqueue { try self.count(where: query, arguments: arguments) as Int }
    }

    /// Async form of ``explain(where:arguments:orderBy:limit:)``.
    ///
    /// ```swift
    /// print(try await people.explain(where: "[age] > ?", arguments: [30]))
    /// ```
    public func explain(where query: String? = nil, arguments: [JSON] = [], orderBy: String? = nil,
                        limit: Int? = nil) async throws -> String {
        try await enqueue { try self.explain(where: query, arguments: arguments, orderBy: orderBy, limit: limit) as String }
    }

    /// Async form of ``prepare(where:orderBy:limit:offset:)``.
    ///
    /// ```swift
    /// let page = try await people.prepare(where: "[age] > ?", orderBy: "[age]", limit: 20)
    /// ```
    public func prepare(where query: String? = nil, orderBy: String? = nil, limit: Int? = nil,
                        offset: Int? = nil) async throws -> DocumentQuery {
        try await enqueue { try self.prepare(where: query, orderBy: orderBy, limit: limit, offset: offset) as DocumentQuery }
    }
}
