// SchemaFieldCoding: the store's interchange field coding. A class with a `@StoredModel` field
// schema (the registry's on export, the file's on import) is exchanged by named fields through
// the schemaless codec (StoredModelSchema+Content), in schema order, so that the same records
// always give the same text; a class without one is exchanged as its record bytes.

/// Named fields for every class with a field schema.
internal struct SchemaFieldCoding: InterchangeFieldCoding {
    func coder(for registered: RegistryEntry, in store: Store) throws -> ClassFieldCoder? {
        guard let schema = registered.schema else { return nil }
        return ClassFieldCoder(fields: { content, _ in
            let values = try schema.decodeContent(content)
            return schema.fields.compactMap { field in
                values[field.name].map { InterchangeField(name: field.name, value: $0) }
            }
        }, content: { fields, _ in
            var values: [String: StoredFieldValue] = [:]
            for field in fields {
                // A name the schema lacks is kept as is: encodeContent refuses it by name.
                let type = schema.field(named: field.name)?.type
                values[field.name] = type.map { Self.value(field.value, readAs: $0) } ?? field.value
            }
            return try schema.encodeContent(values)
        })
    }

    /// `value` as JSON text gave it, made the kind `type` holds where JSON cannot tell: a whole
    /// number in a floating-point field (`3` for `3.0`).
    private static func value(_ value: StoredFieldValue, readAs type: StoredFieldType) -> StoredFieldValue {
        switch (type, value) {
        case let (.double, .integer(number)), let (.float, .integer(number)): .double(Double(number))
        case let (.double, .unsignedInteger(number)), let (.float, .unsignedInteger(number)): .double(Double(number))
        case let (.optional(wrapped), _): Self.value(value, readAs: wrapped)
        case let (.array(element), .array(elements)): .array(elements.map { Self.value($0, readAs: element) })
        default: value
        }
    }
}
