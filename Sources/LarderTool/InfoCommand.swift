// `larder info PATH`: what a store holds, from its metadata: classes with their record counts,
// rowIDs, sizes and indexes, named buffers, collections and their indexes, format version,
// encryption and last change sequence number.

import ArgumentParser

struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show a store's classes, named buffers, collections, format, encryption and last change.",
        discussion: """
            Reads only the store's metadata and file sizes (record counts are the registry's: \
            'larder verify' checks them against the files). Opens the store read-only.

            Example: larder info /tmp/music.larder --json
            """
    )

    @OptionGroup var store: StoreOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        try reportingFailure(path: store.path) {
            let info = try StoreInfo(opening: store.opener(readOnly: true))
            if output.json {
                try JSONOutput.print(info)
            } else {
                print(info.rendered, terminator: "")
            }
        }
    }
}
