// `larder import PATH FILE`: an interchange file (or, with --collection, a collection's JSON
// Lines) read into a new or empty store: the one command that creates a store, and only where
// PATH does not exist yet. A new store is encrypted with --encrypt; an existing encrypted one
// is opened with its passphrase as by every command. Bad input is reported as FILE:LINE:COLUMN
// and leaves nothing behind: a store this command created is removed again.

import ArgumentParser
import Foundation
import Larder
import LarderDocuments

struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Read a file written by export into a new or empty store.",
        discussion: """
            When PATH does not exist, a store is created there (its parent directory must \
            exist); an existing PATH must be a store, and an empty one: objects go into a store \
            with no class and no named buffer, a collection into a store of documents that lacks \
            it. Every rowID, class ID and deleted rowID of the file is kept. --encrypt encrypts \
            the new store under a passphrase from LARDER_NEW_PASSPHRASE or typed twice. The file \
            is checked whole before anything is written: bad input (exit status 65) is reported \
            as FILE:LINE:COLUMN and changes nothing. A progress bar on a terminal.

            Example: larder import /tmp/copy.larder /tmp/music.json
            """
    )

    @OptionGroup var store: StoreOptions

    @Argument(help: "The file to read, written by `larder export`.")
    var file: String

    @Option(help: "Import the file as this document collection (JSON Lines).")
    var collection: String?

    @Flag(help: "Encrypt the new store (the passphrase from LARDER_NEW_PASSPHRASE or a prompt).")
    var encrypt = false

    @Flag(help: "Draw no progress bar, even on a terminal.")
    var noProgress = false

    @OptionGroup var output: OutputOptions

    struct Result: Encodable {
        var path: String
        var file: String
        var collection: String?
        /// The objects (or documents) imported.
        var count: Int
        /// Whether PATH was created.
        var created: Bool
        var encrypted: Bool
    }

    func run() throws {
        try reportingFailure(path: store.path) {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory) else {
                throw ToolError.unreadableFile(file, reason: "no such file")
            }
            guard !isDirectory.boolValue else { throw ToolError.unreadableFile(file, reason: "is a directory") }
            let result: Result
            if FileManager.default.fileExists(atPath: store.path) {
                guard !encrypt else { throw ToolError.encryptingExistingStore(path: store.path) }
                result = try importIntoExistingStore()
            } else {
                result = try importIntoNewStore()
            }
            if output.json {
                try JSONOutput.print(result)
            } else {
                let what = collection.map { "\(result.count) documents into collection \($0) of" } ?? "\(result.count) objects into"
                print("imported \(what) \(result.created ? "new store " : "")\(store.path)\(result.encrypted ? " (encrypted)" : "")")
            }
        }
    }

    // MARK: Private

    /// Creates the store directory (its parent must exist), imports, and removes the directory
    /// again if the import fails.
    private func importIntoNewStore() throws -> Result {
        let parent = (store.path as NSString).deletingLastPathComponent
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: parent.isEmpty ? "." : parent, isDirectory: &isDirectory),
              isDirectory.boolValue else {
            throw ToolError.notAStore(path: store.path, reason: "no such file or directory, and no parent directory to create it in")
        }
        // Asked before anything is created, so that a refused passphrase leaves nothing.
        let passphrase = encrypt ? try newPassphrase() : nil
        // Made here, not by the store, so that this command owns the directory it may remove.
        do {
            try FileManager.default.createDirectory(atPath: store.path, withIntermediateDirectories: false)
        } catch {
            throw ToolError.notAStore(path: store.path, reason: "cannot create the directory: \(error.localizedDescription)")
        }
        var configuration = Store.Configuration(lockTimeout: store.lockTimeout ?? 0)
        configuration.encryptionKey = passphrase
        do {
            let count: Int
            if let collection {
                let documents = try DocumentStore(path: store.path, configuration: configuration)
                defer { try? documents.close() }
                count = try importCollection(collection, into: documents)
                try documents.close()
            } else {
                let objects = try Store(path: store.path, configuration: configuration)
                defer { try? objects.close() }
                count = try importObjects(into: objects)
                try objects.close()
            }
            return Result(path: store.path, file: file, collection: collection, count: count, created: true,
                          encrypted: passphrase != nil)
        } catch {
            try? FileManager.default.removeItem(atPath: store.path)
            throw error
        }
    }

    /// Imports into the existing store at PATH, which must be empty of what the file holds.
    private func importIntoExistingStore() throws -> Result {
        let opener = store.opener(readOnly: false)
        let keys = try opener.metadataKeys()
        let kind = StoreKind(metadataKeys: keys)
        let count: Int
        let encrypted: Bool
        if let collection {
            // A store nothing was saved in yet is neither kind; one with objects takes no documents.
            guard kind == .documents || keys.isEmpty else {
                throw InterchangeError.targetNotEmpty(reason: "it is an object store")
            }
            let documents = try opener.openDocuments()
            defer { try? documents.close() }
            encrypted = documents.isEncrypted
            count = try importCollection(collection, into: documents)
            try documents.close()
        } else {
            guard !kind.holdsDocuments else { throw InterchangeError.targetNotEmpty(reason: "it holds document collections") }
            let objects = try opener.openObjects()
            defer { try? objects.close() }
            encrypted = objects.isEncrypted
            count = try importObjects(into: objects)
            try objects.close()
        }
        return Result(path: store.path, file: file, collection: collection, count: count, created: false, encrypted: encrypted)
    }

    /// Reads the interchange file into `objects`, with a bar over both passes; the number of
    /// objects imported.
    private func importObjects(into objects: Store) throws -> Int {
        let bar = ProgressBar(label: "importing", enabled: !noProgress)
        defer { bar?.finish() }
        try reportingPosition {
            try objects.importInterchange(from: URL(fileURLWithPath: file)) { progress in
                let done = progress.objects + (progress.phase == .writing ? progress.totalObjects : 0)
                bar?.update(done, of: 2 * progress.totalObjects)
            }
        }
        return try objects.storedClasses().reduce(0) { $0 + $1.recordCount }
    }

    /// Reads the JSON Lines file into the collection `name` of `documents`; the number of
    /// documents imported.
    private func importCollection(_ name: String, into documents: DocumentStore) throws -> Int {
        let target = try documents.collection(name)
        try reportingPosition { try target.import(from: URL(fileURLWithPath: file)) }
        return try target.count()
    }

    /// Runs `body`, an InterchangeError about the file's text turned into one that names the
    /// file, line and column.
    private func reportingPosition(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as InterchangeError {
            throw InterchangeInputError(file: file, error: error) ?? error
        }
    }

    /// LARDER_NEW_PASSPHRASE, or one typed twice.
    private func newPassphrase() throws -> String {
        try Passphrase.readNew(prompt: "Passphrase for the new store \(store.path): ")
    }
}
