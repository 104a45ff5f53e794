// `larder rekey PATH`: rewrites every record of a store under a new passphrase (or none, with
// --decrypt), in one atomic save, then compacts so that no old byte survives. Both passphrases
// come from the environment or the terminal, never the command line.

import ArgumentParser
import Foundation
import Larder

struct RekeyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rekey",
        abstract: "Encrypt a store under a new passphrase (or decrypt it with --decrypt).",
        discussion: """
            The current passphrase (of an encrypted store) comes from LARDER_PASSPHRASE or a \
            prompt; the new one from LARDER_NEW_PASSPHRASE or a prompt, typed twice. Every record \
            is rewritten in one atomic save and the files are compacted. A plaintext store is \
            encrypted. Opens the store for writing.

            Example: LARDER_PASSPHRASE=old LARDER_NEW_PASSPHRASE=new larder rekey /tmp/secret.larder
            """
    )

    @OptionGroup var store: StoreOptions

    @Flag(help: "Remove the encryption: rewrite every record as plaintext.")
    var decrypt = false

    @OptionGroup var output: OutputOptions

    struct Result: Encodable {
        var path: String
        var encrypted: Bool
    }

    func run() throws {
        try reportingFailure(path: store.path) {
            let opener = store.opener(readOnly: false)
            let kind = try opener.kind()
            guard kind != .objectsAndDocuments else { throw ToolError.mixedStore(operation: "rekey") }
            // The store is opened (and its current passphrase asked for) before the new one.
            if kind == .objects {
                let objects = try opener.openObjects()
                defer { try? objects.close() }
                try objects.rekey(to: try newPassphrase())
                try objects.close()
            } else {
                let documents = try opener.openDocuments()
                defer { try? documents.close() }
                try documents.rekey(to: try newPassphrase())
                try documents.close()
            }
            let result = Result(path: store.path, encrypted: !decrypt)
            if output.json {
                try JSONOutput.print(result)
            } else {
                print(decrypt ? "\(store.path) is now plaintext" : "\(store.path) is encrypted under the new passphrase")
            }
        }
    }

    /// The new passphrase: nil with --decrypt; else LARDER_NEW_PASSPHRASE, or typed twice.
    private func newPassphrase() throws -> String? {
        guard !decrypt else { return nil }
        return try Passphrase.readNew(prompt: "New passphrase for \(store.path): ")
    }
}
