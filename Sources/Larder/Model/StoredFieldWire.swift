// StoredFieldWire: the low 3 bits of a tagged field's key, saying how its value is laid out, so
// a reader can skip a field it does not know. docs/FORMAT.md section 21.

/// How the value of a tagged field is laid out: the low 3 bits of its key.
///
/// ```swift
/// let key = StoredFieldWire.bytes.key(forTag: StoredField.tag(forName: "title"))
/// ```
public enum StoredFieldWire: UInt32, Sendable, CaseIterable {
    /// One byte: `Bool`, `Int8`, `UInt8`.
    case byte = 0
    /// Two bytes, little-endian: `Int16`, `UInt16`.
    case fixed16 = 1
    /// Four bytes, little-endian: `Int32`, `UInt32`, `Float`.
    case fixed32 = 2
    /// Eight bytes, little-endian: `Int`, `Int64`, `UInt`, `UInt64`, `Double`, `Date`.
    case fixed64 = 3
    /// A varint: a reference's rowID (0 for nil).
    case varint = 4
    /// A varint byte count, then the bytes: `String`, `Data`.
    case bytes = 5
    /// No bytes: an optional that is nil.
    case null = 6
    /// A varint byte count, then a varint element count and the elements: an array.
    case sequence = 7

    /// The key of a field with `tag` laid out this way: `tag << 3 | wire`.
    ///
    /// ```swift
    /// StoredFieldWire.null.key(forTag: 1)   // 14
    /// ```
    public func key(forTag tag: UInt32) -> UInt32 { tag << 3 | rawValue }
}
