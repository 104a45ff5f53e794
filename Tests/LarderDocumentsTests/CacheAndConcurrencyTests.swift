// The document cache (hits skip the file, LRU eviction, 0 turns it off, writes keep it
// right), the async API (in order per collection), many tasks at once, and Codable values.

import Foundation
import Larder
import LarderTestSupport
import Testing
@testable import LarderDocuments

@Suite struct CacheAndConcurrencyTests {
    /// Overwrites document `rowID`'s record with bytes that do not decode, behind the cache.
    private func damage(_ collection: DocumentCollection, rowID: Int64) throws {
        try collection.withState { try $0.replaceRawRecord(rowID, with: [DocumentRecord.format, 0, 0, 0, 0, 99]) }
    }

    @Test(arguments: BackendKind.allCases) func aCachedDocumentIsServedWithoutReadingTheFile(_ backend: BackendKind) throws {
        let temporary = try TemporaryStore(backend: backend)
        let c = try temporary.store.collection("people")
        try c.insertBatch([["name": "a"], ["name": "b"]])
        #expect(try c.cacheSize == 1_000)
        _ = try c.find(where: "[__rowid__] = 1")
        try damage(c, rowID: 1)
        try damage(c, rowID: 2)
        #expect(try c.find(where: "[__rowid__] = 1") == [["name": "a", "__rowid__": 1]])
        #expect(throws: DocumentError.corruptDocument(collection: "people", rowID: 2, reason: "checksum mismatch")) {
            try c.find(where: "[__rowid__] = 2")
        }
        try c.setCacheSize(0)
        #expect(throws: DocumentError.self) { try c.find(where: "[__rowid__] = 1") }
    }

    @Test(arguments: BackendKind.allCases) func theCacheEvictsTheLeastRecentlyUsedAndFollowsWrites(_ backend: BackendKind) throws {
        let temporary = try TemporaryStore(backend: backend)
        let c = try temporary.store.collection("people")
        try c.setCacheSize(2)
        try c.insertBatch([["n": 1], ["n": 2], ["n": 3], ["n": 4]])
        for rowID in [1, 2, 3, 2, 4] { _ = try c.find(where: "[__rowid__] = ?", arguments: [.int(Int64(rowID))]) }
        #expect(try c.withState { state in [1, 2, 3, 4].map { state.cache.contains($0) } } == [false, true, false, true])
        try c.update(["__rowid__": 2, "n": 20])
        #expect(try c.find(where: "[__rowid__] = 2") == [["n": 20, "__rowid__": 2]])
        try c.delete(["__rowid__": 4])
        #expect(try c.withState { $0.cache.contains(4) } == false)
        #expect(try c.find(where: "[__rowid__] = 4").isEmpty)
        try c.setCacheSize(1)
        #expect(try c.withState { $0.cache.count } == 1)
        var cache = DocumentCache(capacity: 3)
        for rowID in Int64(1) ... 10 { cache.store(.int(rowID), for: rowID) }
        #expect(cache.count == 3 && cache.document(for: 8) == 8 && cache.document(for: 7) == nil)
        cache.store(11, for: 11)
        #expect(cache.contains(8) && !cache.contains(9) && cache.contains(10) && cache.contains(11))
    }

    @Test(arguments: BackendKind.allCases) func asyncOperationsRunInOrderAndAgreeWithTheSyncOnes(_ backend: BackendKind) async throws {
        let temporary = try TemporaryStore(backend: backend)
        let c = try temporary.store.collection("people")
        try await c.addUniqueIndex("[email]")
        try await c.addIndex("[n]")
        try await c.addQueryableFields("[n]")
        try await c.setAliases(["number": "[n]"])
        try await c.setDefaultJSON(["n": 0])
        let id = try await c.insert(["email": "a", "n": 1])
        let ids = try await c.insertBatch([["email": "b", "n": 2], ["email": "c"]])
        #expect([id] + ids == [1, 2, 3])
        try await c.update(["__rowid__": 1, "email": "a", "n": 5])
        #expect(try await c.count(where: "number > 1") == 2)
        #expect(try await c.findOne(where: "[email] = 'c'")?["__rowid__"] == 3)
        #expect(try await c.find(orderBy: "number DESC").map { $0["n"] } == [5, 2, nil])
        #expect(try await c.explain(where: "number = 0") == "index [n]: [n] = 0 (1 range, exact)")
        do {
            try await c.insert(["email": "a"])
            Issue.record("a unique violation was not reported")
        } catch DocumentError.uniqueConstraint(let index, let value) {
            #expect(index == "[email]" && value == "a")
        }
        try await c.delete(["__rowid__": 2])
        #expect(try await c.delete(where: "[n] = 5") == 1)
        #expect(try await c.count() == 1)
    }

    @Test(arguments: BackendKind.allCases) func manyTasksWriteAndReadAtOnce(_ backend: BackendKind) async throws {
        let temporary = try TemporaryStore(backend: backend)
        let store = temporary.store
        let users = try store.collection("users"), logs = try store.collection("logs")
        try await users.addUniqueIndex("[email]")
        try await users.addIndex("[group]")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0 ..< 16 {
                group.addTask {
                    for i in 0 ..< 25 {
                        try await users.insert(["email": .string("\(task)-\(i)"), "group": .int(Int64(task % 4))])
                        try await logs.insert(["task": .int(Int64(task))])
                        _ = try await users.count(where: "[group] = ?", arguments: [.int(Int64(task % 4))])
                    }
                    // Everyone tries the same email: exactly one task wins it.
                    _ = try? await users.insert(["email": "shared"])
                }
            }
            try await group.waitForAll()
        }
        #expect(try await users.count() == 16 * 25 + 1)
        #expect(try await logs.count() == 16 * 25)
        #expect(try await users.count(where: "[group] = 3") == 4 * 25)
        #expect(Set(try await users.find().compactMap { $0["__rowid__"].intValue }).count == 401)
        #expect(try users.inconsistentIndexes().isEmpty)
    }

    @Test(arguments: BackendKind.allCases) func oneCollectionsOperationDoesNotHoldUpAnother(_ backend: BackendKind) throws {
        let temporary = try TemporaryStore(backend: backend)
        let a = try temporary.store.collection("a"), b = try temporary.store.collection("b")
        let done = DispatchSemaphore(value: 0)
        let finished = try a.withState { _ -> Bool in
            // While an operation on "a" is in progress, one on "b" runs to the end.
            Thread.detachNewThread {
                _ = try? b.insert(["x": 1])
                done.signal()
            }
            return done.wait(timeout: .now() + 10) == .success
        }
        #expect(finished)
        #expect(try b.count() == 1)
    }

    @Test(arguments: BackendKind.allCases) func codableValuesGoInAndComeOut(_ backend: BackendKind) async throws {
        struct User: Codable, Equatable, Sendable {
            var name: String
            var age: Int
            var tags: [String]
        }
        let temporary = try TemporaryStore(backend: backend)
        let c = try temporary.store.collection("users")
        try await c.insert(User(name: "Ada", age: 36, tags: ["math"]))
        try c.insertBatch([User(name: "Grace", age: 45, tags: []), User(name: "Alan", age: 41, tags: ["math", "logic"])])
        try await c.insert(User(name: "Edsger", age: 72, tags: []))
        #expect(try await c.find(where: "[tags] CONTAINS 'math'", orderBy: "[age] DESC", as: User.self).map(\.name) == ["Alan", "Ada"])
        #expect(try c.findOne(where: "[age] > 70", as: User.self) == User(name: "Edsger", age: 72, tags: []))
        #expect(try await c.find(where: "[name] LIKE 'G%'", as: User.self) == [User(name: "Grace", age: 45, tags: [])])
        #expect(throws: DocumentError.notAnObject(5)) { try c.insert(5 as Int) }
        // Literals are JSON documents, not Encodable dictionaries: a double stays a double.
        let id = try await c.insert(["score": 1.0])
        try await c.insertBatch([["score": 2.0], ["score": 3.5]])
        #expect(try await c.find(where: "[__rowid__] >= ?", arguments: [.rowID(id)]).map { $0["score"] } == [.double(1), .double(2), .double(3.5)])
    }
}
