// The schemaless codec: a @StoredModel record's content read into values by field name, and
// values written back into content, with a schema and without the Swift class (for tools and
// the interchange format). It reads and writes exactly what the macro's code does.

import Foundation

extension StoredModelSchema {
    /// Seconds from 1970-01-01 to 2001-01-01, the reference date records count from.
    private static let secondsFrom1970To2001 = Date.timeIntervalBetween1970AndReferenceDate

    /// Decodes a record's content (what the class's `writeContent` wrote) into values by field
    /// name. Fields the schema does not have, and fields whose stored layout is not their
    /// type's (the type changed), are skipped; fields the record lacks are absent. Damaged
    /// bytes throw ``DataBufferError``; a schema with an unsupported type throws
    /// ``StoredModelError``.
    ///
    /// ```swift
    /// let values = try schema.decodeContent(content)
    /// values["title"]   // .string("So What")
    /// ```
    public func decodeContent(_ content: [UInt8]) throws -> [String: StoredFieldValue] {
        try validate()
        var byTag: [UInt32: StoredField] = [:]
        for field in fields { byTag[field.tag] = field }
        var buffer = DataBuffer(bytes: content)
        var values: [String: StoredFieldValue] = [:]
        while let key = try buffer.readFieldKey() {
            let wire = StoredFieldWire(rawValue: key & 7) ?? .null
            guard let field = byTag[key >> 3] else {
                try buffer.skipField(key: key)
                continue
            }
            if wire == .null, case .optional = field.type {
                values[field.name] = .null
            } else if wire == field.type.wire {
                values[field.name] = try Self.readValue(of: field.type, from: &buffer)
            } else {
                try buffer.skipField(key: key)
            }
        }
        return values
    }

    /// Encodes values by field name into a record's content, as the class's `writeContent`
    /// would (fields in schema order; a field without a value is left out, and reads as its
    /// default). A value of the wrong kind or out of range throws
    /// ``StoredModelError/valueMismatch(field:expected:)``; a name the schema lacks
    /// ``StoredModelError/unknownField(_:)``.
    ///
    /// ```swift
    /// let content = try schema.encodeContent(["title": .string("So What"), "seconds": .unsignedInteger(562)])
    /// ```
    public func encodeContent(_ values: [String: StoredFieldValue]) throws(StoredModelError) -> [UInt8] {
        try validate()
        for name in values.keys where field(named: name) == nil { throw .unknownField(name) }
        var buffer = DataBuffer()
        for field in fields {
            guard let value = values[field.name] else { continue }
            if value == .null, case .optional = field.type {
                buffer.writeFieldKey(StoredFieldWire.null.key(forTag: field.tag))
                continue
            }
            buffer.writeFieldKey(field.type.wire.key(forTag: field.tag))
            guard Self.write(value, of: field.type, to: &buffer) else {
                throw .valueMismatch(field: field.name, expected: field.type)
            }
        }
        return buffer.bytes
    }

    // MARK: Reading

    private static func readValue(of type: StoredFieldType, from buffer: inout DataBuffer) throws -> StoredFieldValue {
        switch type {
        case .bool: return .bool(try buffer.readBool())
        case let .int(bits, signed):
            switch (bits, signed) {
            case (8, true): return .integer(Int64(try buffer.readInt8()))
            case (16, true): return .integer(Int64(try buffer.readInt16()))
            case (32, true): return .integer(Int64(try buffer.readInt32()))
            case (_, true): return .integer(try buffer.readInt64())
            case (8, false): return .unsignedInteger(UInt64(try buffer.readUInt8()))
            case (16, false): return .unsignedInteger(UInt64(try buffer.readUInt16()))
            case (32, false): return .unsignedInteger(UInt64(try buffer.readUInt32()))
            case (_, false): return .unsignedInteger(try buffer.readUInt64())
            }
        case .double: return .double(try buffer.readDouble())
        case .float: return .double(Double(try buffer.readFloat()))
        case .string: return .string(try buffer.readString())
        case .data: return .data(try buffer.readBytes())
        case .date: return .date(try buffer.readDouble() + secondsFrom1970To2001)
        case let .reference(className):
            let rowID = try buffer.readVarInt()
            return rowID == 0 ? .null : .reference(className: className, rowID: rowID)
        case let .array(.reference(className)):
            let rowIDs = try buffer.readLengthPrefixed { buffer in
                try buffer.readVarIntArray(count: try buffer.readCount()).values
            }
            return .array(rowIDs.map { $0 == 0 ? .null : .reference(className: className, rowID: $0) })
        case let .array(element):
            return .array(try buffer.readSequence { try readValue(of: element, from: &$0) })
        case let .optional(wrapped):
            return try readValue(of: wrapped, from: &buffer)
        }
    }

    // MARK: Writing

    /// Writes `value` as `type` lays it out; false when it does not fit the type.
    private static func write(_ value: StoredFieldValue, of type: StoredFieldType, to buffer: inout DataBuffer) -> Bool {
        switch (type, value) {
        case let (.bool, .bool(flag)): buffer.write(flag)
        case let (.int(bits, signed), _):
            return writeInteger(value, bits: bits, signed: signed, to: &buffer)
        case let (.double, .double(number)): buffer.write(number)
        case let (.float, .double(number)):
            guard let float = Float(exactly: number) ?? (number.isNaN ? Float.nan : nil) else { return false }
            buffer.write(float)
        case let (.string, .string(text)): buffer.write(text)
        case let (.data, .data(bytes)): buffer.write(bytes)
        case let (.date, .date(seconds)): buffer.write(seconds - secondsFrom1970To2001)
        case (.reference, .null): buffer.writeVarInt(0)
        case let (.reference(className), .reference(otherName, rowID)) where className == otherName:
            buffer.writeVarInt(rowID)
        case let (.array(element), .array(elements)):
            var fits = true
            buffer.writeSequence(elements) { buffer, item in
                if fits { fits = write(item, of: element, to: &buffer) }
            }
            return fits
        case let (.optional(wrapped), _):
            return write(value, of: wrapped, to: &buffer)
        default:
            return false
        }
        return true
    }

    private static func writeInteger(_ value: StoredFieldValue, bits: Int, signed: Bool, to buffer: inout DataBuffer) -> Bool {
        let wide: Int64?
        let unsignedWide: UInt64?
        switch value {
        case let .integer(number): (wide, unsignedWide) = (number, UInt64(exactly: number))
        case let .unsignedInteger(number): (wide, unsignedWide) = (Int64(exactly: number), number)
        default: return false
        }
        switch (bits, signed) {
        case (8, true): guard let v = wide.flatMap({ Int8(exactly: $0) }) else { return false }; buffer.write(v)
        case (16, true): guard let v = wide.flatMap({ Int16(exactly: $0) }) else { return false }; buffer.write(v)
        case (32, true): guard let v = wide.flatMap({ Int32(exactly: $0) }) else { return false }; buffer.write(v)
        case (_, true): guard let v = wide else { return false }; buffer.write(v)
        case (8, false): guard let v = unsignedWide.flatMap({ UInt8(exactly: $0) }) else { return false }; buffer.write(v)
        case (16, false): guard let v = unsignedWide.flatMap({ UInt16(exactly: $0) }) else { return false }; buffer.write(v)
        case (32, false): guard let v = unsignedWide.flatMap({ UInt32(exactly: $0) }) else { return false }; buffer.write(v)
        case (_, false): guard let v = unsignedWide else { return false }; buffer.write(v)
        }
        return true
    }
}
