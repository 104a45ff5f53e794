// RecordPrinter: how `larder dump` prints records as they come: a hex dump each (as `hexdump -C`),
// or the elements of a JSON array streamed one per line, so that a class of any size prints in
// flat memory. A `@StoredModel` class's records (its schema in the store's registry) print their
// fields by name too, each value in its interchange JSON form (docs/INTERCHANGE.md); a record the
// schema cannot decode prints why, with its bytes.

import Larder

/// Prints records as they come: a hex dump each, or the elements of a JSON array.
struct RecordPrinter {
    /// One record in the JSON output.
    struct Record: Encodable {
        var rowID: UInt64
        var version: UInt8
        var size: Int
        var hex: String
    }

    let className: String
    /// The class's field schema, when it is a `@StoredModel` class.
    let schema: StoredModelSchema?
    let json: Bool
    private var count = 0

    init(className: String, schema: StoredModelSchema?, json: Bool) {
        self.className = className
        self.schema = schema
        self.json = json
    }

    mutating func print(_ record: Store.RawRecord) throws {
        let fields = schema.map { schema in Result { try Self.fields(of: record.content, by: schema) } }
        if json {
            let element = Record(rowID: record.rowID, version: record.version, size: record.content.count,
                                             hex: record.content.map { Self.hex($0) }.joined())
            var text = try JSONOutput.text(of: element, compact: true)
            switch fields {
            case let .success(fields)?:
                // The values' JSON comes from the interchange writer: appended before the closing brace.
                text.removeLast()
                text += ",\"fields\":{" + fields.map { "\($0.quotedName):\($0.json)" }.joined(separator: ",") + "}}"
            case let .failure(error)?:
                text.removeLast()
                text += ",\"fieldsError\":" + (try JSONOutput.text(of: "\(error)")) + "}"
            case nil:
                break
            }
            Swift.print(count == 0 ? "{\"class\":\(try JSONOutput.text(of: className)),\"records\":[" : ",", terminator: "")
            Swift.print("\n" + text, terminator: "")
        } else {
            if count > 0 { Swift.print() }
            Swift.print("\(className) \(record.rowID)  version \(record.version)  \(record.content.count) bytes")
            switch fields {
            case let .success(fields)?:
                let width = fields.map(\.name.count).max() ?? 0
                for field in fields {
                    Swift.print("  " + field.name + String(repeating: " ", count: width - field.name.count) + "  " + field.json)
                }
            case let .failure(error)?:
                Swift.print("  fields: cannot decode (\(error))")
                Swift.print(Self.hexDump(record.content), terminator: "")
            case nil:
                Swift.print(Self.hexDump(record.content), terminator: "")
            }
        }
        count += 1
    }

    /// The fields of `content` by `schema`, in the schema's order, each with its name as a JSON
    /// string and its value's JSON.
    private static func fields(of content: [UInt8],
                               by schema: StoredModelSchema) throws -> [(name: String, quotedName: String, json: String)] {
        let values = try schema.decodeContent(content)
        return schema.fields.compactMap { field in
            values[field.name].map { value in
                var name = JSONTextWriter()
                name.string(field.name)
                var writer = JSONTextWriter()
                value.write(to: &writer)
                return (field.name, String(decoding: name.bytes, as: UTF8.self), String(decoding: writer.bytes, as: UTF8.self))
            }
        }
    }

    func finish() throws {
        if json {
            Swift.print(count == 0 ? "{\"class\":\(try JSONOutput.text(of: className)),\"records\":[]}" : "\n]}")
        } else if count == 0 {
            Swift.print("\(className) has no records")
        }
    }

    /// Lines of 16 bytes: offset, hex bytes, and the printable ASCII ones, as `hexdump -C`.
    static func hexDump(_ bytes: [UInt8]) -> String {
        var text = ""
        for start in stride(from: 0, to: bytes.count, by: 16) {
            let line = bytes[start ..< min(start + 16, bytes.count)]
            let offset = String(start, radix: 16)
            var hexes = line.map { hex($0) }
            hexes += Array(repeating: "  ", count: 16 - line.count)
            let ascii = String(line.map { (0x20 ..< 0x7F).contains($0) ? Character(UnicodeScalar($0)) : "." })
            text += "  " + String(repeating: "0", count: max(0, 8 - offset.count)) + offset + "  "
                + hexes[0 ..< 8].joined(separator: " ") + "  " + hexes[8 ..< 16].joined(separator: " ") + "  |" + ascii + "|\n"
        }
        return text
    }

    static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }
}
