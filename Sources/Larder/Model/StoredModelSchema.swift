// StoredModelSchema: the fields of a @StoredModel class, kept in the store's registry
// (`schema/<Class>` in `_store`) so tools decode its records without the Swift class.

/// The fields of a `@StoredModel` class: what the store's registry keeps for it, and what
/// ``decodeContent(_:)`` and ``encodeContent(_:)`` need to read and write its records without
/// the Swift class.
///
/// ```swift
/// if let schema = store.schema(ofClassNamed: "Song") {
///     for field in schema.fields { print(field.name, field.type) }
/// }
/// ```
public struct StoredModelSchema: Sendable, Equatable {
    /// The fields, in the order the class declares them.
    public var fields: [StoredField]

    /// Creates a schema of `fields`.
    ///
    /// ```swift
    /// StoredModelSchema(fields: [StoredField(name: "title", type: .string)])
    /// ```
    public init(fields: [StoredField]) {
        self.fields = fields
    }

    /// The field named `name`, or nil.
    ///
    /// ```swift
    /// schema.field(named: "title")?.type   // .string
    /// ```
    public func field(named name: String) -> StoredField? {
        fields.first { $0.name == name }
    }

    /// Throws unless every field has a supported type, a tag of 29 bits, and a name and tag
    /// of its own.
    ///
    /// ```swift
    /// try schema.validate()
    /// ```
    public func validate() throws(StoredModelError) {
        var names = Set<String>()
        var tags = Set<UInt32>()
        for field in fields {
            guard field.type.isSupported, field.tag <= StoredField.maximumTag else {
                throw .unsupportedType(field: field.name)
            }
            guard names.insert(field.name).inserted, tags.insert(field.tag).inserted else {
                throw .duplicateField(field.name)
            }
        }
    }
}
