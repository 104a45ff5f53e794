// The registry record of a @StoredModel class's schema: key `schema/<storage name>` in `_store`.
// docs/FORMAT.md section 21.3 has the layout.

extension StoredModelSchema {
    /// The layout version written first in the record.
    internal static let recordVersion: UInt64 = 1
    /// How deep types may nest in a record (an array of optionals is 2).
    private static let maximumTypeDepth = 2

    /// The key of the schema record of the class stored as `name`.
    static func key(for name: String) -> [UInt8] { Array(("schema/" + name).utf8) }

    /// The class name in a metadata key, or nil when the key is not a schema record's.
    static func className(inKey key: UnsafeRawBufferPointer) -> String? {
        let prefix = Array("schema/".utf8)
        guard key.count > prefix.count, key.starts(with: prefix) else { return nil }
        return String(validating: key[prefix.count...], as: UTF8.self)
    }

    /// The record's content: version, field count, then each field's name, tag and type.
    func encoded() -> DataBuffer {
        var buffer = DataBuffer()
        buffer.writeVarInt(Self.recordVersion)
        buffer.writeVarInt(UInt64(fields.count))
        for field in fields {
            buffer.write(field.name)
            buffer.writeVarInt(UInt64(field.tag))
            Self.write(field.type, to: &buffer)
        }
        return buffer
    }

    /// Decodes a record; throws ``DataBufferError`` or ``StoredModelError`` for damage.
    init(decoding buffer: inout DataBuffer) throws {
        let version = try buffer.readVarInt()
        guard version == Self.recordVersion else { throw DataBufferError.valueOutOfRange(offset: 0) }
        let count = try buffer.readCount()
        var fields: [StoredField] = []
        fields.reserveCapacity(count)
        for _ in 0 ..< count {
            let name = try buffer.readString()
            let offset = buffer.readPosition
            guard let tag = UInt32(exactly: try buffer.readVarInt()) else { throw DataBufferError.valueOutOfRange(offset: offset) }
            fields.append(StoredField(name: name, tag: tag, type: try Self.readType(from: &buffer, depth: 0)))
        }
        guard buffer.remainingCount == 0 else { throw DataBufferError.valueOutOfRange(offset: buffer.readPosition) }
        self.init(fields: fields)
        try validate()
    }

    private enum TypeCode: UInt8 {
        case bool = 1, int, double, float, string, data, date, reference, array, optional
    }

    private static func write(_ type: StoredFieldType, to buffer: inout DataBuffer) {
        switch type {
        case .bool: buffer.write(TypeCode.bool.rawValue)
        case let .int(bits, signed):
            buffer.write(TypeCode.int.rawValue)
            buffer.write(UInt8(clamping: bits))
            buffer.write(signed)
        case .double: buffer.write(TypeCode.double.rawValue)
        case .float: buffer.write(TypeCode.float.rawValue)
        case .string: buffer.write(TypeCode.string.rawValue)
        case .data: buffer.write(TypeCode.data.rawValue)
        case .date: buffer.write(TypeCode.date.rawValue)
        case let .reference(className):
            buffer.write(TypeCode.reference.rawValue)
            buffer.write(className)
        case let .array(element):
            buffer.write(TypeCode.array.rawValue)
            write(element, to: &buffer)
        case let .optional(wrapped):
            buffer.write(TypeCode.optional.rawValue)
            write(wrapped, to: &buffer)
        }
    }

    private static func readType(from buffer: inout DataBuffer, depth: Int) throws -> StoredFieldType {
        let offset = buffer.readPosition
        guard let code = TypeCode(rawValue: try buffer.readUInt8()) else { throw DataBufferError.valueOutOfRange(offset: offset) }
        switch code {
        case .bool: return .bool
        case .int: return .int(bits: Int(try buffer.readUInt8()), signed: try buffer.readBool())
        case .double: return .double
        case .float: return .float
        case .string: return .string
        case .data: return .data
        case .date: return .date
        case .reference: return .reference(className: try buffer.readString())
        case .array, .optional:
            guard depth < maximumTypeDepth else { throw DataBufferError.valueOutOfRange(offset: offset) }
            let inner = try readType(from: &buffer, depth: depth + 1)
            return code == .array ? .array(inner) : .optional(inner)
        }
    }
}
