// StoredFieldValue: a field's value as a tool sees it without the Swift class (the schemaless
// decoder's output and the encoder's input).

/// The value of one field of a record, decoded without the Swift class.
///
/// Signed integers are ``integer(_:)``, unsigned ones ``unsignedInteger(_:)``; `Float` and
/// `Double` are ``double(_:)``; a nil optional or a nil reference is ``null``.
///
/// ```swift
/// let values = try schema.decodeContent(record)
/// if case let .string(title)? = values["title"] { print(title) }
/// ```
public indirect enum StoredFieldValue: Sendable, Equatable {
    /// A `Bool`.
    case bool(Bool)
    /// A signed integer of any width.
    case integer(Int64)
    /// An unsigned integer of any width.
    case unsignedInteger(UInt64)
    /// A `Double` or a `Float`.
    case double(Double)
    /// A `String`.
    case string(String)
    /// The bytes of a `Data`.
    case data([UInt8])
    /// A `Date`, as seconds since 1970-01-01 00:00:00 UTC.
    case date(Double)
    /// A reference to the object `rowID` of the class stored as `className`.
    case reference(className: String, rowID: UInt64)
    /// The elements of an array.
    case array([StoredFieldValue])
    /// A nil optional or reference.
    case null
}
