// `larder dump PATH --class Song [--rowid N]`: each object's record as stored (the version of the
// class that wrote it and its content bytes, in hex) without the Swift class: what a class's
// `readContent` would be given. Records are read a page at a time, so a class of any size
// streams in flat memory; JSON output streams too.

import ArgumentParser
import Larder

struct DumpCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dump",
        abstract: "Show the records of a class as stored: rowID, version, fields and content bytes.",
        discussion: """
            The bytes are what the class's writeContent wrote (after the record's checksum is \
            checked or its encryption opened): fields in DataBuffer's encoding (docs/FORMAT.md \
            sections 5 and 6). A @StoredModel class, whose field schema the store's registry \
            keeps, shows its fields by name instead, each value in its interchange JSON form \
            (docs/INTERCHANGE.md); with --json, both. Opens the store read-only.

            Example: larder dump /tmp/music.larder --class Song --rowid 7
            """
    )

    @OptionGroup var store: StoreOptions

    @Option(name: .customLong("class"), help: "The class's storage name.")
    var className: String

    @Option(name: .customLong("rowid"), help: "Only the object with this rowID.")
    var rowID: UInt64?

    @OptionGroup var output: OutputOptions

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
            var printer = RecordPrinter(className: className, schema: objects.schema(ofClassNamed: className), json: output.json)
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
