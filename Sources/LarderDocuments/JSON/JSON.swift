// JSON: the value type of documents, with literal conformances and subscripts that read
// through missing keys as null, the way a query reads a path.

/// A JSON value: the content of a document, a query argument, or a field read from one.
///
/// ```swift
/// let doc: JSON = ["name": "Ada", "age": 36, "tags": ["math", "poetry"], "address": ["country": "UK"]]
/// doc["address"]["country"]   // "UK"
/// doc["tags"][1]              // "poetry"
/// doc["missing"]["deeper"]    // .null
/// ```
public enum JSON: Sendable, Hashable {
    /// JSON's `null`; also what a query reads for a missing field.
    ///
    /// ```swift
    /// let nothing: JSON = .null   // or nil
    /// ```
    case null
    /// `true` or `false`.
    ///
    /// ```swift
    /// let flag: JSON = .bool(true)
    /// ```
    case bool(Bool)
    /// An integer. Queries and ``compare(_:_:)`` find it equal to a double of the same
    /// value; `==` (Hashable) is structural: `.int(1) != .double(1)`.
    ///
    /// ```swift
    /// let age: JSON = .int(36)
    /// ```
    case int(Int64)
    /// A floating-point number.
    ///
    /// ```swift
    /// let score: JSON = .double(9.5)
    /// ```
    case double(Double)
    /// A string.
    ///
    /// ```swift
    /// let name: JSON = .string("Ada")
    /// ```
    case string(String)
    /// An array.
    ///
    /// ```swift
    /// let tags: JSON = .array(["math", "poetry"])
    /// ```
    case array([JSON])
    /// An object: a document is one.
    ///
    /// ```swift
    /// let address: JSON = .object(["country": "UK"])
    /// ```
    case object([String: JSON])

    /// The value under `key` of an object; `.null` for a missing key or a value that is not
    /// an object. Setting it on a non-object makes it an object.
    ///
    /// ```swift
    /// var doc: JSON = [:]
    /// doc["name"] = "Ada"
    /// ```
    public subscript(key: String) -> JSON {
        get {
            guard case let .object(members) = self else { return .null }
            return members[key] ?? .null
        }
        set {
            var members: [String: JSON] = [:]
            if case let .object(existing) = self { members = existing }
            members[key] = newValue
            self = .object(members)
        }
    }

    /// The element at `index` of an array; `.null` when out of range or not an array.
    ///
    /// ```swift
    /// let first = doc["tags"][0]
    /// ```
    public subscript(index: Int) -> JSON {
        guard case let .array(elements) = self, elements.indices.contains(index) else { return .null }
        return elements[index]
    }

    /// True for `.null`.
    ///
    /// ```swift
    /// if doc["nickname"].isNull { print("no nickname") }
    /// ```
    public var isNull: Bool { self == .null }

    /// The string, if this is one.
    ///
    /// ```swift
    /// let name = doc["name"].stringValue ?? "?"
    /// ```
    public var stringValue: String? {
        if case let .string(value) = self { return value }
        return nil
    }

    /// The integer, if this is one (or a double with an integral value in range).
    ///
    /// ```swift
    /// let age = doc["age"].intValue ?? 0
    /// ```
    public var intValue: Int64? {
        switch self {
        case let .int(value): return value
        case let .double(value): return Int64(exactly: value)
        default: return nil
        }
    }

    /// The number as a double, if this is a number.
    ///
    /// ```swift
    /// let score = doc["score"].doubleValue ?? 0
    /// ```
    public var doubleValue: Double? {
        switch self {
        case let .int(value): return Double(value)
        case let .double(value): return value
        default: return nil
        }
    }

    /// The Boolean, if this is one.
    ///
    /// ```swift
    /// let active = doc["active"].boolValue ?? false
    /// ```
    public var boolValue: Bool? {
        if case let .bool(value) = self { return value }
        return nil
    }

    /// True for an array (without copying it, as `arrayValue` does).
    var isArray: Bool {
        if case .array = self { return true }
        return false
    }

    /// The elements, if this is an array.
    ///
    /// ```swift
    /// for tag in doc["tags"].arrayValue ?? [] { print(tag) }
    /// ```
    public var arrayValue: [JSON]? {
        if case let .array(value) = self { return value }
        return nil
    }

    /// The members, if this is an object.
    ///
    /// ```swift
    /// let keys = doc.objectValue?.keys.sorted() ?? []
    /// ```
    public var objectValue: [String: JSON]? {
        if case let .object(value) = self { return value }
        return nil
    }
}

extension JSON: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral {
    /// `nil` is `.null`.
    ///
    /// ```swift
    /// let value: JSON = nil
    /// ```
    public init(nilLiteral: ()) { self = .null }

    /// `true` / `false`.
    ///
    /// ```swift
    /// let value: JSON = true
    /// ```
    public init(booleanLiteral value: Bool) { self = .bool(value) }

    /// An integer literal.
    ///
    /// ```swift
    /// let value: JSON = 42
    /// ```
    public init(integerLiteral value: Int64) { self = .int(value) }

    /// A floating-point literal.
    ///
    /// ```swift
    /// let value: JSON = 1.5
    /// ```
    public init(floatLiteral value: Double) { self = .double(value) }

    /// A string literal.
    ///
    /// ```swift
    /// let value: JSON = "Ada"
    /// ```
    public init(stringLiteral value: String) { self = .string(value) }

    /// An array literal.
    ///
    /// ```swift
    /// let value: JSON = [1, "two", nil]
    /// ```
    public init(arrayLiteral elements: JSON...) { self = .array(elements) }

    /// A dictionary literal; a repeated key keeps its last value.
    ///
    /// ```swift
    /// let value: JSON = ["name": "Ada", "age": 36]
    /// ```
    public init(dictionaryLiteral elements: (String, JSON)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension JSON: CustomStringConvertible {
    /// Compact JSON text, object keys sorted.
    ///
    /// ```swift
    /// let value: JSON = ["a": 1]
    /// print(value)   // {"a":1}
    /// ```
    public var description: String {
        switch self {
        case .null: return "null"
        case let .bool(value): return value ? "true" : "false"
        case let .int(value): return String(value)
        case let .double(value): return value.isFinite ? "\(value)" : "null"
        case let .string(value): return Self.quoted(value)
        case let .array(elements): return "[" + elements.map(\.description).joined(separator: ",") + "]"
        case let .object(members):
            let pairs = members.sorted { $0.key < $1.key }.map { Self.quoted($0.key) + ":" + $0.value.description }
            return "{" + pairs.joined(separator: ",") + "}"
        }
    }

    private static func quoted(_ string: String) -> String {
        var result = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
