// The central examples of the LarderDocuments DocC articles (QueryLanguage, IndexesAndExplain,
// ConcurrencyAndAsync, Codable), run with what they say they give, so that the articles cannot
// drift from the API.

import Foundation
import Larder
import LarderTestSupport
import Testing
@testable import LarderDocuments

@Suite struct DocCExampleTests {
    private func people(_ temporary: TemporaryStore) throws -> DocumentCollection {
        let people = try temporary.store.collection("people")
        try people.insertBatch([
            ["name": "Ada", "last_name": "Lovelace", "first_name": "Ada", "age": 36,
             "address": ["country": "UK"], "tags": ["math", "poetry"]],
            ["name": "Grace", "last_name": "Hopper", "first_name": "Grace", "age": 45,
             "address": ["country": "US"], "tags": ["navy"]],
            ["name": "Kid", "last_name": "Lovelace", "first_name": "Byron", "age": 12, "address": ["country": "FR"]],
        ])
        return people
    }

    @Test(arguments: BackendKind.allCases) func theQueryLanguageArticle(_ backend: BackendKind) throws {
        let temporary = try TemporaryStore(backend: backend)
        let people = try people(temporary)
        let adults = try people.find(where: "[age] >= ? AND [address.country] IN (?, ?)", arguments: [18, "UK", "FR"],
                                     orderBy: "[last_name], [first_name] DESC", limit: 20, offset: 0)
        #expect(adults.map { $0["name"] } == ["Ada"])
        #expect(try people.count(where: "[tags] CONTAINS ?", arguments: ["poetry"]) == 1)
        #expect(try people.find(where: "[__rowid__] >= ?", arguments: [.rowID(2)]).count == 2)
        // Nulls: ordering comparisons are false, = treats a missing field as null.
        #expect(try people.count(where: "[tags] = NULL") == 1)
        #expect(try people.count(where: "[nickname] > 'a'") == 0)
        #expect(try people.count(where: "[name] LIKE 'a%'") == 1)
        #expect(try people.count(where: "[name] = 'it''s'") == 0)
        try people.setDefaultJSON(["active": true])
        #expect(try people.count(where: "[active] = TRUE") == 3)
        #expect(try people.delete(where: "[age] < ?", arguments: [18]) == 1)
        #expect(throws: QueryError.self) { _ = try people.find(where: "[age] >> ?", arguments: [30]) }
        let byName = try people.prepare(where: "[last_name] >= ?", orderBy: "[last_name]", limit: 20)
        #expect(try byName.find(arguments: ["L"]).map { $0["name"] } == ["Ada"])
        #expect(try byName.count(arguments: ["A"]) == 2)
    }

    @Test(arguments: BackendKind.allCases) func theIndexesAndExplainArticle(_ backend: BackendKind) throws {
        let temporary = try TemporaryStore(backend: backend)
        let people = try people(temporary)
        try people.addIndex("[last_name], [first_name] DESC")
        try people.addUniqueIndex("[name]")
        try people.addIndex("[tags]")
        #expect(try people.indexes.map(\.description) == ["[last_name], [first_name] DESC", "UNIQUE [name]", "[tags]"])
        #expect(try people.explain(where: "[last_name] = ?", arguments: ["Lovelace"])
                == #"index [last_name], [first_name] DESC: [last_name] = "Lovelace" (1 range, exact)"#)
        #expect(try people.explain(where: "[age] > ?", arguments: [30]) == "full scan")
        #expect(throws: DocumentError.self) { try people.insert(["name": "Ada"]) }
        #expect(try people.count() == 3)
        #expect(try people.dropIndex("[tags]"))
        #expect(try people.inconsistentIndexes().isEmpty)
    }

    @Test(arguments: BackendKind.allCases) func theConcurrencyArticle(_ backend: BackendKind) async throws {
        let temporary = try TemporaryStore(backend: backend)
        let people = try temporary.store.collection("people")
        let id = try await people.insert(["name": "Ada", "age": 36])
        #expect(try await people.document(id: id)?["name"] == "Ada")
        let adults: [JSON] = try await people.find(where: "[age] >= ?", arguments: [18])
        #expect(adults.count == 1)
        let byAge = try await people.prepare(where: "[age] >= ?")
        #expect(try await byAge.count(arguments: [30]) == 1)
        // Issued in order, completed in order.
        async let first: RowID = people.insert(["name": "Grace", "age": 45])
        async let second: Int = people.count()
        #expect(try await first == 2)
        #expect(try await second >= 1)
    }

    private struct User: Codable, Sendable, Equatable {
        var name: String
        var age: Int
        var tags: [String] = []
    }

    @Test(arguments: BackendKind.allCases) func theCodableArticle(_ backend: BackendKind) throws {
        let temporary = try TemporaryStore(backend: backend)
        let users = try temporary.store.collection("users")
        let id = try users.insert(User(name: "Ada", age: 36))
        #expect(try users.document(id: id, as: User.self) == User(name: "Ada", age: 36))
        try users.insertBatch([User(name: "Grace", age: 45, tags: ["navy"]), User(name: "Kid", age: 12)])
        #expect(try users.find(where: "[age] >= ?", arguments: [18], as: User.self).map(\.name) == ["Ada", "Grace"])
        #expect(try users.findOne(where: "[name] = ?", arguments: ["Ada"], as: User.self)?.age == 36)
        var ada = try #require(try users.document(id: id))
        ada["age"] = 37
        try users.update(ada)
        #expect(try users.document(id: id, as: User.self)?.age == 37)
        #expect(throws: DecodingError.self) { _ = try users.find(where: "[name] = 'Ada'", as: [Int].self) }
    }
}
