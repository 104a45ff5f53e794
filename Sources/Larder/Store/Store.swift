// Store: the unit-of-work context over a backend. It registers classes, hands out rowIDs,
// uniques objects, and turns inserts, updates and deletes into one write batch on save.
// This file holds its state, opening, registration and closing; the unit of work, fetching
// and named buffers are extensions in files of their own.

import Foundation

/// A unit-of-work context over a store directory: the Larder counterpart of Core Data's
/// managed object context.
///
/// ```swift
/// let store = try Store(path: "/tmp/music.larder")
/// try store.register(Song.self)
/// try store.register(Playlist.self)
///
/// let song = Song()
/// song.title = "So What"
/// try store.insert(song)
/// try store.saveChanges()
/// ```
///
/// A store is used from one thread (or actor) at a time. Within a store there is at most one
/// live instance per class and rowID.
public final class Store {
    internal let backend: any Backend

    internal var entriesByType: [ObjectIdentifier: ClassEntry] = [:]
    internal var entriesByName: [String: ClassEntry] = [:]
    internal var entriesByID: [UInt64: ClassEntry] = [:]
    /// Every class record in the store, registered in this session or not.
    internal var records: [String: ClassRecord] = [:]
    /// The schema of every `@StoredModel` class in the registry (`schema/<Class>`), by storage
    /// name, registered in this session or not.
    internal var schemas: [String: StoredModelSchema] = [:]
    /// How many named buffers `_names` holds, from the registry (nil in a store that has not
    /// counted them yet).
    internal var namedBufferCount: Int?
    /// The sequence number of the last save that changed something, and the change records
    /// kept (the `sequence` record, as saved).
    internal var changeLog = ChangeSequenceRecord()
    /// How many saves the change log keeps (0: none), from the configuration.
    internal var changeLogLimit = Configuration().changeLogLimit
    /// The subscribers of ``changes``.
    internal let changeFeed = ChangeFeed<StoreChange>()
    /// The live `observe` streams.
    internal var observations: [StoreObservation] = []
    /// What the running observation fetch reads, noted as it reads (nil when none runs).
    @exclusivity(unchecked) internal var readDependencies: ReadDependencies?
    /// How many observation fetches are running (saving inside one throws).
    @exclusivity(unchecked) internal var observationDepth = 0
    /// How many registered classes keep history: a save looks for versions only when some do.
    @exclusivity(unchecked) internal var historyClassCount = 0
    /// The number of versions each class's history holds, by storage name, as saved (the
    /// `history/<Class>` records of `_store`).
    internal var historyCounts: [String: UInt64] = [:]
    /// How the interchange turns a class's records into named fields (InterchangeFieldCoding).
    internal var interchangeFields: any InterchangeFieldCoding = SchemaFieldCoding()

    @exclusivity(unchecked) internal var insertedObjects: [StoredObject] = []
    @exclusivity(unchecked) internal var updatedObjects: [StoredObject] = []
    @exclusivity(unchecked) internal var deletedObjects: [StoredObject] = []
    @exclusivity(unchecked) internal var pendingObjectCount = 0

    @exclusivity(unchecked) internal var enumerationDepth = 0
    @exclusivity(unchecked) private var lastEntry: (type: ObjectIdentifier, entry: ClassEntry)?
    /// The buffer point reads decode into, reused so a lookup allocates no buffer (see
    /// ``withReadScratch(_:)``).
    @exclusivity(unchecked) private var readScratch = DataBuffer()
    @exclusivity(unchecked) private var readScratchInUse = false
    /// The storage a sealed page is decrypted into on its way to a class's page cache.
    @exclusivity(unchecked) internal var openedPageScratch: [UInt8] = []
    /// The last automatic fault-in error of each object whose fault-in failed
    /// (``StoredObject/faultError``).
    @exclusivity(unchecked) internal var faultErrors: [ObjectIdentifier: any Error] = [:]
    /// Encrypts and decrypts records when the store has a key.
    internal var cipher: RecordCipher?
    /// PBKDF2 iterations for a new key (``rekey(to:iterations:compact:)``), from the configuration.
    internal var keyDerivationIterations = Configuration().keyDerivationIterations
    /// The encryption settings record, when the store is encrypted.
    internal var encryptionRecord: EncryptionRecord?
    /// Told of every non-nil reference read while set (by ``verify()``).
    internal var referenceObserver: ((ClassEntry, UInt64) -> Void)?
    @exclusivity(unchecked) internal private(set) var isDissolvingRelationships = false
    @exclusivity(unchecked) internal private(set) var isClosed = false
    /// A context of a ``StorePool``: the pool closes it, and it cannot be rekeyed.
    internal var belongsToPool = false
    /// Called once a commit that changed something is adopted, before its change is published
    /// (a pool's writer: the pool makes the new state the one reads begin at).
    internal var commitAdopted: (() -> Void)?

    /// The metadata table: format version and class registry.
    internal static let metadataTable = "_store"
    /// The table of named data buffers.
    internal static let namesTable = "_names"
    /// The store format this version of Larder writes and reads.
    /// 1: records without checksums; 2: checksummed (and encrypted) records, commit journal;
    /// 3: object records grouped into pages of 32 rowIDs (RecordPage); 4: an encrypted store's
    /// pages sealed whole (PageSeal), not record by record; 5: a plaintext store's pages
    /// checksummed whole (PageCheck); 6: object indexes (`index/<Class>` records, `_index` tables),
    /// which a Larder that does not keep them must not write to; 7: sequence numbers and the
    /// change log (`sequence`, `change/<n>` records), which a Larder that does not advance them
    /// must not write to either (``changes(since:)`` would miss its saves); 8: histories
    /// (`_history.<Class>` tables), which a Larder that does not append to them must not write to
    /// (its saves of a class that keeps history would leave no version).
    internal static let formatVersion: UInt64 = 8
    internal static let formatKey = Array("format".utf8)

    /// Opens a store on `backend`, reading its class registry.
    ///
    /// ```swift
    /// let store = try Store(backend: TokyoCabinetBackend(path: "/tmp/music.larder"))
    /// ```
    public convenience init(backend: any Backend) throws {
        try self.init(backend: backend, configuration: Configuration())
    }

    /// Opens a store on `backend` with the encryption settings of `configuration` (the
    /// backend has already applied its durability and locking settings).
    ///
    /// ```swift
    /// let store = try Store(backend: backend, configuration: .init(encryptionKey: "correct horse"))
    /// ```
    public init(backend: any Backend, configuration: Configuration) throws {
        self.backend = backend
        try openMetadata(configuration)
    }

    /// Opens a store on `backend` with the cipher `unlockedCipher` already unlocked for it (a
    /// copy is used), so that the key is not derived again: the contexts of a ``StorePool``.
    /// With `seed`, its metadata is taken instead of read (``ContextSeed``).
    internal init(backend: any Backend, configuration: Configuration, unlockedCipher: RecordCipher?,
                  seed: ContextSeed? = nil) throws {
        self.backend = backend
        if let seed {
            try adoptMetadata(of: seed, configuration: configuration, unlockedCipher: unlockedCipher)
        } else {
            try openMetadata(configuration, unlockedCipher: unlockedCipher)
        }
    }

    /// Opens (or creates) the store directory at `path` with a ``TokyoCabinetBackend``.
    ///
    /// ```swift
    /// let store = try Store(path: "/tmp/music.larder")
    /// ```
    public convenience init(path: String) throws {
        try self.init(backend: TokyoCabinetBackend(path: path))
    }

    deinit {
        changeFeed.finish()
        finishObservations()
        if !isClosed {
            detachAllLiveObjects()
            try? backend.close()
        }
    }

    /// Registers a class so its objects can be inserted, fetched and referenced. Classes may
    /// be registered in any order, in any session: a class keeps its ID by storage name.
    ///
    /// ```swift
    /// try store.register(Song.self)
    /// ```
    public func register(_ type: StoredObject.Type) throws {
        try checkOpen()
        let key = ObjectIdentifier(type)
        guard entriesByType[key] == nil else { return }
        let name = type.storageName
        guard Self.isValidStorageName(name) else { throw StoreError.invalidStorageName(name) }
        if let other = entriesByName[name] {
            throw StoreError.storageNameTaken(name: name, byType: String(reflecting: other.type))
        }
        let record: ClassRecord
        if let existing = records[name] {
            record = existing
        } else {
            let classID = (records.values.map(\.classID).max() ?? 0) + 1
            record = ClassRecord(classID: classID, nextRowID: 1, version: type.version, deletedRowIDs: RowIDRanges())
            if !backend.isReadOnly {
                var batch = WriteBatch()
                try addMetadata(record.encoded(), forKey: ClassRecord.key(for: name), to: &batch)
                try applyToBackend(batch)
            }
            records[name] = record
        }
        // Open the class file now, so a damaged or foreign file is reported at registration,
        // and one emptied behind the store's back is not taken for a class with no objects.
        // (A pool's read context skips it: the pool's writer checked when the pool opened.)
        if !(belongsToPool && backend.isReadOnly), try backend.recordCount(in: name) == 0 && record.expectedRecordCount > 0 {
            throw StoreError.missingRecords(table: name, expected: record.expectedRecordCount, found: 0)
        }
        try recordSchema(of: type, named: name)
        let entry = ClassEntry(type: type, name: name, record: record, store: self)
        try attachTextIndex(to: entry)
        entriesByType[key] = entry
        entriesByName[name] = entry
        entriesByID[record.classID] = entry
        do {
            try attachObjectIndexes(to: entry)
        } catch {
            entriesByType[key] = nil
            entriesByName[name] = nil
            entriesByID[record.classID] = nil
            throw error
        }
        if entry.keepsHistory {
            backend.declareOrderedTable(HistoryRecord.table(forClass: name))
            historyClassCount += 1
        }
    }

    /// Asks every live object to release the stored objects it holds
    /// (``StoredObject/dissolveAllRelationships()``), breaking reference cycles. Changes made
    /// while dissolving are not tracked.
    ///
    /// ```swift
    /// store.dissolveAllRelationships()
    /// ```
    public func dissolveAllRelationships() {
        isDissolvingRelationships = true
        defer { isDissolvingRelationships = false }
        let objects = entriesByType.values.flatMap { $0.allLiveObjects() }
        for object in objects {
            object.dissolveAllRelationships()
        }
    }

    /// Closes the store: dissolves relationships, detaches every object, finishes every stream
    /// of ``changes`` and closes the files. Throws ``StoreError/unsavedChanges`` when there are
    /// unsaved changes (save or discard them first), so nothing is lost by accident.
    ///
    /// ```swift
    /// try store.saveChanges()
    /// try store.close()
    /// ```
    public func close() throws {
        guard !isClosed else { return }
        guard !belongsToPool else { throw StoreError.unavailableInPool(operation: "close()") }
        guard !hasUnsavedChanges else { throw StoreError.unsavedChanges }
        // RowIDs handed out and dropped since the last save are recorded, never reused.
        if !backend.isReadOnly && entriesByType.values.contains(where: \.needsRecordWrite) {
            try saveChanges()
        }
        // The unused end of each block of a shared backend's rowIDs goes back, if nobody
        // reserved after it, so that the next session goes on from here (only a courtesy).
        for entry in entriesByType.values where entry.sharesRowIDs && entry.nextRowID < entry.rowIDBlockEnd {
            try? backend.returnRowIDs(entry.nextRowID ..< entry.rowIDBlockEnd, in: entry.name)
        }
        dissolveAllRelationships()
        detachAllLiveObjects()
        isClosed = true
        changeFeed.finish()
        finishObservations()
        try backend.close()
    }

    // MARK: Internal

    /// Runs `body` with the reusable read buffer, or with a fresh one when a read is already
    /// using it (a `readContent` that touches another object's fault).
    @inline(__always)
    internal func withReadScratch<R>(_ body: (inout DataBuffer) throws -> R) rethrows -> R {
        guard !readScratchInUse else {
            var local = DataBuffer()
            return try body(&local)
        }
        readScratchInUse = true
        defer { readScratchInUse = false }
        return try body(&readScratch)
    }

    internal func checkOpen() throws {
        if isClosed { throw StoreError.closed }
    }

    /// The entry of a registered class.
    internal func entry(for type: StoredObject.Type) throws -> ClassEntry {
        try checkOpen()
        let key = ObjectIdentifier(type)
        // Runs of calls for one class are the rule (a loop of inserts, a fetch): skip the hash.
        if let last = lastEntry, last.type == key {
            readDependencies?.noteClass(last.entry.name)
            return last.entry
        }
        guard let entry = entriesByType[key] else {
            throw StoreError.classNotRegistered(type.storageName)
        }
        lastEntry = (key, entry)
        readDependencies?.noteClass(entry.name)
        return entry
    }

    /// The entry of a registered class by classID, as written by `writeAnyReference`.
    internal func entry(forClassID classID: UInt64) throws -> ClassEntry {
        try checkOpen()
        if let entry = entriesByID[classID] {
            readDependencies?.noteClass(entry.name)
            return entry
        }
        if let name = records.first(where: { $0.value.classID == classID })?.key {
            throw StoreError.classNotRegistered(name)
        }
        throw StoreError.unknownClassID(classID)
    }

    /// Detaches every live object (they keep their fields) and empties the identity maps.
    internal func detachAllLiveObjects() {
        let objects = entriesByType.values.flatMap { $0.takeAllLiveObjects() }
        for object in objects {
            object.detach()
        }
        insertedObjects.removeAll()
        updatedObjects.removeAll()
        deletedObjects.removeAll()
        pendingObjectCount = 0
    }

    /// A storage name is a file name that cannot collide with the store's own files.
    internal static func isValidStorageName(_ name: String) -> Bool {
        !name.hasPrefix("_") && TokyoCabinetBackend.isValidTableName(name)
    }
}
