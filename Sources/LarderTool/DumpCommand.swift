// `larder dump PATH --class Song [--rowid N]`: each object's record as stored (the version of the
// class that wrote it and its content bytes, in hex) without the Swift class: what a class's
// `readContent` would be given. Records are read a page at a time, so a class of any size
// streams in flat memory; JSON output streams too.

import ArgumentParser
import Larder

struct DumpCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dump",
        abstract: "Show the records of a class as stored: rowID, version and content bytes (hex).",
        discussion: """
            The bytes are what the class's writeContent wrote (after the record's checksum is \
            checked or its encryption opened): fields in DataBuffer's encoding (docs/FORMAT.md \
            sections 5 and 6). Opens the store read-only.

            Example: larder dump /tmp/music.larder --class Song --rowid 7
            """
    )

    @OptionGroup var store: StoreOptions

    @Option(name: .customLong("class"), help: "The class's storage name.")
    var className: String

    @Option(name: .customLong("rowid"), help: "Only the object with this rowID.")
    var rowID: UInt64?

    @OptionGroup var output: OutputOptions

    /// One record in the JSON output.
    struct Record: Encodable {
        var rowID: UInt64
        var version: UInt8
        var size: Int
        var hex: String
    }

    func run() throws {
        try reportingFailure(path: store.path) {
            let opener = store.opener(readOnly: true)
            guard try opener.kind().holdsObjects else {
                throw ToolError.noSuchClass(className, available: [])
            }
            let objects = try opener.openObjects()
            defer { try? objects.close() }
            guard objects.storedClassNames.contains(className) else {
                throw ToolError.noSuchClass(className, available: objects.storedClassNames)
            }
            var printer = RecordPrinter(className: className, json: output.json)
            if let rowID {
                guard let record = try objects.rawRecord(ofClassNamed: className, rowID: rowID) else {
                    throw ToolError.noRecord(class: className, rowID: rowID)
                }
                try printer.print(record)
            } else {
                try objects.forEachRawRecord(ofClassNamed: className) { try printer.print($0) }
            }
            try printer.finish()
        }
    }
}

/// Prints records as they come: a hex dump each, or the elements of a JSON array.
private struct RecordPrinter {
    let className: String
    let json: Bool
    private var count = 0

    init(className: String, json: Bool) {
        self.className = className
        self.json = json
    }

    mutating func print(_ record: Store.RawRecord) throws {
        if json {
            let element = DumpCommand.Record(rowID: record.rowID, version: record.version, size: record.content.count,
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
