// StoreError: every way the object store reports failure above its storage (damaged or
// undecodable records, keys, classes, misuse), each case carrying the class, rowID or name a
// user needs to act on it. Failures of the storage itself are BackendError's.

/// An error of the object store; the storage underneath throws ``BackendError``.
///
/// ```swift
/// do {
///     let song = try store.object(of: Song.self, rowID: 7)
/// } catch StoreError.corruptRecord(let name, let rowID) {
///     print("\(name) \(rowID) is damaged")
/// }
/// ```
public enum StoreError: Error, Equatable, Sendable {
    /// The store was written by a newer version of Larder.
    case unsupportedFormat(version: UInt64)
    /// The store was written by an older version of Larder and must be upgraded, which a
    /// read-only store cannot do: open it once for writing.
    case formatUpgradeRequired(version: UInt64)
    /// Store metadata is damaged or not understood.
    case corruptMetadata(key: String, reason: String)
    /// A file holds none of the records the registry says it holds (it was emptied, deleted
    /// or replaced): nothing is read from it or written into it.
    case missingRecords(table: String, expected: Int, found: Int)


    /// A class's storage name cannot be used as a file name.
    case invalidStorageName(String)
    /// Two different types were registered under the same storage name.
    case storageNameTaken(name: String, byType: String)
    /// The class is not registered in this store (`Store.register(_:)`).
    case classNotRegistered(String)
    /// A reference names a class ID this store has never registered.
    case unknownClassID(UInt64)

    /// The object is not inserted in a store (or its store was closed).
    case objectNotInStore(class: String)
    /// The object belongs to a different store.
    case objectInAnotherStore(class: String, rowID: UInt64)
    /// The object was deleted.
    case objectDeleted(class: String, rowID: UInt64)
    /// A fault's record is not in its class file.
    case missingRecord(class: String, rowID: UInt64)
    /// A record's envelope is damaged: it cannot be trusted.
    case corruptRecord(class: String, rowID: UInt64)
    /// A record's content could not be read by the class's `readContent(from:in:)`.
    case undecodableRecord(class: String, rowID: UInt64, reason: String)
    /// A named data buffer is damaged.
    case corruptNamedBuffer(name: String)
    /// A record of a class's full-text index is damaged or does not decode.
    case corruptTextIndex(class: String, reason: String)
    /// A named data buffer's name is empty.
    case invalidBufferName(String)

    /// `saveChanges()` was called from inside `forEachObject`.
    case saveDuringEnumeration
    /// A save or a named-buffer write was made inside an observation's fetch
    /// (``Store/observe(_:)-1vyu7``), which must only read.
    case saveDuringObservation
    /// ``Store/refresh(_:)`` was given an object with changes not saved.
    case objectHasUnsavedChanges(class: String, rowID: UInt64)
    /// `close()` was called with unsaved changes: save or discard them first.
    case unsavedChanges
    /// The store is closed.
    case closed
    /// The store was opened read-only: it cannot be changed.
    case readOnly
    /// The operation cannot run on a context of a ``StorePool`` (closing it, or a rekey, which
    /// the pool's readers could not follow): close the pool, or use a ``Store`` while no pool
    /// has the store open.
    case unavailableInPool(operation: String)
    /// A ``StorePool`` was given a backend other clients save to (``Backend/isShared``, an
    /// etcd cluster): its snapshot reads could not follow their saves. Use a ``Store`` on
    /// that backend and its ``Store/refresh()``.
    case sharedBackendInPool
    /// The store is encrypted and no key was given (or a record is encrypted and the store
    /// has no key).
    case encryptionKeyRequired
    /// The key given does not open this store.
    case wrongEncryptionKey
    /// OpenSSL failed to encrypt (out of memory, no entropy).
    case encryptionFailure(reason: String)
    /// The store's encryption settings (the "encrypted records only" flag, the key derivation)
    /// fail their authentication under the right key: they were changed by someone without it.
    case tamperedEncryptionSettings(reason: String)
    /// A key derivation asks for a number of PBKDF2 iterations outside
    /// 1...2,100,000 (10 times the default); refused before any key is derived.
    case keyDerivationIterationsOutOfRange(Int)
    /// A class has handed out every rowID (its next rowID is the largest there is: the
    /// registry record is damaged or tampered with).
    case rowIDsExhausted(class: String)
    /// A save (or building a new unique index) would give two objects of the class the same
    /// values in a unique index; nothing was written.
    case uniqueIndexViolation(class: String, index: String)
    /// An index the class declares cannot be kept: a key path of another class, or one that
    /// names no stored property (give the index a `name:`), or two indexes with one name.
    case invalidIndex(class: String, reason: String)
    /// The fields a `@StoredModel` class declares cannot be kept in the registry (a schema built
    /// by hand with a duplicate or unsupported field).
    case invalidSchema(class: String, reason: String)
    /// A record of an object index is damaged (`rebuildIndexes(of:)` rebuilds it).
    case corruptIndex(class: String, index: String, reason: String)

    /// ``Store/changes(since:)`` was asked for changes the store no longer keeps (its change
    /// log keeps the last ``Store/Configuration/changeLogLimit`` saves): the caller must read
    /// what it needs again. `oldestAvailable` is the smallest number it still answers for.
    case changesNoLongerAvailable(since: UInt64, oldestAvailable: UInt64)
    /// ``Store/changes(since:)`` was given a number above the store's sequence number
    /// (`current`): a number from another store, or from files since put back to an older copy.
    case futureSequence(since: UInt64, current: UInt64)
    /// A record of the change log is missing, damaged or does not fit the store.
    case corruptChangeLog(sequence: UInt64, reason: String)

    /// The class does not keep history (``StoredObject/keepsHistory``): it has no versions to
    /// read or prune.
    case historyNotKept(class: String)
    /// A version in a class's history is damaged, or names a save the store has not made or a
    /// rowID the class never handed out.
    case corruptHistory(class: String, rowID: UInt64, sequence: UInt64, reason: String)
    /// Another client of a shared backend saved changes to objects this store had unsaved
    /// changes to (rowIDs by class storage name): those changes of this store were dropped and
    /// the objects show what the other client saved; the rest of the store's unsaved changes
    /// are kept. Change the objects again and save, or leave them.
    case conflict(objects: [String: [UInt64]])
}

extension StoreError: CustomStringConvertible {
    /// A sentence naming what went wrong and where.
    public var description: String {
        switch self {
        case let .unsupportedFormat(version): return "store format \(version) is newer than this Larder understands"
        case let .formatUpgradeRequired(version): return "store format \(version) must be upgraded: open the store once for writing"
        case let .uniqueIndexViolation(name, index): return "two \(name) objects would have the same values in the unique index \(index)"
        case let .invalidIndex(name, reason): return "an index of \(name) cannot be kept: \(reason)"
        case let .invalidSchema(name, reason): return "the schema of \(name) cannot be kept: \(reason)"
        case let .corruptIndex(name, index, reason): return "the index \(index) of \(name) is damaged: \(reason)"
        case let .corruptMetadata(key, reason): return "store metadata '\(key)' is damaged: \(reason)"
        case let .missingRecords(table, expected, found):
            return "\(table) should hold \(expected) records and holds \(found): its file was emptied or replaced"
        case let .invalidStorageName(name): return "invalid storage name '\(name)': use letters, digits, _ - . and do not start with _ or ."
        case let .storageNameTaken(name, type): return "storage name '\(name)' is already registered by \(type)"
        case let .classNotRegistered(name): return "class \(name) is not registered in this store"
        case let .unknownClassID(id): return "no class with ID \(id) in this store"
        case let .objectNotInStore(name): return "the \(name) is not inserted in an open store"
        case let .objectInAnotherStore(name, rowID): return "\(name) \(rowID) belongs to another store"
        case let .objectDeleted(name, rowID): return "\(name) \(rowID) was deleted"
        case let .missingRecord(name, rowID): return "\(name) \(rowID) has no record"
        case let .corruptRecord(name, rowID): return "the record of \(name) \(rowID) is damaged"
        case let .undecodableRecord(name, rowID, reason): return "cannot read \(name) \(rowID): \(reason)"
        case let .corruptNamedBuffer(name): return "the named buffer '\(name)' is damaged"
        case let .corruptTextIndex(name, reason): return "the full-text index of \(name) is damaged: \(reason)"
        case let .invalidBufferName(name): return "invalid buffer name '\(name)'"
        case .saveDuringEnumeration: return "saveChanges() cannot run inside forEachObject"
        case let .unavailableInPool(operation): return "\(operation) cannot run on a context of a StorePool"
        case .sharedBackendInPool: return "a StorePool cannot run on a backend other clients save to: use a Store and refresh()"
        case .saveDuringObservation: return "an observation's fetch cannot save or write a named buffer"
        case let .objectHasUnsavedChanges(name, rowID): return "\(name) \(rowID) has changes not saved: save or discard them first"
        case .unsavedChanges: return "the store has unsaved changes: save or discard them before closing"
        case .closed: return "the store is closed"
        case .readOnly: return "the store is open read-only"
        case .encryptionKeyRequired: return "the store is encrypted: an encryption key is required"
        case .wrongEncryptionKey: return "the encryption key does not open this store"
        case let .encryptionFailure(reason): return "encryption failed: \(reason)"
        case let .tamperedEncryptionSettings(reason): return "the store's encryption settings were tampered with: \(reason)"
        case let .keyDerivationIterationsOutOfRange(count): return "\(count) key derivation iterations is outside 1...\(EncryptionRecord.maximumIterations)"
        case let .rowIDsExhausted(name): return "class \(name) has no rowIDs left to hand out"
        case let .changesNoLongerAvailable(since, oldest):
            return "the changes after save \(since) are no longer kept (the oldest number answered is \(oldest)): read everything again"
        case let .futureSequence(since, current): return "save \(since) is ahead of the store, whose last save is \(current)"
        case let .corruptChangeLog(sequence, reason): return "the change record of save \(sequence) is damaged: \(reason)"
        case let .historyNotKept(name): return "class \(name) does not keep history"
        case let .corruptHistory(name, rowID, sequence, reason):
            return "the version of \(name) \(rowID) saved by save \(sequence) is damaged: \(reason)"
        case let .conflict(objects):
            let listed = objects.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value.sorted().map(String.init).joined(separator: ", "))" }
            return "another client saved changes to objects this store had changed (\(listed.joined(separator: "; "))): "
                + "their unsaved changes were dropped"
        }
    }
}
