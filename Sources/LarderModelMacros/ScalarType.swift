// The scalar types @StoredModel stores, with how each is written, read and named in a schema.

struct ScalarType {
    /// The Swift type's name.
    let name: String
    /// How its value is laid out after the key.
    let wire: FieldTag.Wire
    /// The DataBuffer method that reads it.
    let reader: String
    /// Its StoredFieldType, as an expression.
    let schemaType: String
    /// A default value, for a fix-it.
    let defaultValue: String

    static let all: [String: ScalarType] = Dictionary(uniqueKeysWithValues: [
        ScalarType(name: "Bool", wire: .byte, reader: "readBool", schemaType: ".bool", defaultValue: "false"),
        ScalarType(name: "Int8", wire: .byte, reader: "readInt8", schemaType: ".int(bits: 8, signed: true)", defaultValue: "0"),
        ScalarType(name: "UInt8", wire: .byte, reader: "readUInt8", schemaType: ".int(bits: 8, signed: false)", defaultValue: "0"),
        ScalarType(name: "Int16", wire: .fixed16, reader: "readInt16", schemaType: ".int(bits: 16, signed: true)", defaultValue: "0"),
        ScalarType(name: "UInt16", wire: .fixed16, reader: "readUInt16", schemaType: ".int(bits: 16, signed: false)", defaultValue: "0"),
        ScalarType(name: "Int32", wire: .fixed32, reader: "readInt32", schemaType: ".int(bits: 32, signed: true)", defaultValue: "0"),
        ScalarType(name: "UInt32", wire: .fixed32, reader: "readUInt32", schemaType: ".int(bits: 32, signed: false)", defaultValue: "0"),
        ScalarType(name: "Int64", wire: .fixed64, reader: "readInt64", schemaType: ".int(bits: 64, signed: true)", defaultValue: "0"),
        ScalarType(name: "UInt64", wire: .fixed64, reader: "readUInt64", schemaType: ".int(bits: 64, signed: false)", defaultValue: "0"),
        ScalarType(name: "Int", wire: .fixed64, reader: "readInt", schemaType: ".int(bits: 64, signed: true)", defaultValue: "0"),
        ScalarType(name: "UInt", wire: .fixed64, reader: "readUInt", schemaType: ".int(bits: 64, signed: false)", defaultValue: "0"),
        ScalarType(name: "Float", wire: .fixed32, reader: "readFloat", schemaType: ".float", defaultValue: "0"),
        ScalarType(name: "Double", wire: .fixed64, reader: "readDouble", schemaType: ".double", defaultValue: "0"),
        ScalarType(name: "String", wire: .bytes, reader: "readString", schemaType: ".string", defaultValue: "\"\""),
        ScalarType(name: "Data", wire: .bytes, reader: "readData", schemaType: ".data", defaultValue: "Data()"),
        ScalarType(name: "Date", wire: .fixed64, reader: "readDate", schemaType: ".date", defaultValue: "Date()"),
    ].map { ($0.name, $0) })
}
