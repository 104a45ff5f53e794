// BackendConfiguration: how a backend is opened — durability, read-only sharing, lock waiting —
// apart from what the store above it adds (keys). Store.Configuration carries one.

import Foundation

/// What a committed batch survives.
///
/// ```swift
/// let backend = try TokyoCabinetBackend(path: "/tmp/music.larder",
///                                       configuration: BackendConfiguration(durability: .noSync))
/// ```
public enum Durability: Sendable, Equatable {
    /// Survives power loss: everything a batch wrote is synced to the device before
    /// ``Backend/apply(_:)`` returns. The default.
    case full
    /// Survives a crash of the process (a batch is still all or nothing), but nothing is
    /// synced: an operating-system crash or power loss can lose recent batches. For bulk
    /// loads and benchmarks.
    case noSync
}

/// How a backend is opened.
///
/// ```swift
/// let reader = BackendConfiguration(readOnly: true, lockTimeout: 2)
/// ```
public struct BackendConfiguration: Sendable, Equatable {
    /// What a returned ``Backend/apply(_:)`` survives; `.full` by default.
    public var durability: Durability = .full
    /// Opens the storage for reading only, sharing it with other readers; a writer cannot
    /// open it meanwhile, and ``Backend/apply(_:)`` throws ``BackendError/readOnly``.
    public var readOnly = false
    /// How long to wait for another process to release the storage before throwing
    /// ``BackendError/locked(path:)``; 0 (the default) fails at once.
    public var lockTimeout: TimeInterval = 0

    /// A configuration with the given settings (full durability, read-write, no waiting by default).
    ///
    /// ```swift
    /// let bulk = BackendConfiguration(durability: .noSync)
    /// ```
    public init(durability: Durability = .full, readOnly: Bool = false, lockTimeout: TimeInterval = 0) {
        self.durability = durability
        self.readOnly = readOnly
        self.lockTimeout = lockTimeout
    }
}
