// TokyoCabinetBackend: a store directory with one Tokyo Cabinet hash database per table
// (`Song.tch`, `_store.tch`, `_names.tch`) or B+tree database per table declared ordered
// (`people.0.idx.tcb`: the file extension is how the kind persists), opened on first use, and
// a commit journal that makes every batch atomic across them. This file: opening and table
// access; the commit (journal, transactions, syncs, recovery) and the files (opening, creating,
// locking) are extensions of their own.

import Foundation

/// The ``Backend`` that keeps a store in a directory of Tokyo Cabinet hash database files,
/// one per table, committing every ``WriteBatch`` through a journal so that it is applied to
/// all files or to none, even across a crash.
///
/// ```swift
/// let backend = try TokyoCabinetBackend(path: "/tmp/music.larder")
/// let store = try Store(backend: backend)
/// ```
///
/// The directory is locked through its `_store.tch` file: one writing process, or any number
/// of reading processes, at a time.
///
/// A table declared ordered (``declareOrderedTable(_:)``) is a B+tree file whose keys are kept
/// in byte order, which ``forEachRecord(in:from:through:reverse:_:)`` scans by range.
public final class TokyoCabinetBackend: Backend, FaultInjectable {
    /// The store directory.
    public let path: String
    /// How the store was opened.
    public let configuration: BackendConfiguration
    var databases: [String: any TableDatabase] = [:]
    private(set) var isClosed = false
    /// Set when a batch passed its commit point but could not be finished: only reopening
    /// (which replays the journal) brings the files and memory back in step.
    var needsRecovery = false
    /// Files whose undo log was created and synced into the directory since they were opened.
    var filesWithDurableUndoLog: Set<String> = []
    /// True while the commit journal's file exists and its name was synced into the directory
    /// (after the first `.full` save): later saves reuse the file, cleared, and need no
    /// directory sync for it.
    var journalNameIsDurable = false
    /// Fails a chosen file operation (tests only).
    package var faultInjector: FaultInjector?
    /// When a batch is written through a shadow copy of a file (ShadowCopy); tests choose
    /// `.always` to put the copy under crashes and injected faults.
    package var shadowCopyPolicy = ShadowCopy.Policy.automatic

    /// The tables declared ordered (B+tree files).
    private(set) var orderedTables: Set<String> = []

    /// The table whose file locks the whole directory.
    static let lockTable = "_store"

    /// Opens the store directory at `path` with the default configuration, creating it if it
    /// does not exist.
    ///
    /// ```swift
    /// let backend = try TokyoCabinetBackend(path: "/tmp/music.larder")
    /// ```
    public convenience init(path: String) throws {
        try self.init(path: path, configuration: BackendConfiguration())
    }

    /// Opens the store directory at `path`: locks it (waiting up to the configuration's
    /// `lockTimeout`), then finishes or discards a save interrupted by a crash.
    ///
    /// Throws ``BackendError/notADirectory(path:)`` when `path` is a file,
    /// ``BackendError/locked(path:)`` when another process holds the store.
    ///
    /// ```swift
    /// let reader = try TokyoCabinetBackend(path: "/tmp/music.larder", configuration: .init(readOnly: true))
    /// ```
    public init(path: String, configuration: BackendConfiguration) throws {
        self.path = path
        journalPath = (path as NSString).appendingPathComponent("_journal")
        self.configuration = configuration
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw BackendError.notADirectory(path: path) }
        } else if configuration.readOnly {
            throw BackendError.cannotOpen(path: path, reason: "no store at this path")
        }
        if configuration.readOnly && !FileIO.exists(filePath(for: Self.lockTable)) {
            throw BackendError.cannotOpen(path: path, reason: "no store at this path")
        } else {
            do {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            } catch {
                throw BackendError.cannotOpen(path: path, reason: "\(error)")
            }
        }
        try declareOrderedTablesOnDisk()
        try lockStore()
        try finishInterruptedCompaction()
        try recoverInterruptedCommit()
        if !configuration.readOnly { removeAbandonedFiles() }
    }

    /// The file that holds `table`: `.tch` (hash), or `.tcb` (B+tree) for an ordered table.
    package func filePath(for table: String) -> String {
        (path as NSString).appendingPathComponent(table + (orderedTables.contains(table) ? ".tcb" : ".tch"))
    }

    /// Declares `table` ordered: it is kept in a B+tree file (`<table>.tcb`).
    ///
    /// ```swift
    /// backend.declareOrderedTable("people.0.idx")
    /// ```
    public func declareOrderedTable(_ table: String) {
        orderedTables.insert(table)
    }

    /// The commit journal's file: written before a batch touches any other file, cleared
    /// once every file has it (a save reuses the file rather than creating and unlinking one),
    /// removed when the store closes.
    package let journalPath: String

    /// True when the store was opened with `readOnly`: ``apply(_:)`` throws.
    ///
    /// ```swift
    /// if backend.isReadOnly { print("browsing only") }
    /// ```
    public var isReadOnly: Bool { configuration.readOnly }

    /// Calls `body` with the record under `key` in `table` (a `.tch` file), or nil.
    ///
    /// ```swift
    /// try backend.readValue(forKey: RowIDKey.bytes(1), in: "Song") { record in print(record?.count ?? 0) }
    /// ```
    public func readValue(
        forKey key: [UInt8], in table: String,
        _ body: (UnsafeRawBufferPointer?) throws -> Void
    ) throws {
        guard let database = try database(for: table) else { return try body(nil) }
        try database.readValue(forKey: key, body)
    }

    /// Calls `body` with the position of each of `keys` in turn and the value stored under it
    /// in `table`, or nil when there is none: ``readValue(forKey:in:_:)`` for many keys, with
    /// the table looked up once. Each pointer is valid only during its call, which must not
    /// write to the backend.
    ///
    /// ```swift
    /// try backend.readValues(forKeys: [RowIDKey.bytes(1), RowIDKey.bytes(2)], in: "Song") { position, value in
    ///     print(position, value?.count ?? 0)
    /// }
    /// ```
    public func readValues(
        forKeys keys: [[UInt8]], in table: String,
        _ body: (Int, UnsafeRawBufferPointer?) throws -> Void
    ) throws {
        let database = try database(for: table)
        for position in keys.indices {
            guard let database else { try body(position, nil); continue }
            try database.readValue(forKey: keys[position]) { try body(position, $0) }
        }
    }

    /// Calls `body` once with the values of `keys` in `table`, in order, all read in place in
    /// the file's mapped memory, and returns true; returns false without calling it when
    /// they cannot all be (a B+tree table, a key without a value, a value only Tokyo Cabinet
    /// can read): ``readValues(forKeys:in:_:)`` reads them then. The pointers are valid only
    /// during `body`, which must not write to the store.
    ///
    /// ```swift
    /// let inPlace = try backend.withValuesInPlace(forKeys: [RowIDKey.bytes(1)], in: "Song") { values in
    ///     print(values[0].count)
    /// }
    /// ```
    public func withValuesInPlace(
        forKeys keys: [[UInt8]], in table: String,
        _ body: (UnsafeBufferPointer<UnsafeRawBufferPointer>) throws -> Void
    ) throws -> Bool {
        try withValuesInPlace(forKeys: PackedKeys(keys), in: table, body)
    }

    /// `withValuesInPlace(forKeys:in:_:)` for keys packed in one buffer: where the work is done.
    ///
    /// ```swift
    /// let inPlace = try backend.withValuesInPlace(forKeys: PackedKeys([RowIDKey.bytes(1)]), in: "Song") { values in
    ///     print(values[0].count)
    /// }
    /// ```
    public func withValuesInPlace(
        forKeys keys: PackedKeys, in table: String,
        _ body: (UnsafeBufferPointer<UnsafeRawBufferPointer>) throws -> Void
    ) throws -> Bool {
        guard let database = try database(for: table) as? HashDatabase else { return false }
        // A temporary buffer rather than an array: no array type to set up on a first call.
        return try withUnsafeTemporaryAllocation(of: UnsafeRawBufferPointer.self, capacity: keys.count) { values in
            guard try database.valuesInPlace(forKeys: keys, into: values) else { return false }
            try body(UnsafeBufferPointer(values))
            return true
        }
    }

    /// Calls `body` with every record of `table` in file order (Tokyo Cabinet's
    /// `tchdbforeach`), until it returns false.
    ///
    /// ```swift
    /// try backend.forEachRecord(in: "Song") { key, value in true }
    /// ```
    public func forEachRecord(
        in table: String,
        _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        try database(for: table)?.forEachRecord(body)
    }

    /// Calls `body` once with every record of `table` (a `.tch` file), in file order, all
    /// read in place in the file's mapped memory, and returns true; returns false without
    /// calling it when they cannot be read in place (``forEachRecord(in:_:)`` reads them
    /// then). The pointers are valid only during `body`, which must not write to the store;
    /// other threads may read them while it runs.
    ///
    /// ```swift
    /// let inPlace = try backend.withRecordsInPlace(in: "Song") { records in print(records.count) }
    /// ```
    public func withRecordsInPlace(
        in table: String,
        _ body: ([(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)]) throws -> Void
    ) throws -> Bool {
        guard let database = try database(for: table) as? HashDatabase,
              let records = try database.recordsInPlace() else { return false }
        try body(records)
        return true
    }

    /// Calls `body` with the records of the ordered table `table` whose keys lie between
    /// `start` and `end` (inclusive; nil is open), in ascending byte order of keys, or
    /// descending when `reverse`, until it returns false. Throws
    /// ``BackendError/unorderedTable(_:)`` for a hash table.
    ///
    /// ```swift
    /// try backend.forEachRecord(in: "people.0.idx", from: [0x10], through: [0x10, 0xFF]) { key, _ in true }
    /// ```
    public func forEachRecord(
        in table: String, from start: [UInt8]?, through end: [UInt8]?, reverse: Bool,
        _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        guard orderedTables.contains(table) else { throw BackendError.unorderedTable(table) }
        guard let database = try database(for: table) as? BTreeDatabase else { return }
        try database.forEachRecord(from: start, through: end, reverse: reverse, body)
    }

    /// Calls `body` with the records of the ordered table `table` in ascending key order,
    /// from the one that holds `start` (the last whose key is at or before it, or the first
    /// when none is) through the last whose key is at or before `end` (nil is open), until it
    /// returns false: the runs of entries of an index that a range starting at `start` meets.
    ///
    /// ```swift
    /// try backend.forEachRecord(in: "people.0.idx", holding: [0x10, 0x41], through: [0x10, 0xFF]) { key, _ in true }
    /// ```
    public func forEachRecord(
        in table: String, holding start: [UInt8], through end: [UInt8]?,
        _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        guard orderedTables.contains(table) else { throw BackendError.unorderedTable(table) }
        guard let database = try database(for: table) as? BTreeDatabase else { return }
        try database.forEachRecord(from: start, through: end, reverse: false, backingUp: true, body)
    }

    /// The number of records in `table` (`tchdbrnum`); 0 for a table with no file yet.
    ///
    /// ```swift
    /// let songs = try backend.recordCount(in: "Song")
    /// ```
    public func recordCount(in table: String) throws -> Int {
        try database(for: table)?.recordCount() ?? 0
    }

    /// Closes every open file, releasing the store's lock.
    ///
    /// ```swift
    /// try backend.close()
    /// ```
    public func close() throws {
        guard !isClosed else { return }
        isClosed = true
        var firstError: (any Error)?
        for database in databases.values {
            do { try database.close() } catch { firstError = firstError ?? error }
        }
        databases.removeAll()
        // Every save ended with the journal cleared, unless one could not be finished: its
        // journal stays for the next open to replay.
        if !configuration.readOnly && !needsRecovery { try? FileIO.remove(journalPath) }
        if let firstError { throw firstError }
    }
}
