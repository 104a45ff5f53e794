// The seam between the interchange and field schemas: how a class's records become named JSON
// fields and back. A store asks its `interchangeFields` (an InterchangeFieldCoding) once per
// class for a ClassFieldCoder; nil means the class has no field schema, and its objects are
// exported as their record bytes (base64). The store's coding is `SchemaFieldCoding`: a class
// with a `@StoredModel` schema (in the registry on export, in the file on import) is exchanged
// by named fields, every other class as bytes, so every store round-trips.
//
// A field's value is the schemaless codec's StoredFieldValue; its JSON forms (docs/INTERCHANGE.md,
// "Named fields") are StoredFieldValue+JSON's.

/// One named field of an object.
internal struct InterchangeField: Equatable, Sendable {
    var name: String
    var value: StoredFieldValue
}

/// How the records of one class become named fields and back.
internal struct ClassFieldCoder {
    /// The fields of a record's content, written by class version `version`.
    var fields: (_ content: [UInt8], _ version: UInt8) throws -> [InterchangeField]
    /// The content of a record with `fields`, for class version `version`. Numbers come as the
    /// JSON text had them (`.integer`, `.unsignedInteger` or `.double`): the coder converts them
    /// to its field's type, and throws when it cannot.
    var content: (_ fields: [InterchangeField], _ version: UInt8) throws -> [UInt8]
}

/// Finds the field coder of a class by storage name.
internal protocol InterchangeFieldCoding {
    /// The coder of the class `registered` (its registry entry, with the field schema the
    /// store or the file has for it), or nil when the class is exchanged as bytes.
    func coder(for registered: RegistryEntry, in store: Store) throws -> ClassFieldCoder?
}
