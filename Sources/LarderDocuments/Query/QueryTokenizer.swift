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
        let characters = characters(of: text)
        var tokens = try tokenize(characters, original: text, aliases: aliases, basePosition: nil)
        tokens.append(QueryToken(kind: .end, position: characters.count))
        return tokens
    }

    /// The characters of `text`. Most queries are ASCII, where each byte is a character
    /// (but for CR LF, one character), and splitting into grapheme clusters is needless.
    private static func characters(of text: String) -> [Character] {
        let isPlainASCII = text.utf8.withContiguousStorageIfAvailable { bytes in
            bytes.allSatisfy { $0 < 0x80 && $0 != 0x0D }
        } ?? false
        guard isPlainASCII else { return Array(text) }
        return text.utf8.map { Character(Unicode.Scalar($0)) }
    }

    /// True when `name` could be an alias: a bare identifier that is not a keyword.
    static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first.properties.isAlphabetic || first == "_" else { return false }
        return name.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || ("0" ... "9").contains($0) || $0 == "_" }
            && !keywords.contains(name.uppercased())
    }

    /// The text of `characters`: appended one by one, which the compiler specializes
    /// (`String(_:)` of a character sequence runs generic code, thousands of instructions).
    /// Whether `literal` is a decimal number as the language writes one: an optional minus,
    /// digits with an optional fraction (or a fraction alone), an optional exponent. Swift's
    /// `Double(_:)` also reads hexadecimal (`0x10`), `inf` and `nan`, which the language does not.
    static func isDecimal(_ literal: String) -> Bool {
        var bytes = Substring(literal).utf8[...]
        if bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        let isDigit = { (byte: UInt8) in (UInt8(ascii: "0") ... UInt8(ascii: "9")).contains(byte) }
        let integerDigits = bytes.prefix(while: isDigit).count
        bytes = bytes.dropFirst(integerDigits)
        var fractionDigits = 0
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            fractionDigits = bytes.prefix(while: isDigit).count
            bytes = bytes.dropFirst(fractionDigits)
        }
        guard integerDigits + fractionDigits > 0 else { return false }
        if bytes.first == UInt8(ascii: "e") || bytes.first == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if bytes.first == UInt8(ascii: "+") || bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
            let exponentDigits = bytes.prefix(while: isDigit).count
            guard exponentDigits > 0 else { return false }
            bytes = bytes.dropFirst(exponentDigits)
        }
        return bytes.isEmpty
    }

    private static func text(of characters: ArraySlice<Character>) -> String {
        var text = ""
        for character in characters { text.append(character) }
        return text
    }

    /// `basePosition` is set while expanding an alias: every token then takes the alias's
    /// position, and aliases inside are not expanded again.
    private static func tokenize(_ characters: [Character], original: String, aliases: [String: String],
                                 basePosition: Int?) throws -> [QueryToken] {
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
            if character.isQueryWhitespace {
                index += 1
            } else if character == "[" {
                guard let close = characters[index...].firstIndex(of: "]") else {
                    throw fail("unterminated field: expected ']'", at: start)
                }
                let path = text(of: characters[(index + 1) ..< close])
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
            } else if character.isASCIIDigit || (character == "-" || character == ".")
                        && index + 1 < characters.count && characters[index + 1].isASCIIDigit {
                index += 1
                while index < characters.count,
                      characters[index].isASCIIDigit || characters[index].isASCIILetter || characters[index] == "."
                          || ((characters[index] == "-" || characters[index] == "+")
                              && (characters[index - 1] == "e" || characters[index - 1] == "E")) {
                    index += 1
                }
                let literal = text(of: characters[start ..< index])
                if let integer = Int64(literal) {
                    add(.number(.int(integer)), at: start)
                } else if Self.isDecimal(literal), let double = Double(literal), double.isFinite {
                    add(.number(.double(double)), at: start)
                } else {
                    throw fail("invalid number '\(literal)'", at: start)
                }
            } else if character.isQueryLetter || character == "_" {
                while index < characters.count, characters[index].isQueryLetter || characters[index].isQueryNumber || characters[index] == "_" {
                    index += 1
                }
                let word = text(of: characters[start ..< index])
                if keywords.contains(word.uppercased()) {
                    add(.keyword(word.uppercased()), at: start)
                } else if basePosition == nil, let expansion = aliases[word] {
                    tokens += try tokenize(Self.characters(of: expansion), original: original, aliases: [:], basePosition: start)
                } else {
                    throw fail("unknown word '\(word)': fields are written [name]", at: start)
                }
            } else {
                let two = index + 1 < characters.count ? text(of: characters[index ... index + 1]) : ""
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

private extension Character {
    /// `isWhitespace`, answered without a Unicode property lookup for ASCII.
    var isQueryWhitespace: Bool {
        guard let ascii = asciiValue else { return isWhitespace }
        return ascii == 0x20 || (0x09 ... 0x0D).contains(ascii)
    }

    /// `isLetter`, answered without a Unicode property lookup for ASCII.
    var isQueryLetter: Bool {
        guard isASCII else { return isLetter }
        return isASCIILetter
    }

    /// `isNumber`, answered without a Unicode property lookup for ASCII.
    var isQueryNumber: Bool {
        guard isASCII else { return isNumber }
        return isASCIIDigit
    }

    var isASCIILetter: Bool {
        guard let ascii = asciiValue else { return false }
        return (0x41 ... 0x5A).contains(ascii) || (0x61 ... 0x7A).contains(ascii)
    }

    var isASCIIDigit: Bool {
        guard let ascii = asciiValue else { return false }
        return (0x30 ... 0x39).contains(ascii)
    }
}
