// JSON+Codable: JSON encodes and decodes as itself in any Codable format, and converts to and
// from any Codable value (through Foundation's JSON coders) for the typed convenience API.

import Foundation

extension JSON: Codable {
    /// Decodes whatever JSON value the decoder holds.
    ///
    /// ```swift
    /// let value = try JSONDecoder().decode(JSON.self, from: Data(#"{"a":[1,true]}"#.utf8))
    /// ```
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSON].self) {
            self = .array(value)
        } else if let value = try? container.decode([String: JSON].self) {
            self = .object(value)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a JSON value")
        }
    }

    /// Encodes the value as itself.
    ///
    /// ```swift
    /// let data = try JSONEncoder().encode(JSON.object(["a": 1]))
    /// ```
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case let .bool(value): try container.encode(value)
        case let .int(value): try container.encode(value)
        case let .double(value): try container.encode(value)
        case let .string(value): try container.encode(value)
        case let .array(value): try container.encode(value)
        case let .object(value): try container.encode(value)
        }
    }

    /// The JSON form of an `Encodable` value.
    ///
    /// ```swift
    /// struct User: Codable { var name: String }
    /// let doc = try JSON(encoding: User(name: "Ada"))   // ["name": "Ada"]
    /// ```
    public init(encoding value: some Encodable) throws {
        if let json = value as? JSON {
            self = json
            return
        }
        let data = try JSONEncoder().encode(value)
        self = try JSONDecoder().decode(JSON.self, from: data)
    }

    /// The value of type `T` that this JSON decodes to (extra members such as `__rowid__`
    /// are ignored unless `T` has them).
    ///
    /// ```swift
    /// let user = try doc.decode(as: User.self)
    /// ```
    public func decode<T: Decodable>(as type: T.Type) throws -> T {
        let data = try JSONEncoder().encode(self)
        return try JSONDecoder().decode(T.self, from: data)
    }
}
