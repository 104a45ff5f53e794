// QueryParser: the second stage. Recursive descent over the tokens into a QueryExpression
// (WHERE) whose `?` placeholders a QueryTemplate binds, or a list of sort keys (orderBy, index
// definitions). Every error is a QueryError with a position.

/// Parses queries, orderBy lists and index key lists.
struct QueryParser {
    private let tokens: [QueryToken]
    private let text: String
    /// Where each `?` met so far is, in order.
    private var placeholderPositions: [Int] = []
    private var index = 0
    /// Parentheses and NOTs open so far: bounded, so that no query exhausts the stack.
    private var depth = 0
    static let maximumDepth = 100

    private init(_ text: String, tokens: [QueryToken]) {
        self.text = text
        self.tokens = tokens
    }

    /// A WHERE clause already tokenized, its placeholders left for ``QueryTemplate/bound(to:)``.
    static func parseTemplate(_ text: String, tokens: [QueryToken]) throws -> QueryTemplate {
        var parser = QueryParser(text, tokens: tokens)
        let expression = try parser.orExpression()
        try parser.expectEnd()
        return QueryTemplate(text: text, expression: expression, placeholderPositions: parser.placeholderPositions)
    }

    /// The keys of an orderBy or index definition: `[a], [b.c] DESC`.
    static func parseSortKeys(_ text: String, aliases: [String: String]) throws -> [SortKey] {
        try parseSortKeys(text, tokens: QueryTokenizer.tokenize(text, aliases: aliases))
    }

    /// The keys of an orderBy or index definition already tokenized.
    static func parseSortKeys(_ text: String, tokens: [QueryToken]) throws -> [SortKey] {
        var parser = QueryParser(text, tokens: tokens)
        var keys: [SortKey] = []
        repeat {
            guard case let .field(path) = parser.current.kind, let fieldPath = FieldPath(path) else {
                throw parser.error("expected a field such as [name]")
            }
            parser.index += 1
            var descending = false
            if parser.acceptKeyword("DESC") { descending = true } else { _ = parser.acceptKeyword("ASC") }
            keys.append(SortKey(path: fieldPath, descending: descending))
        } while parser.acceptSymbol(",")
        try parser.expectEnd()
        return keys
    }

    // MARK: Grammar

    private mutating func orExpression() throws -> QueryExpression {
        var parts = [try andExpression()]
        while acceptKeyword("OR") { parts.append(try andExpression()) }
        return parts.count == 1 ? parts[0] : .or(parts)
    }

    private mutating func andExpression() throws -> QueryExpression {
        var parts = [try notExpression()]
        while acceptKeyword("AND") { parts.append(try notExpression()) }
        return parts.count == 1 ? parts[0] : .and(parts)
    }

    private mutating func notExpression() throws -> QueryExpression {
        if acceptKeyword("NOT") {
            try enter()
            defer { depth -= 1 }
            return .not(try notExpression())
        }
        return try predicate()
    }

    private mutating func predicate() throws -> QueryExpression {
        if acceptSymbol("(") {
            try enter()
            defer { depth -= 1 }
            let inner = try orExpression()
            guard acceptSymbol(")") else { throw error("expected ')'") }
            return inner
        }
        let left = try operand()
        if case let .symbol(symbol) = current.kind, let comparison = Self.comparisonOperator(symbol) {
            index += 1
            return .comparison(left, comparison, try operand(after: symbol))
        }
        if acceptKeyword("IS") {
            let negated = acceptKeyword("NOT")
            guard acceptKeyword("NULL") else { throw error("expected NULL after IS") }
            return .isNull(left, negated: negated)
        }
        let negated = acceptKeyword("NOT")
        if acceptKeyword("IN") {
            guard acceptSymbol("(") else { throw error("expected '(' after IN") }
            var values = [try operand()]
            while acceptSymbol(",") { values.append(try operand()) }
            guard acceptSymbol(")") else { throw error("expected ')' or ',' in the IN list") }
            return .inList(left, values, negated: negated)
        }
        if acceptKeyword("BETWEEN") {
            let low = try operand()
            guard acceptKeyword("AND") else { throw error("expected AND in BETWEEN") }
            return .between(left, low, try operand(), negated: negated)
        }
        if acceptKeyword("LIKE") { return .like(left, try operand(), negated: negated) }
        if acceptKeyword("CONTAINS") { return .contains(left, try operand(), negated: negated) }
        throw error(negated ? "expected IN, BETWEEN, LIKE or CONTAINS after NOT"
                            : "expected an operator such as =, <, IN, LIKE, CONTAINS or IS")
    }

    private mutating func operand(after symbol: String? = nil) throws -> QueryOperand {
        let token = current
        switch token.kind {
        case let .field(path):
            index += 1
            guard let fieldPath = FieldPath(path) else { throw error("invalid field path", at: token.position) }
            return .field(fieldPath)
        case .placeholder:
            index += 1
            placeholderPositions.append(token.position)
            return .argument(placeholderPositions.count - 1)
        case let .number(value):
            index += 1
            return .value(value)
        case let .string(value):
            index += 1
            return .value(.string(value))
        case .keyword("TRUE"): index += 1; return .value(true)
        case .keyword("FALSE"): index += 1; return .value(false)
        case .keyword("NULL"): index += 1; return .value(.null)
        default:
            throw error(symbol.map { "expected a value after '\($0)'" } ?? "expected a field, a value or '?'")
        }
    }

    private mutating func enter() throws {
        depth += 1
        guard depth <= Self.maximumDepth else { throw error("nested more than \(Self.maximumDepth) deep") }
    }

    // MARK: Tokens

    private var current: QueryToken { tokens[min(index, tokens.count - 1)] }

    private mutating func acceptKeyword(_ keyword: String) -> Bool {
        guard current.kind == .keyword(keyword) else { return false }
        index += 1
        return true
    }

    private mutating func acceptSymbol(_ symbol: String) -> Bool {
        guard current.kind == .symbol(symbol) else { return false }
        index += 1
        return true
    }

    private func expectEnd() throws {
        guard current.kind == .end else { throw error("unexpected text after the end of the expression") }
    }

    private func error(_ message: String, at position: Int? = nil) -> QueryError {
        QueryError(query: text, position: position ?? current.position, message: message)
    }

    private static func comparisonOperator(_ symbol: String) -> ComparisonOperator? {
        symbol == "<>" ? .notEqual : ComparisonOperator(rawValue: symbol)
    }
}
