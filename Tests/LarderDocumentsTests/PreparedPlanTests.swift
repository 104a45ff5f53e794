// A plan prepared once (PreparedPlan) must be exactly the planner's plan for every run it
// answers: random WHERE clauses, orderBys, limits, index sets and arguments of every JSON
// type, compared with the planner run on the bound clause. It must answer most of the
// clauses it is made for, and leave the rest (nulls, arrays, IN, OR, repeated bounds) to the
// planner.

import Testing
@testable import LarderDocuments
import LarderTestSupport

@Suite struct PreparedPlanTests {
    private func template(_ text: String) throws -> QueryTemplate {
        try QueryParser.parseTemplate(text, tokens: QueryTokenizer.tokenize(text, aliases: [:]))
    }

    private func index(_ id: Int, _ keys: String, unique: Bool = false, multiValued: Bool = false) throws -> IndexDefinition {
        IndexDefinition(id: id, keys: try QueryParser.parseSortKeys(keys, aliases: [:]), isUnique: unique, isMultiValued: multiValued)
    }

    @Test func preparedPlansAreThePlannersPlansForEveryArgument() throws {
        var generator = SplitMix(seed: 77)
        func pick<T>(_ choices: [T]) -> T { choices[Int(generator.next(below: UInt64(choices.count)))] }
        let indexSets: [[IndexDefinition]] = [
            [],
            [try index(1, "[a]")],
            [try index(1, "[a], [b]"), try index(2, "[b] DESC")],
            [try index(1, "[a]", unique: true), try index(2, "[c], [a] DESC"), try index(3, "[tags]", multiValued: true)],
            [try index(1, "[b], [a]"), try index(2, "[a] DESC, [c]"), try index(3, "[c]", multiValued: true)],
        ]
        let fields = ["[a]", "[b]", "[c]", "[tags]", "[__rowid__]"]
        let terms = ["= ?", "!= ?", "< ?", "<= ?", "> ?", ">= ?", "CONTAINS ?", "BETWEEN ? AND ?", "IN (?, ?)",
                     "IS NULL", "= 'x'", "> 3", "LIKE ?", "= ?"]
        let orderBys: [String?] = [nil, "[a]", "[a] DESC", "[a], [b]", "[b] DESC, [a]", "[c], [a] DESC", "[c]"]
        let values: [JSON] = [.string("m"), .string(""), .int(5), .int(-2), .double(2.5), .bool(true), .bool(false),
                              .null, .array([.int(1)]), .object(["k": .int(1)])]
        var answered = 0, made = 0, cases = 0
        for _ in 0 ..< 4_000 {
            let conjuncts = (0 ... Int(generator.next(below: 3))).map { _ in "\(pick(fields)) \(pick(terms))" }
            var text = conjuncts.joined(separator: " AND ")
            if generator.next(below: 12) == 0 { text = "(\(text)) OR [a] = ?" }
            let query = try template(text)
            let orderBy = try pick(orderBys).map { try QueryParser.parseSortKeys($0, aliases: [:]) } ?? []
            let limit: Int? = pick([nil, 20])
            let indexes = pick(indexSets)
            guard let prepared = PreparedPlan(template: query, orderBy: orderBy, limit: limit, indexes: indexes) else { continue }
            made += 1
            for _ in 0 ..< 5 {
                cases += 1
                let arguments = query.placeholderPositions.map { _ in pick(values) }
                guard let plan = prepared.plan(binding: arguments) else {
                    #expect(arguments.contains { $0.isNull || $0.arrayValue != nil }, "\(text) with \(arguments) was not answered")
                    continue
                }
                answered += 1
                // A run may change the limit (findOne, count): the prepared plan holds for all.
                for runLimit in [limit, nil, 1] {
                    let expected = QueryPlanner(indexes: indexes).plan(where: try query.bound(to: arguments), orderBy: orderBy, limit: runLimit)
                    #expect(plan == expected, "\(text) orderBy \(orderBy) limit \(String(describing: runLimit)) with \(arguments)")
                }
            }
        }
        // The comparison above must have happened often, over many kinds of clause.
        #expect(made > 400)
        #expect(answered > cases / 2)
    }

    @Test func clausesWhosePlanDependsOnValuesAreNotPrepared() throws {
        let indexes = [try index(1, "[a], [b]"), try index(2, "[tags]", multiValued: true)]
        for text in ["[a] IN (?, ?)", "[a] > ? AND [a] > ?", "[a] = ? AND [a] = ?", "[a] = ? OR [b] = ?", "NOT [a] = ?",
                     "[a] = NULL", "[a] = ? AND [b] LIKE ?", "[__rowid__] IN (?, ?)", "[c] = ?", "[a] = [b]"] {
            #expect(PreparedPlan(template: try template(text), orderBy: [], limit: nil, indexes: indexes) == nil, "\(text)")
        }
        #expect(PreparedPlan(template: nil, orderBy: [], limit: nil, indexes: indexes) == nil)
        let prepared = try #require(PreparedPlan(template: try template("[a] = ? AND [b] >= ?"), orderBy: [], limit: nil, indexes: indexes))
        #expect(prepared.plan(binding: [.null, .int(1)]) == nil)
        #expect(prepared.plan(binding: [.string("x"), .array([])]) == nil)
        #expect(prepared.plan(binding: [.string("x"), .int(1)]) != nil)
    }

    @Test func aRowIDEqualityIsPreparedAsThePlannersLookup() throws {
        let indexes = [try index(1, "[a], [b]"), try index(2, "[b] DESC")]
        let arguments: [[JSON]] = [[.int(5), .string("x")], [.double(2), .int(1)], [.double(2.5), .int(1)], [.string("x"), .int(1)],
                                   [.object(["k": .int(1)]), .bool(true)], [.int(-3), .int(0)]]
        for text in ["[__rowid__] = ?", "? = [__rowid__]", "[__rowid__] = ? AND [a] = ?", "[__rowid__] CONTAINS ? AND [b] > ?",
                     "[__rowid__] = 7 AND [a] >= ?", "[a] = ? AND [__rowid__] = ?"] {
            let query = try template(text)
            let prepared = try #require(PreparedPlan(template: query, orderBy: [], limit: nil, indexes: indexes), "\(text)")
            for values in arguments {
                let bound = Array(values.prefix(query.placeholderPositions.count))
                let plan = try #require(prepared.plan(binding: bound), "\(text) with \(bound)")
                #expect(plan == QueryPlanner(indexes: indexes).plan(where: try query.bound(to: bound), orderBy: [], limit: nil),
                        "\(text) with \(bound)")
            }
        }
        let byRowID = try #require(PreparedPlan(template: try template("[__rowid__] = ?"), orderBy: [], limit: nil, indexes: indexes))
        #expect(byRowID.plan(binding: [.int(5)]) == .rowIDs([5]))
        #expect(byRowID.plan(binding: [.string("5")]) == .rowIDs([]))
        #expect(byRowID.plan(binding: [.null]) == nil)
        #expect(byRowID.plan(binding: [.array([.int(5)])]) == nil)
    }

    @Test(arguments: BackendKind.allCases) func aPreparedRowIDLookupFindsTheDocumentItNames(_ backend: BackendKind) throws {
        let temporary = try TemporaryStore(backend: backend)
        let people = try temporary.store.collection("people")
        try people.insertBatch(samplePeople(10))
        try people.addIndex("[age]")
        let byRowID = try people.prepare(where: "[__rowid__] = ?")
        let olderByRowID = try people.prepare(where: "[__rowid__] = ? AND [age] > ?")
        #expect(try byRowID.explain(arguments: [3]) == "rowid lookup: 3")
        #expect(try byRowID.findOne(arguments: [3]) == (try people.document(id: 3)))
        #expect(try byRowID.find(arguments: [.double(4)]) == (try people.find(where: "[__rowid__] = 4")))
        #expect(try byRowID.find(arguments: [11]).isEmpty)
        #expect(rowIDs(try olderByRowID.find(arguments: [3, 21])) == [3])   // age 22
        #expect(try olderByRowID.find(arguments: [3, 22]).isEmpty)
        try people.delete(["__rowid__": 3])
        #expect(try byRowID.findOne(arguments: [3]) == nil)
    }

    @Test(arguments: BackendKind.allCases) func aPreparedQueryPlansAgainWhenItsCollectionsIndexesChange(_ backend: BackendKind) throws {
        let temporary = try TemporaryStore(backend: backend)
        let people = try temporary.store.collection("people")
        try people.insertBatch(samplePeople(40))
        let byName = try people.prepare(where: "[last_name] >= ?", orderBy: "[last_name]", limit: 5)
        #expect(try byName.explain(arguments: ["L2"]).hasPrefix("full scan"))
        try people.addIndex("[last_name]")
        #expect(try byName.explain(arguments: ["L2"]).hasPrefix("index [last_name]"))
        #expect(try byName.find(arguments: ["L2"]) == (try people.find(where: "[last_name] >= ?", arguments: ["L2"], orderBy: "[last_name]", limit: 5)))
        // Prepared with the index: a run sees it made multi-valued, then dropped.
        let byLastName = try people.prepare(where: "[last_name] >= ?")
        #expect(try byLastName.explain(arguments: ["L2"]).hasPrefix("index [last_name]: range"))
        try people.insert(["last_name": ["L2", "L3"]])
        #expect(try byLastName.explain(arguments: ["L2"]) == "full scan")   // no range on a multi-valued index
        #expect(try byLastName.find(arguments: ["L2"]) == (try people.find(where: "[last_name] >= ?", arguments: ["L2"])))
        #expect(try people.dropIndex("[last_name]"))
        #expect(try byName.explain(arguments: ["L2"]).hasPrefix("full scan"))
        #expect(try byName.find(arguments: ["L2"]) == (try people.find(where: "[last_name] >= ?", arguments: ["L2"], orderBy: "[last_name]", limit: 5)))
    }
}
