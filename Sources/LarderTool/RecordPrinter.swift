// RecordPrinter: how `larder dump` prints records as they come: a hex dump each (as `hexdump -C`),
// or the elements of a JSON array streamed one per line, so that a class of any size prints in
// flat memory.

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
    let json: Bool
    private var count = 0

    init(className: String, json: Bool) {
        self.className = className
        self.json = json
    }

    mutating func print(_ record: Store.RawRecord) throws {
        if json {
            let element = Record(rowID: record.rowID, version: record.version, size: record.content.count,
                                             hex: record.content.map { Self.hex($0) }.joined())
            Swift.print(count == 0 ? "{\"class\":\(try JSONOutput.text(of: className)),\"records\":[" : ",", terminator: "")
            Swift.print("\n" + (try JSONOutput.text(of: element, compact: true)), terminator: "")
        } else {
            if count > 0 { Swift.print() }
            Swift.print("\(className) \(record.rowID)  version \(record.version)  \(record.content.count) bytes")
            Swift.print(Self.hexDump(record.content), terminator: "")
        }
        count += 1
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
