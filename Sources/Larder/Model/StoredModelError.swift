// StoredModelError: what the schemaless decoder and encoder report when values and a schema do
// not agree. Damaged bytes are DataBufferError, as for every other record.

/// A value that does not fit its field's type, or a field a schema does not have.
///
/// ```swift
/// do { _ = try schema.encodeContent(["title": .integer(1)]) }
/// catch StoredModelError.valueMismatch(let field, _) { print(field) }   // "title"
/// ```
public enum StoredModelError: Error, Equatable, Sendable {
    /// The value given for `field` is not of its type `expected` (or is out of its range).
    case valueMismatch(field: String, expected: StoredFieldType)
    /// The values name a field the schema does not have.
    case unknownField(String)
    /// The schema gives `field` a type no `@StoredModel` class can have.
    case unsupportedType(field: String)
    /// Two fields of the schema share a name or a tag.
    case duplicateField(String)
}

extension StoredModelError: CustomStringConvertible {
    /// A sentence naming the field.
    public var description: String {
        switch self {
        case let .valueMismatch(field, expected): return "the value of '\(field)' is not a \(expected)"
        case let .unknownField(field): return "the schema has no field '\(field)'"
        case let .unsupportedType(field): return "the type of '\(field)' cannot be stored"
        case let .duplicateField(field): return "two fields share the name or tag of '\(field)'"
        }
    }
}
