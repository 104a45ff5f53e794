// The query language: every operator, the total order across types, nested and array paths,
// defaults, aliases, orderBy/limit/offset, and errors with positions.

import Foundation
import LarderTestSupport
import Testing
import Larder
@testable import LarderDocuments

@Suite struct QueryTests {
    /// One document per kind of value in [v], rowIDs 1...13, in ascending total order.
    static let values: [JSON] = [.null, false, true, -5, 0, 2.5, 3, "", "B", "a", [1], [1, 2], ["k": 1]]

    private func valueCollection(_ temporary: TemporaryStore) throws -> DocumentCollection {
        let collection = try temporary.store.collection("values")
        try collection.insertBatch(Self.values.map { ["v": $0] } + [["other": 1]])   // 14: no [v]
        return collection
    }

    private func ids(_ collection: DocumentCollection, _ query: String, _ arguments: [JSON] = []) throws -> [RowID] {
        rowIDs(try collection.find(where: query, arguments: arguments))
    }

    @Test(arguments: BackendKind.withEtcd) func comparisonsFollowTheTotalOrderAndNullsNeverOrder(_ backend: BackendKind) throws {
        let temporary = try TemporaryStore(backend: backend)
        let c = try valueCollection(temporary)
        #expect(try ids(c, "[v] = ?", [3]) == [7])
        #expect(try ids(c, "[v] = ?", [3.0]) == [7])
        #expect(try ids(c, "[v] = ?", [nil]) == [1, 14])
        #expect(try ids(c, "[v] != ?", [3]) == [1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14])
        #expect(try ids(c, "[v] <> 3") == (try ids(c, "[v] != 3")))
        #expect(try ids(c, "[v] < ?", [3]) == [2, 3, 4, 5, 6])
        #expect(try ids(c, "[v] <= ?", [3]) == [2, 3, 4, 5, 6, 7])
        #expect(try ids(c, "[v] > ?", ["B"]) == [10, 11, 12, 13])
        #expect(try ids(c, "[v] >= 'B'") == [9, 10, 11, 12, 13])
        #expect(try ids(c, "[v] < ?", [nil]).isEmpty)
        #expect(try ids(c, "[v] > FALSE") == [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13])
        #expect(try ids(c, "? < [v]", [[1]]) == [12, 13])
        #expect(try ids(c, "[v] BETWEEN ? AND ?", [0, "a"]) == [5, 6, 7, 8, 9, 10])
        #expect(try ids(c, "[v] NOT BETWEEN 0 AND 'a'") == [1, 2, 3, 4, 11, 12, 13, 14])
        #expect(try ids(c, "[v] IN (?, ?, TRUE, -5)", ["a", 2.5]) == [3, 4, 6, 10])
        #expect(try ids(c, "[v] NOT IN (NULL, FALSE)") == [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13])
        #expect(try ids(c, "[v] IS NULL") == [1, 14])
        #expect(try ids(c, "[v] IS NOT NULL").count == 12)
        #expect(try ids(c, "[v] = ?", [["k": 1]]) == [13])
        #expect(try ids(c, "[v] = ?", [[1, 2]]) == [12])
        #expect(try ids(c, "[v] = 2.5e0 OR [v] = -5") == [4, 6])
    }

    @Test(arguments: BackendKind.withEtcd) func logicParenthesesAndNot(_ backend: BackendKind) throws {
        let temporary = try TemporaryStore(backend: backend)
        let c = try valueCollection(temporary)
        #expect(try ids(c, "[v] > 0 AND [v] < 'a' AND NOT [v] = 3") == [6, 8, 9])
        #expect(try ids(c, "[v] = 0 OR [v] = 3 AND [v] = 0") == [5])   // AND binds tighter
        #expect(try ids(c, "([v] = 0 OR [v] = 3) AND [v] = 0") == [5])
        #expect(try ids(c, "NOT ([v] = 0 OR [v] IS NULL OR [v] >= '')") == [2, 3, 4, 6, 7])
        #expect(try ids(c, "not [v] = 0 and [v] < 0 or [v] = true") == [2, 3, 4])
    }

    @Test(arguments: BackendKind.withEtcd) func likeMatchesSQLPatterns(_ backend: BackendKind) throws {
        let temporary = try TemporaryStore(backend: backend)
        let c = try temporary.store.collection("words")
        try c.insertBatch(["apple", "Apricot", "banana", "a%b", "axb", "é-ok", "", 5].map { ["w": $0] })
        #expect(try ids(c, "[w] LIKE ?", ["a%"]) == [1, 2, 4, 5])
        #expect(try ids(c, "[w] LIKE 'A_R%'") == [2])
        #expect(try ids(c, "[w] LIKE '%an%'") == [3])
        #expect(try ids(c, "[w] LIKE 'a%b'") == [4, 5])
        #expect(try ids(c, "[w] LIKE '%'") == [1, 2, 3, 4, 5, 6, 7])
        #expect(try ids(c, "[w] LIKE '_-ok'") == [6])
        #expect(try ids(c, "[w] NOT LIKE 'a%'") == [3, 6, 7])
        #expect(try ids(c, "[w] LIKE 5").isEmpty)
    }

    @Test(arguments: [false, true], BackendKind.withEtcd) func nestedAndArrayPathsAndContains(encrypted: Bool, backend: BackendKind) throws {
        let temporary = try TemporaryStore(encrypted: encrypted, backend: backend)
        let c = try temporary.store.collection("orders")
        try c.insertBatch([
            ["customer": ["address": ["country": "UK"]], "items": [["sku": "A1", "qty": 2], ["sku": "B2"]], "tags": ["x", "y"]],
            ["customer": ["address": ["country": "FR"]], "items": [["sku": "B2"]], "tags": "x"],
            ["customer": "anonymous", "items": [], "tags": [["x"]]],
        ])
        #expect(try ids(c, "[customer.address.country] = 'UK'") == [1])
        #expect(try ids(c, "[customer.address.country] IS NULL") == [3])
        #expect(try ids(c, "[items.0.sku] = ?", ["B2"]) == [2])
        #expect(try ids(c, "[items.1.sku] = 'B2'") == [1])
        #expect(try ids(c, "[items.0.qty] > 1") == [1])
        #expect(try ids(c, "[items.5.sku] IS NULL") == [1, 2, 3])
        #expect(try ids(c, "[tags] CONTAINS ?", ["x"]) == [1, 2])
        #expect(try ids(c, "[tags] CONTAINS ?", [["x"]]) == [3])
        #expect(try ids(c, "[tags] NOT CONTAINS 'y'") == [2, 3])
        #expect(try ids(c, "[tags] = ?", [["x", "y"]]) == [1])
        #expect(try ids(c, "[__rowid__] IN (3, 1, 9)") == [1, 3])
        #expect(try ids(c, "[__rowid__] > 1") == [2, 3])
    }

    @Test(arguments: BackendKind.withEtcd) func defaultsFillMissingFields(_ backend: BackendKind) throws {
        let temporary = try TemporaryStore(backend: backend)
        let c = try temporary.store.collection("people")
        try c.insertBatch([["name": "a", "active": false], ["name": "b"], ["name": "c", "address": ["city": "Paris"]]])
        try c.setDefaultJSON(["active": true, "address": ["country": "FR", "city": "?"]])
        #expect(try ids(c, "[active] = TRUE") == [2, 3])
        #expect(try ids(c, "[address.country] = 'FR'") == [1, 2, 3])
        #expect(try ids(c, "[address.city] = 'Paris'") == [3])
        #expect(try ids(c, "[address.city] = '?'") == [1, 2])
        // Returned documents are as stored.
        #expect(try c.find(where: "[name] = 'b'") == [["name": "b", "__rowid__": 2]])
        #expect(throws: DocumentError.notAnObject(3)) { try c.setDefaultJSON(3) }
    }

    @Test(arguments: BackendKind.withEtcd) func aliasesExpandAsWholeWordsOutsideStringsAndBrackets(_ backend: BackendKind) throws {
        let temporary = try TemporaryStore(backend: backend)
        let c = try temporary.store.collection("people")
        try c.insertBatch([["country": "country", "city": "UK", "address": ["country": "UK"]],
                           ["country": "UK", "address": ["country": "FR"]], ["countryside": 1]])
        try c.setAliases(["country": "[address.country]", "uk": "'UK'", "inUK": "[address.country] = 'UK'"])
        #expect(try ids(c, "country = uk") == [1])
        #expect(try ids(c, "[country] = 'country'") == [1])        // brackets and strings untouched
        #expect(try ids(c, "[country] = 'uk'").isEmpty)
        #expect(try ids(c, "[country] = uk") == [2])
        #expect(try ids(c, "inUK OR [countryside] = 1") == [1, 3])
        #expect(try ids(c, "country='FR'") == [2])
        #expect(throws: QueryError.self) { try c.find(where: "countryside = 1") }   // whole words only
        #expect(try c.find(orderBy: "country DESC").map { $0["__rowid__"] } == [1, 2, 3])
        try c.addIndex("country")
        #expect(try c.indexes.map(\.description) == ["[address.country]"])
        #expect(throws: DocumentError.invalidAlias("AND")) { try c.setAliases(["AND": "[x]"]) }
        #expect(throws: DocumentError.invalidAlias("a b")) { try c.setAliases(["a b": "[x]"]) }
        #expect(throws: QueryError.self) { try c.setAliases(["bad": "[x"]) }
        try c.setAliases(["broken": "[x] ="])
        #expect(throws: QueryError(query: "broken", position: 6, message: "expected a value after '='")) {
            try c.find(where: "broken")
        }
    }

    @Test(arguments: [false, true], BackendKind.withEtcd) func orderByLimitAndOffset(encrypted: Bool, backend: BackendKind) throws {
        let temporary = try TemporaryStore(encrypted: encrypted, backend: backend)
        let c = try temporary.store.collection("people")
        try c.insertBatch(samplePeople(20))
        let all = try c.find(orderBy: "[last_name] DESC, [age]")
        let keys = all.map { [$0["last_name"], $0["age"]] }
        #expect(keys == keys.sorted { a, b in
            a[0] != b[0] ? JSON.compare(a[0], b[0]) > 0 : JSON.compare(a[1], b[1]) < 0
        })
        #expect(try c.find(orderBy: "[last_name] DESC, [age]", limit: 5, offset: 3) == Array(all[3 ..< 8]))
        #expect(try c.find(limit: 0).isEmpty)
        #expect(try c.find(offset: 18).count == 2)
        #expect(try c.find(limit: 3).map { $0["__rowid__"] } == [1, 2, 3])
        #expect(throws: QueryError.self) { try c.find(limit: -1) }
        // The largest limit and offset are no limit and no rows, not an overflow.
        #expect(try c.find(limit: .max, offset: 3) == Array(c.find()[3...]))
        #expect(try c.find(orderBy: "[last_name] DESC, [age]", limit: .max, offset: 3) == Array(all[3...]))
        #expect(try c.find(orderBy: "[last_name] DESC, [age]", limit: 2, offset: .max).isEmpty)
        #expect(try c.find(where: "[age] >= ?", arguments: [0], limit: .max, offset: .max).isEmpty)
        // The same through an index that gives the order.
        let byAge = try c.find(where: "[age] >= ?", arguments: [0], orderBy: "[age]")
        try c.addIndex("[age]")
        #expect(try c.explain(where: "[age] >= ?", arguments: [0], orderBy: "[age]").hasSuffix("order from the index"))
        #expect(try c.find(where: "[age] >= ?", arguments: [0], orderBy: "[age]", limit: .max, offset: 1) == Array(byAge[1...]))
        #expect(try c.find(where: "[age] >= ?", arguments: [0], orderBy: "[age]", limit: 4, offset: 2) == Array(byAge[2 ..< 6]))
        #expect(try c.find(where: "[age] >= ?", arguments: [0], orderBy: "[age]", limit: 1, offset: .max).isEmpty)
    }

    @Test(arguments: [false, true], BackendKind.withEtcd) func anOrderFromTheIndexHoldsWithoutALimit(encrypted: Bool, backend: BackendKind) throws {
        let temporary = try TemporaryStore(encrypted: encrypted, backend: backend)
        let c = try temporary.store.collection("values")
        try c.addIndex("[v]")
        // Values fall as rowIDs rise, three to a value: the index order is not the rowID order.
        let documents: [JSON] = (0 ..< 300).map { (number: Int) -> JSON in
            .object(["v": .int(Int64((300 - number) / 3)), "odd": .bool(number % 2 == 1)])
        }
        try c.insertBatch(documents)
        let expected = try c.find().sorted { a, b in
            a["v"] != b["v"] ? JSON.compare(a["v"], b["v"]) < 0 : JSON.compare(a["__rowid__"], b["__rowid__"]) < 0
        }
        #expect(try c.explain(where: "[v] >= ?", arguments: [0], orderBy: "[v]").hasSuffix("order from the index"))
        // Every row is read, a page at a time in rowID order; the rows keep the index's order.
        #expect(try c.find(where: "[v] >= ?", arguments: [0], orderBy: "[v]") == expected)
        let odd: [JSON] = expected.filter { (row: JSON) in row["odd"] == .bool(true) }
        #expect(try c.find(where: "[v] >= ? AND [odd] = ?", arguments: [0, true], orderBy: "[v]") == odd)
        let fromTen: [JSON] = Array(expected.filter { (row: JSON) in JSON.compare(row["v"], .int(10)) >= 0 }.dropFirst(5))
        #expect(try c.find(where: "[v] >= ?", arguments: [10], orderBy: "[v]", offset: 5) == fromTen)
    }

    @Test(arguments: BackendKind.withEtcd) func malformedQueriesThrowWithPositions(_ backend: BackendKind) throws {
        let temporary = try TemporaryStore(backend: backend)
        let c = try valueCollection(temporary)
        let cases: [(String, [JSON], Int)] = [
            ("[v] >> ?", [1], 5), ("[v] = ", [], 6), ("[v", [], 0), ("[] = 1", [], 0), ("[a..b] = 1", [], 0),
            ("[v] = 'open", [], 6), ("v = 1", [], 0), ("[v] = ? AND", [1], 11), ("([v] = 1", [], 8),
            ("[v] = 1)", [], 7), ("[v] IS 1", [], 7), ("[v] IN 1", [], 7), ("[v] IN (1", [], 9),
            ("[v] BETWEEN 1 OR 2", [], 14), ("[v] NOT = 1", [], 8), ("[v] = ?", [], 6), ("[v] = ?", [1, 2], 7),
            ("[v] = 1 # 2", [], 8), ("[v] = 12abc", [], 6), ("", [], 0), ("[v] = -", [], 6),
            // Only decimal numbers: Swift's Double(_:) would read these.
            ("[v] = 0x10", [], 6), ("[v] = 0x1p3", [], 6), ("[v] = 1e", [], 6), ("[v] = 1.5e+", [], 6),
            // Positions count characters: an accented letter, an emoji and CR LF are one each.
            ("[v] = 'é' # 2", [], 10), ("[v] = '👍🏽' # 2", [], 10), ("[v] = 1\r\n# 2", [], 8), ("[v]\t=\u{A0}1 $", [], 8),
        ]
        for (query, arguments, position) in cases {
            do {
                _ = try c.find(where: query, arguments: arguments)
                Issue.record("no error for \(query)")
            } catch let error as QueryError {
                #expect(error.position == position, "\(query): \(error.message)")
                #expect(error.query == query)
            }
        }
        #expect(throws: QueryError(query: "[age] >> ?", position: 7, message: "expected a value after '>'")) {
            try c.find(where: "[age] >> ?", arguments: [1])
        }
        #expect(throws: QueryError.self) { try c.find(arguments: [1]) }
        #expect(throws: QueryError.self) { try c.find(orderBy: "[v] UP") }
        #expect(throws: QueryError.self) { try c.delete(where: "[v] = ", arguments: []) }
        #expect(throws: QueryError.self) { try c.addIndex("[v] DESC DESC") }
        #expect(try c.count() == 14)
    }
}
