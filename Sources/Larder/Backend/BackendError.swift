// BackendError: every way the storage under a store fails — a file that cannot be opened,
// locked, read or written, a commit left to recover — each case carrying the path a user
// needs to act on it. What the store makes of the bytes (damage, keys, classes) is StoreError's.

/// A failure of the storage underneath a ``Store`` or a document store.
///
/// ```swift
/// do {
///     let store = try Store(path: "/tmp/music.larder")
/// } catch BackendError.locked(let path) {
///     print("\(path) is open in another process")
/// }
/// ```
public enum BackendError: Error, Equatable, Sendable {
    /// The store path exists and is not a directory.
    case notADirectory(path: String)
    /// A file of the store could not be opened or created.
    case cannotOpen(path: String, reason: String)
    /// A file in the store directory is not a database file of the backend (or its header is damaged).
    case notAStoreFile(path: String)
    /// Another process has the store open for writing (or, for a writer, at all).
    case locked(path: String)
    /// This process already has the file open through another store.
    case alreadyOpenInThisProcess(path: String)
    /// Reading or writing a file failed; the files are as they were before the operation.
    case ioFailure(path: String, operation: String, reason: String)
    /// A batch was interrupted after its commit point and could not be finished; reopen the
    /// store (as a writer) to complete it.
    case needsRecovery(path: String)
    /// The backend is closed.
    case closed
    /// The backend was opened read-only: it cannot be changed.
    case readOnly
    /// An ordered read was asked of a table that was not declared ordered.
    case unorderedTable(String)
    /// A table name the backend cannot store (for a file backend: not a portable file name).
    case invalidTableName(String)
    /// Another client of a shared backend saved after this one's reads were last moved
    /// (``Backend/refreshToNewestState()``): nothing of the batch was written. ``Store/saveChanges()``
    /// takes it in and retries, or throws ``StoreError/conflict(objects:)``.
    case conflict(reason: String)
}

extension BackendError: CustomStringConvertible {
    /// A sentence naming what went wrong and where.
    public var description: String {
        switch self {
        case let .notADirectory(path): return "\(path) is not a directory"
        case let .cannotOpen(path, reason): return "cannot open \(path): \(reason)"
        case let .notAStoreFile(path): return "not a database file of the store: \(path)"
        case let .locked(path): return "\(path) is locked by another process"
        case let .alreadyOpenInThisProcess(path): return "\(path) is already open in this process"
        case let .ioFailure(path, operation, reason): return "\(operation) failed on \(path): \(reason)"
        case let .needsRecovery(path): return "a save to \(path) was interrupted: reopen the store for writing to finish it"
        case .closed: return "the backend is closed"
        case .readOnly: return "the backend was opened read-only"
        case let .unorderedTable(name): return "table '\(name)' is not ordered: range reads need an ordered table"
        case let .invalidTableName(name): return "invalid table name '\(name)'"
        case let .conflict(reason): return "another client saved first: \(reason); nothing was written"
        }
    }
}
