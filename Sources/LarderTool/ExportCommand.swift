// `larder export PATH FILE`: the object store's saved state as an interchange file, or one
// document collection as JSON Lines with --collection (docs/INTERCHANGE.md). Reads the store
// read-only; the file is written beside FILE and renamed over it once complete.

import ArgumentParser
import Foundation
import Larder
import LarderDocuments

struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write a store's objects (or one collection, with --collection) to a JSON file.",
        discussion: """
            An object store is written in the interchange format: every class's registry \
            (class ID, version, next rowID, deleted rowIDs), every object's record and every \
            named buffer. A document store needs --collection: that collection is written as \
            JSON Lines (its definition, then one document a line). An encrypted store is written \
            DECRYPTED: keep the file as safe as the passphrase. Opens the store read-only; a \
            failed export leaves no partial file. `larder import` reads the file back.

            Example: larder export /tmp/music.larder /tmp/music.json
            """
    )

    @OptionGroup var store: StoreOptions

    @Argument(help: "The file to write (replaced if it exists).")
    var file: String

    @Option(help: "Export this document collection, as JSON Lines.")
    var collection: String?

    @OptionGroup var output: OutputOptions

    struct Result: Encodable {
        var path: String
        var file: String
        var collection: String?
        /// The objects (or documents) written.
        var count: Int
    }

    func run() throws {
        try reportingFailure(path: store.path) {
            let opener = store.opener(readOnly: true)
            let kind = try opener.kind()
            let url = URL(fileURLWithPath: file)
            var result = Result(path: store.path, file: file, collection: collection, count: 0)
            if let collection {
                guard kind.holdsDocuments else { throw ToolError.noSuchCollection(collection, available: []) }
                let documents = try opener.openDocuments()
                defer { try? documents.close() }
                let names = try documents.storedCollectionNames()
                guard names.contains(collection) else { throw ToolError.noSuchCollection(collection, available: names) }
                let found = try documents.collection(collection)
                try found.export(to: url)
                result.count = try found.count()
            } else {
                guard kind.holdsObjects else {
                    let documents = try opener.openDocuments()
                    defer { try? documents.close() }
                    throw ToolError.collectionRequired(available: try documents.storedCollectionNames())
                }
                let objects = try opener.openObjects()
                defer { try? objects.close() }
                try objects.exportInterchange(to: url)
                result.count = try objects.storedClasses().reduce(0) { $0 + $1.recordCount }
            }
            if output.json {
                try JSONOutput.print(result)
            } else {
                let what = collection.map { "\(result.count) documents of \($0)" } ?? "\(result.count) objects"
                print("exported \(what) from \(store.path) to \(file)")
            }
        }
    }
}
