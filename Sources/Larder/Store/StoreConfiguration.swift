// Store.Configuration: how a store is opened: durability, read-only sharing, lock waiting, keys,
// the change log's length.

import Foundation

extension Store {
    /// How a store is opened.
    ///
    /// ```swift
    /// var configuration = Store.Configuration()
    /// configuration.durability = .noSync      // a bulk load
    /// let store = try Store(path: "/tmp/music.larder", configuration: configuration)
    /// ```
    public struct Configuration: Sendable, Equatable {
        /// What a returned ``Store/saveChanges()`` survives (the backend's ``Larder/Durability``).
        public typealias Durability = Larder.Durability

        /// What a returned save survives; `.full` by default.
        public var durability: Durability = .full

        /// Opens the store for reading only, sharing it with other readers; a writer cannot
        /// open it meanwhile. Saves and named-buffer writes throw ``StoreError/readOnly``.
        public var readOnly = false

        /// How long to wait for another process to release the store before throwing
        /// ``BackendError/locked(path:)``; 0 (the default) fails at once.
        public var lockTimeout: TimeInterval = 0

        /// The passphrase of an encrypted store, or nil. With a key, every object record and
        /// named buffer is written with AES-256-GCM; a plaintext store opened with a key
        /// becomes encrypted record by record as records are saved (``Store/rekey(to:iterations:compact:)``
        /// rewrites them all at once).
        public var encryptionKey: String?

        /// PBKDF2-HMAC-SHA256 iterations used when a store is first given a key (stored with
        /// the salt; later opens use the stored count). Lower it only in tests. At most
        /// 2,100,000: more is refused with ``StoreError/keyDerivationIterationsOutOfRange(_:)``.
        public var keyDerivationIterations = 210_000

        /// How many of the last saves the store keeps in its change log for
        /// ``Store/changes(since:)`` (1,000 by default; 0 keeps none). Each save writes its
        /// change record and removes the ones beyond the limit in its own batch; a store opened
        /// with a lower limit drops the older records at its first save.
        public var changeLogLimit = 1_000

        /// The default configuration: full durability, read-write, no waiting for locks.
        ///
        /// ```swift
        /// let configuration = Store.Configuration()
        /// ```
        public init() {}

        /// A configuration with the given settings.
        ///
        /// ```swift
        /// let reader = Store.Configuration(readOnly: true, lockTimeout: 2)
        /// ```
        public init(durability: Durability = .full, readOnly: Bool = false, lockTimeout: TimeInterval = 0,
                    encryptionKey: String? = nil) {
            self.durability = durability
            self.readOnly = readOnly
            self.lockTimeout = lockTimeout
            self.encryptionKey = encryptionKey
        }

        /// The settings the backend applies: durability, read-only sharing, lock waiting.
        ///
        /// ```swift
        /// let backend = try TokyoCabinetBackend(path: "/tmp/music.larder", configuration: configuration.backend)
        /// ```
        public var backend: BackendConfiguration {
            BackendConfiguration(durability: durability, readOnly: readOnly, lockTimeout: lockTimeout)
        }
    }

    /// Opens (or, unless read-only, creates) the store directory at `path` with a
    /// ``TokyoCabinetBackend`` configured by `configuration`.
    ///
    /// ```swift
    /// let store = try Store(path: "/tmp/music.larder", configuration: .init(durability: .noSync))
    /// ```
    public convenience init(path: String, configuration: Configuration) throws {
        try self.init(backend: TokyoCabinetBackend(path: path, configuration: configuration.backend), configuration: configuration)
    }
}
