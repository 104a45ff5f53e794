// The seam between the interchange and field schemas: how a class's records become named JSON
// fields and back. A store asks its `interchangeFields` (an InterchangeFieldCoding) once per
// class for a ClassFieldCoder; nil means the class has no field schema, and its objects are
// exported as their record bytes (base64). Until `@StoredModel` schemas are wired in
// (StoredModelSchema, read from the registry by storage name), the store's coding is
// `RecordBytesOnly`: every class goes the base64 way, and every store round-trips.
//
// InterchangeValue mirrors the schema's StoredFieldValue case for case, so that the wiring is
// a mapping and the JSON forms (docs/INTERCHANGE.md, "Named fields") are this file's.

/// One value of a named field, as the interchange writes it in JSON.
internal indirect enum InterchangeValue: Equatable, Sendable {
    case bool(Bool)
    case integer(Int64)
    case unsignedInteger(UInt64)
    case double(Double)
    case string(String)
    case data([UInt8])
    /// Seconds since 1970.
    case date(Double)
    /// An object of the class with this storage name; a reference to nothing is `.null`.
    case reference(className: String, rowID: UInt64)
    case array([InterchangeValue])
    case null
}

/// One named field of an object.
internal struct InterchangeField: Equatable, Sendable {
    var name: String
    var value: InterchangeValue
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
    /// The coder of the class named `className`, or nil when the class has no field schema
    /// (its records are exchanged as bytes).
    func coder(forClass className: String, in store: Store) throws -> ClassFieldCoder?
}

/// No class has a field schema: every record is exchanged as its bytes.
internal struct RecordBytesOnly: InterchangeFieldCoding {
    func coder(forClass className: String, in store: Store) throws -> ClassFieldCoder? { nil }
}
