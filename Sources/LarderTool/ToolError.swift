// ToolError: what the tool itself refuses: a path that is not a store, a class, collection or
// record the store does not have, a passphrase it cannot get. ExitStatus maps each to a status.

enum ToolError: Error, CustomStringConvertible {
    case notAStore(path: String, reason: String)
    case noSuchClass(String, available: [String])
    case noSuchCollection(String, available: [String])
    case noRecord(class: String, rowID: UInt64)
    case noTextIndex(class: String)
    case passphraseUnavailable(variable: String)
    case emptyPassphrase(source: String)
    case passphrasesDiffer
    case mixedStore(operation: String)
    case unreadableFile(String, reason: String)
    case collectionRequired(available: [String])
    case encryptingExistingStore(path: String)

    var description: String {
        switch self {
        case let .notAStore(path, reason): return "\(path) is not a Larder store: \(reason)"
        case let .noSuchClass(name, available):
            return "the store has no class \(name)" + Self.list(available, "classes")
        case let .noSuchCollection(name, available):
            return "the store has no collection \(name)" + Self.list(available, "collections")
        case let .noRecord(name, rowID): return "\(name) \(rowID) has no record"
        case let .noTextIndex(name): return "the store keeps no full-text index of \(name)"
        case let .passphraseUnavailable(variable):
            return "the store is encrypted: set \(variable), or run on a terminal to be asked for the passphrase"
        case let .emptyPassphrase(source): return "the passphrase from \(source) is empty"
        case .passphrasesDiffer: return "the two new passphrases differ: nothing was changed"
        case let .mixedStore(operation):
            return "the store holds both objects and documents: \(operation) them with Store and DocumentStore instead"
        case let .unreadableFile(path, reason): return "\(path): \(reason)"
        case let .collectionRequired(available):
            return "the store holds documents: give --collection NAME" + Self.list(available, "collections")
        case let .encryptingExistingStore(path):
            return "--encrypt makes a new store, and \(path) exists (larder rekey encrypts an existing store)"
        }
    }

    private static func list(_ names: [String], _ what: String) -> String {
        names.isEmpty ? " (it has none)" : " (\(what): \(names.joined(separator: ", ")))"
    }
}
