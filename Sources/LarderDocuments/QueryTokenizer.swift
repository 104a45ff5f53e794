// QueryTokenizer: the first stage of the query engine. Splits a query, orderBy or index key
// list into tokens, each with its character position, and expands aliases: a bare word that
// names an alias is replaced by the tokens of its text (strings and bracketed fields are
// never looked into).

/// One token of a query.
struct QueryToken: Equatable, Sendable {
    enum Kind: Equatable, Sendable {
        case field(String)          // [dotted.path], the text between the brackets
        case placeholder            // ?
        case number(JSON)
        case string(String)
        case keyword(String)        // upper-cased: AND OR NOT IN ...
        case symbol(String)         // = != <> < <= > >= ( ) ,
        case end
    }

    var kind: Kind
    /// Character offset in the text the caller wrote.
    var position: Int
}

/// Turns text into tokens.
struct QueryTokenizer {
    static let keywords: Set<String> = ["AND", "OR", "NOT", "IN", "BETWEEN", "LIKE", "IS", "NULL", "TRUE",
                                        "FALSE", "CONTAINS", "ASC", "DESC"]

    /// The tokens of `text`, ending with `.end`. Throws `QueryError` at the first bad character.
    static func tokenize(_ text: String, aliases: [String: String]) throws -> [QueryToken] {
        var tokens = try tokenize(text, original: text, aliases: aliases, basePosition: nil)
        tokens.append(QueryToken(kind: .end, position: text.count))
        return tokens
    }

    /// True when `name` could be an alias: a bare identifier that is not a keyword.
    static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first.properties.isAlphabetic || first == "_" else { return false }
        return name.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || ("0" ... "9").contains($0) || $0 == "_" }
            && !keywords.contains(name.uppercased())
    }

    /// `basePosition` is set while expanding an alias: every token then takes the alias's
    /// position, and aliases inside are not expanded again.
    private static func tokenize(_ text: String, original: String, aliases: [String: String],
                                 basePosition: Int?) throws -> [QueryToken] {
        let characters = Array(text)
        var tokens: [QueryToken] = []
        var index = 0
        func fail(_ message: String, at position: Int) -> QueryError {
            if let basePosition {
                return QueryError(query: original, position: basePosition, message: "in an alias: \(message)")
            }
            return QueryError(query: original, position: position, message: message)
        }
        func add(_ kind: QueryToken.Kind, at position: Int) {
            tokens.append(QueryToken(kind: kind, position: basePosition ?? position))
        }
        while index < characters.count {
            let start = index
            let character = characters[index]
            if character.isWhitespace {
                index += 1
            } else if character == "[" {
                guard let close = characters[index...].firstIndex(of: "]") else {
                    throw fail("unterminated field: expected ']'", at: start)
                }
                let path = String(characters[(index + 1) ..< close])
                guard FieldPath(path) != nil else { throw fail("invalid field path '\(path)'", at: start) }
                add(.field(path), at: start)
                index = close + 1
            } else if character == "'" || character == "\"" {
                var value = ""
                index += 1
                var closed = false
                while index < characters.count {
                    if characters[index] == character {
                        if index + 1 < characters.count && characters[index + 1] == character {
                            value.append(character)
                            index += 2
                            continue
                        }
                        closed = true
                        index += 1
                        break
                    }
                    value.append(characters[index])
                    index += 1
                }
                guard closed else { throw fail("unterminated string", at: start) }
                add(.string(value), at: start)
            } else if character == "?" {
                add(.placeholder, at: start)
                index += 1
            } else if character.isASCII && (character.isNumber || (character == "-" || character == ".")
                        && index + 1 < characters.count && (characters[index + 1].isASCII && characters[index + 1].isNumber)) {
                index += 1
                while index < characters.count,
                      characters[index].isASCII && (characters[index].isNumber || characters[index].isLetter
                          || characters[index] == "." || ((characters[index] == "-" || characters[index] == "+")
                              && (characters[index - 1] == "e" || characters[index - 1] == "E"))) {
                    index += 1
                }
                let literal = String(characters[start ..< index])
                if let integer = Int64(literal) {
                    add(.number(.int(integer)), at: start)
                } else if let double = Double(literal), double.isFinite, !literal.lowercased().contains("n") {
                    add(.number(.double(double)), at: start)
                } else {
                    throw fail("invalid number '\(literal)'", at: start)
                }
            } else if character.isLetter || character == "_" {
                while index < characters.count, characters[index].isLetter || characters[index].isNumber || characters[index] == "_" {
                    index += 1
                }
                let word = String(characters[start ..< index])
                if keywords.contains(word.uppercased()) {
                    add(.keyword(word.uppercased()), at: start)
                } else if basePosition == nil, let expansion = aliases[word] {
                    tokens += try tokenize(expansion, original: original, aliases: [:], basePosition: start)
                } else {
                    throw fail("unknown word '\(word)': fields are written [name]", at: start)
                }
            } else {
                let two = index + 1 < characters.count ? String(characters[index ... index + 1]) : ""
                if ["!=", "<>", "<=", ">="].contains(two) {
                    add(.symbol(two), at: start)
                    index += 2
                } else if "=<>(),".contains(character) {
                    add(.symbol(String(character)), at: start)
                    index += 1
                } else {
                    throw fail("unexpected character '\(character)'", at: start)
                }
            }
        }
        return tokens
    }
}
