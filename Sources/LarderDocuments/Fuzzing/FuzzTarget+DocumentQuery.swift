// The documents query fuzz target: a WHERE clause and an orderBy list as a user may type
// them. Each parses (with aliases expanded) or throws a QueryError whose position lies in the
// text; a WHERE that parses is planned against indexes and evaluated against documents.

import Larder

extension FuzzTarget {
    /// The input's bytes as UTF-8 text (invalid sequences replaced).
    package static let documentQuery = FuzzTarget(name: "documentQuery", seeds: documentQuerySeeds) { input throws(FuzzViolation) in
        let text = String(decoding: input, as: UTF8.self)
        let aliases = ["country": "[address.country]", "adult": "[age] >= 18", "broken": "[a] = ("]
        func checkPosition(_ error: Error) throws(FuzzViolation) {
            guard let error = error as? QueryError else { throw FuzzViolation("\(error) is not a QueryError") }
            try FuzzViolation.check(error.position >= 0 && error.position <= text.count,
                                    "position \(error.position) outside a query of \(text.count) characters")
        }
        let tokens: [QueryToken]
        do {
            tokens = try QueryTokenizer.tokenize(text, aliases: aliases)
        } catch {
            try checkPosition(error)
            return false
        }
        var sortKeysParse = true
        do {
            _ = try QueryParser.parseSortKeys(text, tokens: tokens)
        } catch {
            try checkPosition(error)
            sortKeysParse = false
        }
        let expression: QueryExpression
        do {
            let template = try QueryParser.parseTemplate(text, tokens: tokens)
            let arguments = (0 ..< template.placeholderPositions.count).map { queryArguments[$0 % queryArguments.count] }
            expression = try template.bound(to: arguments)
        } catch {
            try checkPosition(error)
            return sortKeysParse
        }
        let indexes = [IndexDefinition(id: 1, keys: [SortKey(path: FieldPath.rowID, descending: false)], isUnique: true)]
            + queryIndexKeys.enumerated().map { IndexDefinition(id: $0.offset + 2, keys: $0.element, isUnique: false) }
        _ = QueryPlanner(indexes: indexes).plan(where: expression, orderBy: [], limit: 20)
        let evaluator = QueryEvaluator(defaults: ["age": 0])
        for (rowID, document) in queryDocuments.enumerated() { _ = evaluator.matches(expression, document, rowID: Int64(rowID + 1)) }
        return true
    }

    private static let queryArguments: [JSON] = [30, "UK", nil, ["x", 1], 2.5, true]
    private static let queryIndexKeys: [[SortKey]] = [["age", "address.country"], ["tags"], ["last_name", "first_name"]].map { paths in
        paths.compactMap { FieldPath($0).map { SortKey(path: $0, descending: false) } }
    }
    private static let queryDocuments: [JSON] = [
        ["first_name": "Ada", "last_name": "Lovelace", "age": 36, "tags": ["math", "poetry"], "address": ["country": "UK"]],
        ["first_name": "Émile", "age": 17.5, "tags": "red", "address": nil],
        [:],
    ]

    @Sendable private static func documentQuerySeeds() -> [[UInt8]] {
        ["[age] > ? AND [address.country] IN (?, ?)", "NOT ([tags] CONTAINS 'red' OR [age] BETWEEN 20 AND 30)",
         "[last_name] LIKE 'L%' AND [first_name] IS NOT NULL", "[__rowid__] = 3 OR [age] <> -2.5e1",
         "country = 'UK' AND (adult OR [x.0.y] = NULL)", "[a] NOT IN (TRUE, FALSE, 'it''s')",
         "[age] DESC, [last_name] ASC", "[first_name] LIKE '%a%d_' OR [tags] = \"poetry\""].map { Array($0.utf8) }
    }
}
