// `larder compact PATH`: rewrites the store's files without their free space, atomically
// (Store.compact / DocumentStore.compact), and says how much smaller the store is.

import ArgumentParser

struct CompactCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compact",
        abstract: "Rewrite a store's files without their free space (atomically).",
        discussion: """
            Opens the store for writing: it fails (exit status 75) while any other process has \
            it open, unless --wait gives it time to close it. A crash at any point leaves the \
            old files or the new ones, whole.

            Example: larder compact /tmp/music.larder
            """
    )

    @OptionGroup var store: StoreOptions
    @OptionGroup var output: OutputOptions

    struct Result: Encodable {
        var path: String
        var bytesBefore: Int
        var bytesAfter: Int
    }

    func run() throws {
        try reportingFailure(path: store.path) {
            let opener = store.opener(readOnly: false)
            let before = opener.directorySize()
            // One backend holds every file: either store's compaction rewrites them all.
            if try opener.kind().holdsObjects {
                let objects = try opener.openObjects()
                defer { try? objects.close() }
                try objects.compact()
                try objects.close()
            } else {
                let documents = try opener.openDocuments()
                defer { try? documents.close() }
                try documents.compact()
                try documents.close()
            }
            let result = Result(path: store.path, bytesBefore: before, bytesAfter: opener.directorySize())
            if output.json {
                try JSONOutput.print(result)
            } else {
                print("compacted \(store.path): \(ByteCount.readable(result.bytesBefore)) → \(ByteCount.readable(result.bytesAfter))")
            }
        }
    }
}
