// Prepared queries (DocumentQuery): the same results as the collection's own find, count and
// explain for every argument; text errors when prepared, argument errors when run; aliases
// and indexes changed after preparing; the async and Codable forms.

import Foundation
import LarderTestSupport
import Testing
@testable import LarderDocuments

@Suite struct PreparedQueryTests {
    private func people(_ temporary: TemporaryStore, indexed: Bool) throws -> DocumentCollection {
        let people = try temporary.store.collection("people")
        if indexed { try people.addIndex("[last_name], [first_name]") }
        try people.insertBatch(samplePeople(60))
        return people
    }

    @Test(arguments: [false, true])
    func runsGiveWhatTheCollectionGives(indexed: Bool) throws {
        let temporary = try TemporaryStore()
        let people = try people(temporary, indexed: indexed)
        let query = "[last_name] >= ? AND [age] < ?"
        let page = try people.prepare(where: query, orderBy: "[last_name], [first_name] DESC", limit: 7, offset: 2)
        for (name, age) in [("L0", 70), ("L2", 45), ("L3", 30), ("L9", 70)] {
            let arguments: [JSON] = [.string(name), .int(Int64(age))]
            let expected = try people.find(where: query, arguments: arguments, orderBy: "[last_name], [first_name] DESC", limit: 7, offset: 2)
            #expect(try page.find(arguments: arguments) == expected)
            #expect(try page.findOne(arguments: arguments) == expected.first)
            // count ignores the limit and the offset.
            #expect(try page.count(arguments: arguments) == (try people.count(where: query, arguments: arguments)))
            #expect(try page.explain(arguments: arguments)
                    == (try people.explain(where: query, arguments: arguments, orderBy: "[last_name], [first_name] DESC", limit: 7)))
        }
        struct Name: Decodable, Equatable { var last_name: String }
        #expect(try page.find(arguments: ["L2", 45], as: Name.self)
                == (try people.find(where: query, arguments: ["L2", 45], orderBy: "[last_name], [first_name] DESC", limit: 7,
                                    offset: 2, as: Name.self)))
        #expect(try page.find(arguments: ["L2", 45]).count == 7)
        #expect(try page.count(arguments: ["L2", 45]) > 9)
        #expect(try page.findOne(arguments: ["L9", 70]) == nil)

        // Without a WHERE clause: every document, in the query's order.
        let everyone = try people.prepare(orderBy: "[age] DESC", limit: 3)
        #expect(try everyone.find() == (try people.find(orderBy: "[age] DESC", limit: 3)))
        #expect(try everyone.count() == 60)
        #expect(try people.prepare(where: "[address.country] = 'FR'").find().count == 20)
    }

    @Test(arguments: BackendKind.withEtcd) func textErrorsComeWhenPreparingArgumentErrorsWhenRunning(_ backend: BackendKind) throws {
        let temporary = try TemporaryStore(backend: backend)
        let people = try people(temporary, indexed: true)
        #expect(throws: QueryError(query: "[age] >> ?", position: 7, message: "expected a value after '>'")) {
            try people.prepare(where: "[age] >> ?")
        }
        #expect(throws: QueryError.self) { try people.prepare(orderBy: "[age] UP") }
        #expect(throws: QueryError.self) { try people.prepare(where: "[age] > ?", limit: -1) }
        #expect(throws: QueryError.self) { try people.prepare(where: "[age] > ?", offset: -1) }

        let query = try people.prepare(where: "[age] BETWEEN ? AND ?")
        #expect(throws: QueryError(query: "[age] BETWEEN ? AND ?", position: 20, message: "placeholder 2 has no argument (1 given)")) {
            try query.find(arguments: [30])
        }
        #expect(throws: QueryError(query: "[age] BETWEEN ? AND ?", position: 21,
                                   message: "the query has 2 placeholders but 3 arguments were given")) {
            try query.count(arguments: [30, 40, 50])
        }
        #expect(throws: QueryError(query: "", position: 0, message: "1 arguments given without a query")) {
            try people.prepare().find(arguments: [1])
        }
        #expect(throws: DocumentError.nestedTooDeeply) {
            try query.find(arguments: [30, (0 ..< 200).reduce(JSON.null) { inner, _ in .array([inner]) }])
        }
        #expect(try query.find(arguments: [30, 31]).count == (try people.count(where: "[age] >= 30 AND [age] <= 31")))
        #expect(try people.count() == 60)
    }

    @Test(arguments: BackendKind.withEtcd) func aliasesAndIndexesChangedAfterPreparingAreUsed(_ backend: BackendKind) throws {
        let temporary = try TemporaryStore(backend: backend)
        let people = try people(temporary, indexed: false)
        try people.setAliases(["place": "[address.country]"])
        let query = try people.prepare(where: "place = ?", orderBy: "[__rowid__]")
        #expect(rowIDs(try query.find(arguments: ["FR"])) == Array(stride(from: 2, through: 60, by: 3)))
        #expect(try query.explain(arguments: ["FR"]).hasPrefix("full scan"))

        try people.addIndex("[address.city]")
        try people.setAliases(["place": "[address.city]"])
        #expect(rowIDs(try query.find(arguments: ["C1"])) == Array(stride(from: 2, through: 60, by: 4)))
        #expect(try query.find(arguments: ["FR"]).isEmpty)
        #expect(try query.explain(arguments: ["C1"]).hasPrefix("index [address.city]"))
    }

    @Test(arguments: BackendKind.withEtcd) func asyncFormsRunOnTheCollectionsQueue(_ backend: BackendKind) async throws {
        struct Person: Codable, Equatable { var first_name: String; var age: Int }
        let temporary = try TemporaryStore(backend: backend)
        let people = try temporary.store.collection("people")
        let adults = try await people.prepare(where: "[age] >= ?", orderBy: "[age]")
        #expect(try await people.insertBatch([["first_name": "Ada", "age": 36], ["first_name": "Tim", "age": 12]]) == [1, 2])
        #expect(rowIDs(try await adults.find(arguments: [18])) == [1])
        #expect(try await adults.count(arguments: [0]) == 2)
        #expect(try await adults.findOne(arguments: [10])?["first_name"] == "Tim")
        #expect(try await adults.find(arguments: [18], as: Person.self) == [Person(first_name: "Ada", age: 36)])
        #expect(try await adults.find(arguments: [0], as: Person.self).map(\.age) == [12, 36])
        #expect(try await adults.explain(arguments: [18]) == "full scan; then sort")
        #expect(adults.collection.name == "people")
    }
}
