// StoredField: one field of a @StoredModel class's schema, with the tag its records carry.

/// A field of a `@StoredModel` class: its name, its tag and its type.
///
/// The tag is derived from the name alone (``tag(forName:)``), so reordering, adding or
/// removing properties leaves every other field's tag as it was.
///
/// ```swift
/// let title = StoredField(name: "title", type: .string)
/// title.tag == StoredField.tag(forName: "title")   // true
/// ```
public struct StoredField: Sendable, Equatable {
    /// The property's name.
    public var name: String
    /// The field's tag in records: 29 bits, from ``tag(forName:)``.
    public var tag: UInt32
    /// The kind of value the field holds.
    public var type: StoredFieldType

    /// The largest tag: a key keeps 3 bits for its ``StoredFieldWire``.
    public static let maximumTag: UInt32 = (1 << 29) - 1

    /// Creates a field whose tag is derived from its name.
    ///
    /// ```swift
    /// StoredField(name: "seconds", type: .int(bits: 32, signed: false))
    /// ```
    public init(name: String, type: StoredFieldType) {
        self.init(name: name, tag: Self.tag(forName: name), type: type)
    }

    /// Creates a field with an explicit tag (as the macro writes it, and a schema decodes it).
    ///
    /// ```swift
    /// StoredField(name: "title", tag: 0x0bd1_6a1b, type: .string)
    /// ```
    public init(name: String, tag: UInt32, type: StoredFieldType) {
        self.name = name
        self.tag = tag
        self.type = type
    }

    /// The tag of a field named `name`: the 32-bit FNV-1a hash of its UTF-8 bytes, shifted right
    /// by 3 (29 bits). The `@StoredModel` macro computes the same value at compile time.
    ///
    /// ```swift
    /// StoredField.tag(forName: "title")
    /// ```
    public static func tag(forName name: String) -> UInt32 {
        var hash: UInt32 = 0x811c_9dc5
        for byte in name.utf8 {
            hash ^= UInt32(byte)
            hash = hash &* 0x0100_0193
        }
        return hash >> 3
    }
}
