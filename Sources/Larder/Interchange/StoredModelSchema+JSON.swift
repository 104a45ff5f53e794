// StoredModelSchema+JSON: a class's field schema in an interchange file (docs/INTERCHANGE.md,
// "Field schemas"), so that an import can read the class's named fields, and record the schema
// in the target's registry, without the Swift class. A field is `{"name", "tag", "type"}`; a type
// is its scalar's Swift name (`"Bool"`, `"Int8"` … `"UInt64"`, `"Double"`, `"Float"`, `"String"`,
// `"Data"`, `"Date"`) or an object with one key: `{"reference": storage name}`,
// `{"array": type}`, `{"optional": type}`.

extension StoredModelSchema {
    /// Writes the schema's JSON form: an array of fields.
    func write(to writer: inout JSONTextWriter) {
        writer.raw("[")
        for (position, field) in fields.enumerated() {
            writer.raw(position == 0 ? #"{"name":"# : #",{"name":"#)
            writer.string(field.name)
            writer.raw(#","tag":"#)
            writer.unsigned(UInt64(field.tag))
            writer.raw(#","type":"#)
            field.type.write(to: &writer)
            writer.raw("}")
        }
        writer.raw("]")
    }

    /// The schema a JSON array of fields stands for; nil when it is malformed. The schema is
    /// not validated here (``validate()`` tells what is wrong with one).
    init?(_ json: JSONTextValue) {
        guard case let .array(elements) = json else { return nil }
        var fields: [StoredField] = []
        for element in elements {
            guard case let .object(members) = element, members.map(\.key) == ["name", "tag", "type"],
                  case let .string(name)? = element["name"], let tag = element["tag"].flatMap(Self.tag),
                  let type = element["type"].flatMap(StoredFieldType.init) else { return nil }
            fields.append(StoredField(name: name, tag: tag, type: type))
        }
        self.init(fields: fields)
    }

    private static func tag(_ json: JSONTextValue) -> UInt32? {
        switch json {
        case let .integer(number): UInt32(exactly: number)
        case let .unsignedInteger(number): UInt32(exactly: number)
        default: nil
        }
    }
}

extension StoredFieldType {
    /// The scalar types by their Swift names.
    private static let scalarsByName: [String: StoredFieldType] = [
        "Bool": .bool, "Double": .double, "Float": .float, "String": .string, "Data": .data, "Date": .date,
        "Int8": .int(bits: 8, signed: true), "Int16": .int(bits: 16, signed: true),
        "Int32": .int(bits: 32, signed: true), "Int64": .int(bits: 64, signed: true),
        "UInt8": .int(bits: 8, signed: false), "UInt16": .int(bits: 16, signed: false),
        "UInt32": .int(bits: 32, signed: false), "UInt64": .int(bits: 64, signed: false),
    ]

    /// Writes the type's JSON form.
    func write(to writer: inout JSONTextWriter) {
        switch self {
        case let .reference(className):
            writer.raw(#"{"reference":"#)
            writer.string(className)
            writer.raw("}")
        case let .array(element):
            writer.raw(#"{"array":"#)
            element.write(to: &writer)
            writer.raw("}")
        case let .optional(wrapped):
            writer.raw(#"{"optional":"#)
            wrapped.write(to: &writer)
            writer.raw("}")
        default:
            writer.string(Self.scalarsByName.first { $0.value == self }?.key ?? "?")
        }
    }

    /// The type a JSON value names; nil when it names none.
    init?(_ json: JSONTextValue) {
        switch json {
        case let .string(name):
            guard let scalar = Self.scalarsByName[name] else { return nil }
            self = scalar
        case let .object(members):
            guard members.count == 1, let member = members.first else { return nil }
            switch (member.key, member.value) {
            case let ("reference", .string(className)): self = .reference(className: className)
            case let ("array", element): guard let element = StoredFieldType(element) else { return nil }; self = .array(element)
            case let ("optional", wrapped): guard let wrapped = StoredFieldType(wrapped) else { return nil }; self = .optional(wrapped)
            default: return nil
            }
        default:
            return nil
        }
    }
}
