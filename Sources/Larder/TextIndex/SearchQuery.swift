// SearchQuery: the parsed form of a full-text query, in Tokyo Dystopia's compound expression
// syntax, and its parser.
//
//   query   := orExpr ((" " | "&&" | "!!") orExpr)*     AND and NOT, left to right
//   orExpr  := term ("||" term)*                          OR binds tighter than AND and NOT
//   term    := word | "quoted phrase" | [[word]] | [[word*]] | [[*word]] | [[*word*]]
//
// A bare word or a quoted phrase matches a substring of the text; [[...]] matches whole tokens.
// Operators are words of their own, separated by spaces.

/// How a `[[...]]` term matches tokens.
internal enum TokenMatch: Equatable, Sendable {
    case exact, prefix, suffix, contains
}

/// One term of a query, normalized like indexed text.
internal enum SearchTerm: Equatable, Sendable {
    /// A bare word or quoted phrase: a substring of the normalized text.
    case substring([UInt8])
    /// A `[[...]]` term: tokens that equal, start with, end with or contain the word.
    case token([UInt8], TokenMatch)
}

/// A parsed query: groups of terms joined by `||`, combined left to right. Flat, so that
/// neither building nor evaluating nor freeing a query recurses, however long it is.
internal struct SearchQuery: Equatable, Sendable {
    /// How a group combines with the rows matched before it.
    enum Combination: Equatable, Sendable {
        /// Rows in both.
        case and
        /// Rows matched before that are not in the group.
        case not
    }

    /// A group after the first, with how it combines.
    struct Step: Equatable, Sendable {
        var combination: Combination
        /// Terms of which a row matches at least one.
        var alternatives: [SearchTerm]
    }

    /// The first group: the rows the steps start from.
    var first: [SearchTerm]
    var steps: [Step] = []

    /// The most terms and operators a query may have: bounds the work of one query.
    static let maxItems = 1_000

    /// Parses `text`; a malformed query throws a ``SearchQueryError`` with its position.
    static func parse(_ text: String) throws(SearchQueryError) -> SearchQuery {
        var lexer = SearchQueryLexer(text)
        let items = try lexer.items()
        guard !items.isEmpty else { throw SearchQueryError(position: 0, message: "empty query") }
        if items.count > maxItems {
            throw SearchQueryError(position: items[maxItems].position, message: "more than \(maxItems) terms and operators")
        }
        var index = 0
        func operand() throws(SearchQueryError) -> SearchTerm {
            guard index < items.count else {
                let previous = items[items.count - 1]
                throw SearchQueryError(position: previous.position, message: "expected a term after \(previous.text)")
            }
            let item = items[index]
            guard case let .term(term) = item.kind else {
                throw SearchQueryError(position: item.position, message: "expected a term before \(item.text)")
            }
            index += 1
            return term
        }
        func alternatives() throws(SearchQueryError) -> [SearchTerm] {
            var terms = [try operand()]
            while index < items.count, items[index].kind == .or {
                index += 1
                terms.append(try operand())
            }
            return terms
        }
        var query = SearchQuery(first: try alternatives())
        while index < items.count {
            switch items[index].kind {
            case .and:
                index += 1
                query.steps.append(Step(combination: .and, alternatives: try alternatives()))
            case .not:
                index += 1
                query.steps.append(Step(combination: .not, alternatives: try alternatives()))
            case .term:
                query.steps.append(Step(combination: .and, alternatives: try alternatives()))
            case .or:
                throw SearchQueryError(position: items[index].position, message: "expected a term before ||")
            }
        }
        return query
    }
}

/// Splits a query into terms and operators.
internal struct SearchQueryLexer {
    enum Kind: Equatable {
        case term(SearchTerm)
        case and, or, not
    }

    struct Item {
        var kind: Kind
        var position: Int
        var text: String
    }

    private let characters: [Character]
    private var index = 0

    init(_ text: String) {
        characters = Array(text)
    }

    mutating func items() throws(SearchQueryError) -> [Item] {
        var items: [Item] = []
        while true {
            while index < characters.count, characters[index].isWhitespace { index += 1 }
            guard index < characters.count else { return items }
            let start = index
            if characters[index] == "\"" {
                items.append(Item(kind: .term(try phrase()), position: start, text: "\""))
            } else if startsWith("[[") {
                items.append(Item(kind: .term(try tokenTerm()), position: start, text: "[["))
            } else {
                while index < characters.count, !characters[index].isWhitespace { index += 1 }
                let word = String(characters[start ..< index])
                switch word {
                case "&&": items.append(Item(kind: .and, position: start, text: word))
                case "||": items.append(Item(kind: .or, position: start, text: word))
                case "!!": items.append(Item(kind: .not, position: start, text: word))
                default: items.append(Item(kind: .term(.substring(TextNormalizer.normalize(word))), position: start, text: word))
                }
            }
        }
    }

    private func startsWith(_ prefix: String) -> Bool {
        let prefix = Array(prefix)
        guard index + prefix.count <= characters.count else { return false }
        return Array(characters[index ..< index + prefix.count]) == prefix
    }

    /// `"..."`: the characters up to the next quote, which must end the word.
    private mutating func phrase() throws(SearchQueryError) -> SearchTerm {
        let start = index
        index += 1
        guard let end = characters[index...].firstIndex(of: "\"") else {
            throw SearchQueryError(position: start, message: "unterminated quoted phrase")
        }
        let content = String(characters[index ..< end])
        index = end + 1
        try requireSeparator(after: "\"")
        guard !content.isEmpty else { throw SearchQueryError(position: start, message: "empty quoted phrase") }
        return .substring(TextNormalizer.normalize(content))
    }

    /// `[[word]]`, `[[word*]]`, `[[*word]]` or `[[*word*]]`: one token, with its wildcards.
    private mutating func tokenTerm() throws(SearchQueryError) -> SearchTerm {
        let start = index
        index += 2
        var end = index
        while end + 1 < characters.count, !(characters[end] == "]" && characters[end + 1] == "]") { end += 1 }
        guard end + 1 < characters.count else {
            throw SearchQueryError(position: start, message: "[[ without ]]")
        }
        var inner = characters[index ..< end]
        index = end + 2
        try requireSeparator(after: "]]")
        let leading = inner.first == "*"
        if leading { inner = inner.dropFirst() }
        let trailing = inner.last == "*"
        if trailing { inner = inner.dropLast() }
        let word = TextNormalizer.normalize(String(inner))
        let ranges = TextNormalizer.tokenRanges(word)
        guard ranges.count == 1, ranges[0] == 0 ..< word.count else {
            throw SearchQueryError(position: start, message: word.isEmpty ? "[[ ]] holds no word"
                                   : "[[ ]] holds one word of letters and digits, with * at either end")
        }
        let match: TokenMatch = leading ? (trailing ? .contains : .suffix) : (trailing ? .prefix : .exact)
        return .token(word, match)
    }

    private func requireSeparator(after closing: String) throws(SearchQueryError) {
        guard index < characters.count, !characters[index].isWhitespace else { return }
        throw SearchQueryError(position: index, message: "expected a space after \(closing)")
    }
}
