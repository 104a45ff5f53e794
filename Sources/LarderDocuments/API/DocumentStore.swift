// DocumentStore: JSON document collections on a Larder Backend (a directory of Tokyo Cabinet
// files, or memory).
// Collections are created on first use and their definitions live in `_store`. Each collection
// runs one operation at a time under its own lock; the backend is shared behind another
// (SharedBackend), so different collections work in parallel between storage calls.

import Foundation
import Larder

/// A store of JSON document collections, in one directory, committed through Larder's
/// journal: every insert, update or delete, with its index changes, is atomic and durable.
///
/// ```swift
/// let store = try DocumentStore(path: "/tmp/people.larder")
/// let people = try store.collection("people")
/// try people.addIndex("[last_name], [first_name]")
/// let id = try people.insert(["first_name": "Ada", "last_name": "Lovelace"])
/// let found = try people.find(where: "[last_name] = ?", arguments: ["Lovelace"])
/// try store.close()
/// ```
public final class DocumentStore: @unchecked Sendable {
    // @unchecked: every mutable property is guarded by `lock` (collection states guard their
    // own, the shared backend its own).

    /// The store directory, for a store opened with ``init(path:configuration:)``; nil on
    /// another backend.
    ///
    /// ```swift
    /// print(store.path ?? "in memory")   // /tmp/people.larder
    /// ```
    public let path: String?
    let lock = NSLock()
    let backend: SharedBackend
    var states: [String: CollectionEngine] = [:]
    /// The store's cipher, when it is encrypted (DocumentStore+Encryption.swift).
    var cipher: DocumentCipher?
    /// PBKDF2 iterations for a new key, from the configuration.
    var keyDerivationIterations = Store.Configuration().keyDerivationIterations
    private var queues: [String: DispatchQueue] = [:]
    /// Each collection's change feed, by name (a dropped collection's ends with it).
    private var feeds: [String: CollectionFeed] = [:]
    private var isClosed = false

    /// The table that holds collection definitions and user metadata.
    static let metadataTable = "_store"
    /// Cache size of a collection until `cacheSize` is set.
    static let defaultCacheSize = 1_000

    /// Opens (or creates) the document store at `path`, in Tokyo Cabinet files. Throws
    /// `BackendError.locked` when another process has it open.
    ///
    /// With `configuration.encryptionKey`, every document, index entry and metadata value is
    /// encrypted (AES-256-GCM); a new store is encrypted from its first record. An encrypted
    /// store opened without its key throws `StoreError.encryptionKeyRequired`, with another
    /// key `StoreError.wrongEncryptionKey`; a plaintext store holding data opened with a key
    /// throws ``DocumentError/storeNotEncrypted`` (encrypt it with ``rekey(to:iterations:compact:)``).
    ///
    /// ```swift
    /// let store = try DocumentStore(path: "/tmp/people.larder", configuration: .init(durability: .full))
    /// let secret = try DocumentStore(path: "/tmp/vault.larder", configuration: .init(encryptionKey: "passphrase"))
    /// ```
    public convenience init(path: String, configuration: Store.Configuration = .init()) throws {
        try self.init(backend: TokyoCabinetBackend(path: path, configuration: configuration.backend),
                      configuration: configuration, path: path)
    }

    /// Opens a document store on `backend`, with the encryption settings of `configuration`
    /// (the backend has applied its own durability and locking settings). A `MemoryBackend`
    /// gives a store that lives in memory, for tests.
    ///
    /// ```swift
    /// let store = try DocumentStore(backend: MemoryBackend())
    /// let people = try store.collection("people")
    /// ```
    public convenience init(backend: any Backend, configuration: Store.Configuration = .init()) throws {
        try self.init(backend: backend, configuration: configuration, path: nil)
    }

    private init(backend: any Backend, configuration: Store.Configuration, path: String?) throws {
        self.path = path
        self.backend = SharedBackend(backend)
        try openEncryption(configuration)
    }

    deinit {
        try? backend.close()
    }

    /// The collection called `name`, created (empty) on first use. A name is 1-100 letters,
    /// digits, `_` or `-`, not starting with `_`.
    ///
    /// ```swift
    /// let people = try store.collection("people")
    /// ```
    public func collection(_ name: String) throws -> DocumentCollection {
        guard Self.isValidCollectionName(name) else { throw DocumentError.invalidCollectionName(name) }
        let queue: DispatchQueue = try withLock {
            _ = try state(of: name)
            if let queue = queues[name] { return queue }
            let queue = DispatchQueue(label: "larder.documents.\(name)")
            queues[name] = queue
            return queue
        }
        return DocumentCollection(store: self, name: name, queue: queue)
    }

    /// The metadata value stored under `key`, or nil.
    ///
    /// ```swift
    /// let version = try store.metadata(forKey: "schemaVersion")?.intValue ?? 0
    /// ```
    public func metadata(forKey key: String) throws -> JSON? {
        try withLock {
            var value: JSON?
            let storedKey = try Self.metadataKey(key)
            try backend.readValue(forKey: storedKey, in: Self.metadataTable) { bytes in
                guard let bytes else { return }
                value = try Self.decodeMetadata(bytes, key: storedKey, cipher: cipher)
            }
            return value
        }
    }

    /// Stores `value` under `key` (nil removes it), durably.
    ///
    /// ```swift
    /// try store.setMetadata(2, forKey: "schemaVersion")
    /// ```
    public func setMetadata(_ value: JSON?, forKey key: String) throws {
        try withLock {
            var batch = WriteBatch()
            if let value {
                let storedKey = try Self.metadataKey(key)
                batch.put(try DocumentRecord.seal(value, key: storedKey, cipher: cipher, scope: Self.metadataTable),
                          forKey: storedKey, in: Self.metadataTable)
            } else {
                batch.removeValue(forKey: try Self.metadataKey(key), in: Self.metadataTable)
            }
            try backend.apply(batch)
        }
    }

    /// Removes the collection `name` (its documents, indexes and definition) in one atomic
    /// commit; returns false when the store has no such collection. Using the name again
    /// creates a new, empty collection, whose rowIDs start again at 1.
    ///
    /// ```swift
    /// try store.dropCollection("sessions")
    /// ```
    @discardableResult
    public func dropCollection(_ name: String) throws -> Bool {
        guard Self.isValidCollectionName(name) else { throw DocumentError.invalidCollectionName(name) }
        return try withLock {
            let key = CollectionDefinition.metadataKey(for: name)
            var exists = false
            try backend.readValue(forKey: key, in: Self.metadataTable) { exists = $0 != nil }
            guard exists else { return false }
            let state = try state(of: name)
            state.lock.lock()
            defer { state.lock.unlock() }
            try state.drop()
            states[name] = nil
            state.isRetired = true
            feeds.removeValue(forKey: name)?.feed.finish()
            return true
        }
    }

    /// Closes the store; later calls throw `StoreError.closed`. Closing twice is harmless.
    ///
    /// ```swift
    /// try store.close()
    /// ```
    public func close() throws {
        lock.lock()
        defer { lock.unlock() }
        guard !isClosed else { return }
        isClosed = true
        states.removeAll()
        for feed in feeds.values { feed.feed.finish() }
        feeds.removeAll()
        try backend.close()
    }

    // MARK: Internal

    /// Runs `body` with the collection's state, under the collection's lock.
    func withCollection<Result>(_ name: String, _ body: (CollectionEngine) throws -> Result) throws -> Result {
        while true {
            let state: CollectionEngine = try withLock { try self.state(of: name) }
            state.lock.lock()
            defer { state.lock.unlock() }
            // A rekey replaced the state between the two locks: take the new one.
            if state.isRetired { continue }
            return try body(state)
        }
    }

    func withLock<Result>(_ body: () throws -> Result) throws -> Result {
        lock.lock()
        defer { lock.unlock() }
        guard !isClosed else { throw StoreError.closed }
        return try body()
    }

    /// The loaded state of `name` (called under the lock), reading or creating its definition.
    func state(of name: String) throws -> CollectionEngine {
        if let state = states[name] { return state }
        let key = CollectionDefinition.metadataKey(for: name)
        var definition: CollectionDefinition?
        try backend.readValue(forKey: key, in: Self.metadataTable) { bytes in
            guard let bytes else { return }
            let json = try Self.decodeMetadata(bytes, key: key, cipher: cipher)
            guard let stored = CollectionDefinition(json: json) else {
                throw DocumentError.corruptMetadata(key: "collection.\(name)", reason: "not a collection definition")
            }
            // A collection that never held a document or an index has nothing in an old layout:
            // it takes the current one. Others keep theirs, if this version reads it.
            let isEmpty = stored.nextRowID == 1 && stored.indexes.isEmpty
            guard isEmpty || (CollectionDefinition.oldestReadableFormat ... CollectionDefinition.currentFormat).contains(stored.format) else {
                throw DocumentError.unsupportedFormat(collection: name, format: stored.format)
            }
            definition = stored
            if isEmpty { definition?.format = CollectionDefinition.currentFormat }
        }
        if definition == nil && !backend.isReadOnly {
            var batch = WriteBatch()
            batch.put(try DocumentRecord.seal(CollectionDefinition().json, key: key, cipher: cipher, scope: Self.metadataTable),
                      forKey: key, in: Self.metadataTable)
            try backend.apply(batch)
        }
        let state = CollectionEngine(name: name, backend: backend, definition: definition ?? CollectionDefinition(),
                                    cacheSize: Self.defaultCacheSize, cipher: cipher, feed: feed(of: name))
        states[name] = state
        return state
    }

    /// The change feed of collection `name` (under `lock`), made on first use.
    func feed(of name: String) -> CollectionFeed {
        if let feed = feeds[name] { return feed }
        let feed = CollectionFeed()
        feeds[name] = feed
        return feed
    }

    private static func metadataKey(_ key: String) throws -> [UInt8] {
        guard !key.isEmpty else { throw DocumentError.invalidMetadataKey(key) }
        return Array("meta.\(key)".utf8)
    }

    private static func decodeMetadata(_ bytes: UnsafeRawBufferPointer, key: [UInt8], cipher: DocumentCipher?) throws -> JSON {
        do {
            return try key.withUnsafeBytes { try DocumentRecord.open(bytes, key: $0, cipher: cipher, scope: metadataTable) }
        } catch let failure as JSONBinary.DecodingFailure {
            throw DocumentError.corruptMetadata(key: String(decoding: key, as: UTF8.self), reason: failure.reason)
        }
    }

    static func isValidCollectionName(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 100, !name.hasPrefix("_") else { return false }
        return name.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0" ... "9").contains(scalar) || scalar == "_" || scalar == "-")
        }
    }
}
