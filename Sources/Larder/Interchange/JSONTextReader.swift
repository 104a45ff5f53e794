// JSONTextReader: a streaming reader of JSON text (RFC 8259), from a file read in chunks of
// 64 KB or from bytes in memory, so that a file of any size is read in flat memory. It is a
// cursor: the caller says what it expects next (an object, its next key, an array's next
// element, a string, a number, or any value as a JSONTextValue) and the reader checks the
// syntax as it goes, tracking line, column and byte offset for errors. The object interchange
// (Store+InterchangeImport) and the documents' JSON Lines import both read through it: the one
// JSON text parser of the package. Every byte is hostile: malformed text is an
// InterchangeError.malformedJSON with its position, never a trap.

import Glibc

/// Reads JSON text one value at a time.
///
/// ```swift
/// var reader = JSONTextReader(bytes: Array(#"{"a": [1, 2]}"#.utf8))
/// try reader.beginObject()
/// while let key = try reader.nextKey() { print(key, try reader.readValue()) }
/// try reader.finish()
/// ```
package struct JSONTextReader {
    /// How deeply values may nest (arrays and objects inside each other).
    package static let maximumDepth = 128
    /// The longest number accepted, in characters.
    private static let maximumNumberLength = 400
    private static let chunkSize = 1 << 16

    private var buffer: [UInt8]
    private var index = 0
    /// The byte offset of `buffer[0]` in the text.
    private var bufferStart = 0
    private var line = 1
    /// The byte offset at which the current line starts.
    private var lineStart = 0
    private let file: ReadableFile?
    /// For each open array or object: whether no element has been read from it yet.
    private var isFirst: [Bool] = []
    private var scratch: [UInt8] = []

    /// A reader of `bytes`.
    package init(bytes: [UInt8]) {
        buffer = bytes
        file = nil
    }

    /// A reader of the file at `path`; throws ``InterchangeError/fileFailure(path:reason:)``
    /// when it cannot be opened.
    package init(path: String) throws {
        file = try ReadableFile(path: path)
        buffer = []
    }

    /// Where the reader stands: the next byte it will read.
    package var position: TextPosition {
        let offset = bufferStart + index
        return TextPosition(line: line, column: offset - lineStart + 1, byteOffset: offset)
    }

    /// Skips whitespace and returns the position of the next value or punctuation.
    package mutating func positionOfNext() throws -> TextPosition {
        try skipWhitespace()
        return position
    }

    // MARK: Structure

    /// Reads `{`.
    package mutating func beginObject() throws {
        try expect(UInt8(ascii: "{"), "an object")
        isFirst.append(true)
        guard isFirst.count <= Self.maximumDepth else { throw malformed("values nest too deeply") }
    }

    /// The key of the object's next member, its `:` read; nil (and the `}` read) when the
    /// object ends.
    package mutating func nextKey() throws -> String? {
        try skipWhitespace()
        guard let first = isFirst.last else { throw malformed("no object is open") }
        if try peek() == UInt8(ascii: "}") {
            advance()
            isFirst.removeLast()
            return nil
        }
        if !first { try expect(UInt8(ascii: ","), "',' or '}'") }
        isFirst[isFirst.count - 1] = false
        let key = try readString()
        try expect(UInt8(ascii: ":"), "':'")
        return key
    }

    /// Reads `[`.
    package mutating func beginArray() throws {
        try expect(UInt8(ascii: "["), "an array")
        isFirst.append(true)
        guard isFirst.count <= Self.maximumDepth else { throw malformed("values nest too deeply") }
    }

    /// Whether the array has another element (its `,` read); false (and the `]` read) when it
    /// ends.
    package mutating func nextElement() throws -> Bool {
        try skipWhitespace()
        guard let first = isFirst.last else { throw malformed("no array is open") }
        if try peek() == UInt8(ascii: "]") {
            advance()
            isFirst.removeLast()
            return false
        }
        if !first { try expect(UInt8(ascii: ","), "',' or ']'") }
        isFirst[isFirst.count - 1] = false
        return true
    }

    /// Checks that only whitespace is left.
    package mutating func finish() throws {
        try skipWhitespace()
        guard try peek() == nil else { throw malformed("unexpected text after the end") }
    }

    /// Whether only whitespace is left (the end of a JSON Lines file).
    package mutating func isAtEnd() throws -> Bool {
        try skipWhitespace()
        return try peek() == nil
    }

    // MARK: Values

    /// Reads a string.
    package mutating func readString() throws -> String {
        try expect(UInt8(ascii: "\""), "a string")
        scratch.removeAll(keepingCapacity: true)
        while true {
            guard let byte = try peek() else { throw malformed("the text ends inside a string") }
            advance()
            switch byte {
            case UInt8(ascii: "\""):
                guard let string = String(validating: scratch, as: UTF8.self) else { throw malformed("a string is not UTF-8") }
                return string
            case UInt8(ascii: "\\"):
                try readEscape()
            case ..<0x20:
                throw malformed("a control character inside a string")
            default:
                scratch.append(byte)
            }
        }
    }

    /// Reads a number, `true`, `false`, `null`, string, array or object.
    package mutating func readValue() throws -> JSONTextValue {
        try skipWhitespace()
        guard let byte = try peek() else { throw malformed("the text ends where a value belongs") }
        switch byte {
        case UInt8(ascii: "{"):
            try beginObject()
            var members: [JSONTextValue.Member] = []
            while let key = try nextKey() { members.append(.init(key: key, value: try readValue())) }
            return .object(members)
        case UInt8(ascii: "["):
            try beginArray()
            var elements: [JSONTextValue] = []
            while try nextElement() { elements.append(try readValue()) }
            return .array(elements)
        case UInt8(ascii: "\""):
            return .string(try readString())
        case UInt8(ascii: "t"):
            try readWord("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try readWord("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try readWord("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0") ... UInt8(ascii: "9"):
            return try readNumber()
        default:
            throw malformed("expected a value")
        }
    }

    /// Reads an unsigned integer (a number without fraction or exponent).
    package mutating func readUnsigned(_ what: String) throws -> UInt64 {
        let start = try positionOfNext()
        switch try readValue() {
        case let .integer(value) where value >= 0: return UInt64(value)
        case let .unsignedInteger(value): return value
        default: throw InterchangeError.invalidStructure(reason: "\(what) must be an integer from 0 to \(UInt64.max)", at: start)
        }
    }

    // MARK: Private

    private mutating func readNumber() throws -> JSONTextValue {
        scratch.removeAll(keepingCapacity: true)
        var isInteger = true
        func digits(_ reader: inout JSONTextReader) throws -> Int {
            var count = 0
            while let byte = try reader.peek(), byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                reader.scratch.append(byte)
                reader.advance()
                count += 1
                guard reader.scratch.count <= Self.maximumNumberLength else { throw reader.malformed("a number is too long") }
            }
            return count
        }
        if try peek() == UInt8(ascii: "-") {
            scratch.append(UInt8(ascii: "-"))
            advance()
        }
        let leading = try peek()
        let integerDigits = try digits(&self)
        guard integerDigits > 0 else { throw malformed("a number has no digits") }
        if leading == UInt8(ascii: "0") && integerDigits > 1 { throw malformed("a number has a leading zero") }
        if try peek() == UInt8(ascii: ".") {
            isInteger = false
            scratch.append(UInt8(ascii: "."))
            advance()
            guard try digits(&self) > 0 else { throw malformed("a number has no digits after its point") }
        }
        if let byte = try peek(), byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
            isInteger = false
            scratch.append(byte)
            advance()
            if let sign = try peek(), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
                scratch.append(sign)
                advance()
            }
            guard try digits(&self) > 0 else { throw malformed("a number has no digits in its exponent") }
        }
        let text = String(decoding: scratch, as: UTF8.self)
        if isInteger {
            if let value = Int64(text) { return .integer(value) }
            if let value = UInt64(text) { return .unsignedInteger(value) }
        }
        guard let value = Double(text), value.isFinite else { throw malformed("a number is out of range") }
        return .double(value)
    }

    private mutating func readEscape() throws {
        guard let byte = try peek() else { throw malformed("the text ends inside a string") }
        advance()
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(byte)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            var value = try readHex4()
            if (0xD800 ... 0xDBFF).contains(value) {
                // A high surrogate must be followed by an escaped low one.
                guard try peek() == UInt8(ascii: "\\") else { throw malformed("a lone surrogate in a string") }
                advance()
                guard try peek() == UInt8(ascii: "u") else { throw malformed("a lone surrogate in a string") }
                advance()
                let low = try readHex4()
                guard (0xDC00 ... 0xDFFF).contains(low) else { throw malformed("a lone surrogate in a string") }
                value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00 ... 0xDFFF).contains(value) {
                throw malformed("a lone surrogate in a string")
            }
            guard let scalar = Unicode.Scalar(value) else { throw malformed("an invalid \\u escape") }
            scratch.append(contentsOf: String(Character(scalar)).utf8)
        default:
            throw malformed("an invalid escape in a string")
        }
    }

    private mutating func readHex4() throws -> UInt32 {
        var value: UInt32 = 0
        for _ in 0 ..< 4 {
            guard let byte = try peek() else { throw malformed("the text ends inside a string") }
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0") ... UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a") ... UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A") ... UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw malformed("an invalid \\u escape")
            }
            advance()
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    private mutating func readWord(_ word: StaticString) throws {
        let start = position
        for expected in UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount) {
            guard try peek() == expected else { throw InterchangeError.malformedJSON(reason: "expected a value", at: start) }
            advance()
        }
    }

    private mutating func expect(_ byte: UInt8, _ what: String) throws {
        try skipWhitespace()
        guard try peek() == byte else { throw malformed("expected \(what)") }
        advance()
    }

    private mutating func skipWhitespace() throws {
        while let byte = try peek() {
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
                advance()
            case UInt8(ascii: "\n"):
                advance()
                line += 1
                lineStart = bufferStart + index
            default:
                return
            }
        }
    }

    /// The next byte, reading the next chunk of the file when the buffer is used up; nil at
    /// the end of the text.
    @inline(__always)
    private mutating func peek() throws -> UInt8? {
        if index < buffer.count { return buffer[index] }
        guard let file else { return nil }
        bufferStart += buffer.count
        index = 0
        try file.read(upTo: Self.chunkSize, into: &buffer)
        return buffer.first
    }

    @inline(__always)
    private mutating func advance() { index += 1 }

    private func malformed(_ reason: String) -> InterchangeError {
        .malformedJSON(reason: reason, at: position)
    }
}

/// A file open for reading, closed when the last reader holding it goes.
private final class ReadableFile {
    private let descriptor: Int32
    private let path: String

    init(path: String) throws {
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        self.path = path
        guard descriptor >= 0 else {
            throw InterchangeError.fileFailure(path: path, reason: String(cString: strerror(errno)))
        }
    }

    deinit { close(descriptor) }

    /// Replaces `bytes` with the next (at most) `count` bytes of the file: empty at its end.
    func read(upTo count: Int, into bytes: inout [UInt8]) throws {
        bytes.removeAll(keepingCapacity: true)
        try withUnsafeTemporaryAllocation(byteCount: count, alignment: 1) { space in
            while true {
                let result = Glibc.read(descriptor, space.baseAddress, count)
                if result < 0 {
                    if errno == EINTR { continue }
                    throw InterchangeError.fileFailure(path: path, reason: String(cString: strerror(errno)))
                }
                bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: space[..<result]))
                return
            }
        }
    }
}
