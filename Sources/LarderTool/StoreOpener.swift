// StoreOpener: opens a store directory without its Swift classes: read-only for the commands
// that only read (shared with other readers), for writing for compact and rekey. It refuses a
// path that is not a store before anything could create one there, tells object stores from
// document stores, and asks for an encrypted store's passphrase only when the store turns out
// to need one (so a plaintext store is never opened with a key, which would start encrypting it).

import Foundation
import Larder
import LarderDocuments

final class StoreOpener {
    /// The file whose presence makes a directory a store (and whose lock guards it).
    static let lockFile = "_store.tch"

    let path: String
    let readOnly: Bool
    let lockTimeout: TimeInterval
    /// The passphrase, once asked for: opening the other kind of store reuses it.
    private(set) var passphrase: String?

    init(path: String, readOnly: Bool, lockTimeout: TimeInterval) {
        self.path = path
        self.readOnly = readOnly
        self.lockTimeout = lockTimeout
    }

    /// What the directory holds. Throws ``ToolError/notAStore(path:reason:)`` for a path that
    /// is not a store directory.
    func kind() throws -> StoreKind {
        StoreKind(metadataKeys: try metadataKeys())
    }

    /// The keys of the store's `_store` file (none for a store nothing was ever saved in).
    /// Throws ``ToolError/notAStore(path:reason:)`` for a path that is not a store directory.
    func metadataKeys() throws -> [[UInt8]] {
        let backend = try openBackend()
        defer { try? backend.close() }
        var keys: [[UInt8]] = []
        try backend.forEachRecord(in: "_store") { key, _ in
            keys.append(Array(key))
            return true
        }
        return keys
    }

    /// The object store, without any class registered.
    func openObjects() throws -> Store {
        try withPassphrase { configuration in
            let backend = try openBackend()
            do {
                return try Store(backend: backend, configuration: configuration)
            } catch {
                try? backend.close()
                throw error
            }
        }
    }

    /// The document store.
    func openDocuments() throws -> DocumentStore {
        try withPassphrase { configuration in
            let backend = try openBackend()
            do {
                return try DocumentStore(backend: backend, configuration: configuration)
            } catch {
                try? backend.close()
                throw error
            }
        }
    }

    /// The total size of the store's files, in bytes.
    func directorySize() -> Int {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return files.reduce(0) { $0 + fileSize($1) }
    }

    /// The size of the file `name` of the store, in bytes (0 when it does not exist).
    func fileSize(_ name: String) -> Int {
        let attributes = try? FileManager.default.attributesOfItem(atPath: (path as NSString).appendingPathComponent(name))
        return (attributes?[.size] as? NSNumber)?.intValue ?? 0
    }

    // MARK: Private

    private var configuration: Store.Configuration {
        var configuration = Store.Configuration(readOnly: readOnly, lockTimeout: lockTimeout)
        configuration.encryptionKey = passphrase
        return configuration
    }

    /// The backend of the directory, after checking that it is a store: a writer would create
    /// one at any path.
    private func openBackend() throws -> TokyoCabinetBackend {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ToolError.notAStore(path: path, reason: "no such file or directory")
        }
        guard isDirectory.boolValue else { throw ToolError.notAStore(path: path, reason: "not a directory") }
        guard FileManager.default.fileExists(atPath: (path as NSString).appendingPathComponent(Self.lockFile)) else {
            throw ToolError.notAStore(path: path, reason: "the directory has no \(Self.lockFile)")
        }
        return try TokyoCabinetBackend(path: path, configuration: configuration.backend)
    }

    /// The result of `open`, given the configuration without a key, then, if the store is
    /// encrypted, with the passphrase from LARDER_PASSPHRASE or the terminal.
    private func withPassphrase<T>(_ open: (Store.Configuration) throws -> T) throws -> T {
        do {
            return try open(configuration)
        } catch StoreError.encryptionKeyRequired where passphrase == nil {
            passphrase = try Passphrase.read(environment: Passphrase.environmentVariable,
                                             prompt: "Passphrase for \(path): ")
            return try open(configuration)
        }
    }
}
