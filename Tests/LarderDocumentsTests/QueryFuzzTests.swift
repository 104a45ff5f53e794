// Random and mutated query strings: the parser answers with QueryError (or a result), never
// crashes, and a remove(where:) that fails changes nothing.

import Foundation
import Testing
@testable import LarderDocuments
import LarderTestSupport

@Suite struct QueryFuzzTests {
    static let seeds = [
        "[age] > ? AND [address.country] IN (?, ?)", "NOT ([tags] CONTAINS 'red' OR [age] BETWEEN 20 AND 30)",
        "[last_name] LIKE 'L%' AND [first_name] IS NOT NULL", "[__rowid__] = 3 OR [age] <> -2.5e1",
        "country = 'UK' AND ([age] >= ? OR [x.0.y] = NULL)", "[a] NOT IN (TRUE, FALSE, 'it''s')",
    ]
    static let fragments = ["[", "]", "(", ")", "?", "'", "\"", "AND", "OR", "NOT", "IN", "BETWEEN", "LIKE", "IS",
                            "NULL", "CONTAINS", "=", "<", ">=", "<>", "!", ",", ".", "-", "1e", "0.5", "[a.b]", "[]",
                            "country", "%", "\u{0}", "é", "[__rowid__]", " ", "TRUE", "9999999999999999999999"]

    @Test(arguments: BackendKind.allCases) func randomAndMutatedQueriesNeverCrashOrChangeTheStore(_ backend: BackendKind) throws {
        let temporary = try TemporaryStore(backend: backend)
        let c = try temporary.store.collection("people")
        try c.insertBatch(samplePeople(60))
        try c.addIndex("[address.country]")
        try c.addIndex("[age] DESC, [last_name]")
        try c.addIndex("[tags]")
        try c.setAliases(["country": "[address.country]"])
        let before = try c.find()
        let seed: UInt64 = 3_000
        var generator = SplitMix(seed: seed)
        var errors = 0
        for round in 0 ..< 3_000 {
            var query: String
            if round % 2 == 0 {
                var characters = Array(Self.seeds[round / 2 % Self.seeds.count])
                for _ in 0 ..< Int.random(in: 1 ... 4, using: &generator) {
                    let position = Int.random(in: 0 ... characters.count, using: &generator)
                    switch Int.random(in: 0 ..< 3, using: &generator) {
                    case 0 where position < characters.count: characters.remove(at: position)
                    case 1: characters.insert(contentsOf: Self.fragments.randomElement(using: &generator) ?? "", at: position)
                    default:
                        if position < characters.count { characters[position] = Character(Unicode.Scalar(UInt8.random(in: 32 ... 126, using: &generator))) }
                    }
                }
                query = String(characters)
            } else {
                query = (0 ..< Int.random(in: 1 ... 12, using: &generator))
                    .map { _ in Self.fragments.randomElement(using: &generator) ?? "" }.joined(separator: " ")
            }
            let arguments: [JSON] = (0 ..< Int.random(in: 0 ... 3, using: &generator)).map { _ in [JSON.int(30), "UK", nil, ["x"]].randomElement(using: &generator) ?? nil }
            do {
                _ = try c.find(where: query, arguments: arguments, orderBy: round % 3 == 0 ? "[age] DESC" : nil, limit: round % 5 == 0 ? 3 : nil)
                _ = try c.count(where: query, arguments: arguments)
                _ = try c.explain(where: query, arguments: arguments)
            } catch let error as QueryError {
                errors += 1
                #expect(error.position >= 0 && error.position <= query.count, "seed \(seed) round \(round): \(query)")
                #expect(throws: QueryError.self, "seed \(seed) round \(round): \(query)") { try c.delete(where: query, arguments: arguments) }
            }
        }
        #expect(errors > 1_000, "seed \(seed)")
        #expect(try c.find() == before, "seed \(seed)")
        #expect(try c.inconsistentIndexes().isEmpty, "seed \(seed)")
    }

    @Test(arguments: BackendKind.allCases) func deepNestingIsAnErrorNotACrash(_ backend: BackendKind) throws {
        let temporary = try TemporaryStore(backend: backend)
        let c = try temporary.store.collection("deep")
        let deepQuery = String(repeating: "(", count: 100_000) + "[a] = 1" + String(repeating: ")", count: 100_000)
        #expect(throws: QueryError.self) { try c.find(where: deepQuery) }
        #expect(throws: QueryError.self) { try c.find(where: String(repeating: "NOT ", count: 50_000) + "[a] = 1") }
        #expect(try c.find(where: String(repeating: "(", count: 50) + "[a] = 1" + String(repeating: ")", count: 50)).isEmpty)
        var deep: JSON = 1
        for _ in 0 ..< 150 { deep = [deep] }
        // Not through #expect: the testing library would encode the value to describe it.
        func refused(_ body: () throws -> Void) -> Bool {
            do { try body() } catch DocumentError.nestedTooDeeply { return true } catch {}
            return false
        }
        let insertRefused = refused { try c.insert(["v": deep]) }
        let findRefused = refused { _ = try c.find(where: "[v] = ?", arguments: [deep]) }
        let defaultRefused = refused { try c.setDefaultJSON(["v": deep]) }
        #expect(insertRefused && findRefused && defaultRefused)
        var fine: JSON = 1
        for _ in 0 ..< 99 { fine = [fine] }   // with its object: 100 deep
        try c.insert(["v": fine])
        #expect(try c.count(where: "[v] = ?", arguments: [fine]) == 1)
    }

    @Test(arguments: BackendKind.allCases) func orderByAndIndexDefinitionsRejectGarbage(_ backend: BackendKind) throws {
        let temporary = try TemporaryStore(backend: backend)
        let c = try temporary.store.collection("people")
        let seed: UInt64 = 1_000
        var generator = SplitMix(seed: seed)
        for _ in 0 ..< 1_000 {
            let text = (0 ..< Int.random(in: 0 ... 6, using: &generator))
                .map { _ in Self.fragments.randomElement(using: &generator) ?? "" }.joined(separator: " ")
            if (try? c.find(orderBy: text)) == nil {
                #expect(throws: QueryError.self, "seed \(seed): \(text)") { try c.addIndex(text) }
            }
        }
        let indexes = try c.indexes
        #expect(indexes.allSatisfy { $0.definition.hasPrefix("[") }, "seed \(seed): \(indexes)")
    }
}
