// TokyoCabinetBackend: a store directory with one Tokyo Cabinet hash database per table
// (`Song.tch`, `_store.tch`, `_names.tch`) or B+tree database per table declared ordered
// (`people.0.idx.tcb`: the file extension is how the kind persists), opened on first use, and
// a commit journal that makes every batch atomic across them.

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
    /// Fails a chosen file operation (tests only).
    package var faultInjector: FaultInjector?

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

    /// The commit journal's file, present only while a batch is being applied.
    package var journalPath: String {
        (path as NSString).appendingPathComponent("_journal")
    }

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

    /// Applies the batch atomically across files: writes it to the journal (synced, with
    /// `.full` durability), applies it to every file inside Tokyo Cabinet transactions, syncs
    /// the files, and removes the journal.
    ///
    /// A failure before any file commits leaves every file as it was. A failure after that
    /// is rolled forward from the journal; if even that fails, the backend refuses further
    /// work with ``BackendError/needsRecovery(path:)`` until the store is reopened, which
    /// completes the batch.
    public func apply(_ batch: WriteBatch) throws {
        guard !isClosed else { throw BackendError.closed }
        guard !configuration.readOnly else { throw BackendError.readOnly }
        guard !needsRecovery else { throw BackendError.needsRecovery(path: path) }
        guard !batch.isEmpty else { return }
        let sync = configuration.durability == .full
        // Every file the batch writes exists before its journal does: a journal replayed after
        // a crash then finds each table's file of the right kind (an ordered table's B+tree
        // file says it is ordered, whoever declared it before the crash).
        try createMissingFiles(of: batch)
        do {
            try injectFault("write journal", journalPath)
            try FileIO.write(CommitJournal.encode(batch), to: journalPath, sync: sync)
            if sync {
                try injectFault("sync directory", path)
                try FileIO.syncDirectory(path)
            }
        } catch {
            try? FileIO.remove(journalPath)
            throw error
        }
        do {
            try applyToFiles(batch)
        } catch let failure as ApplyFailure where !failure.committedAny {
            // No file has the batch. Its journal must be gone for good before the save throws:
            // one that a power cut brings back (its unlink not yet durable) or that cannot be
            // removed would apply the failed save at the next open.
            do {
                try FileIO.remove(journalPath)
                if sync {
                    try injectFault("sync directory", path)
                    try FileIO.syncDirectory(path)
                }
            } catch {
                needsRecovery = true
            }
            throw failure.error
        } catch {
            try rollForward(batch)
        }
        if sync {
            do {
                try syncFiles(of: batch)
            } catch {
                try rollForward(batch)
            }
        }
        // A journal left behind (or brought back by a power cut: its unlink is not synced) is
        // harmless: it is this save's, the last one, and replaying it rewrites the same values.
        // The next save's journal replaces it, and is synced into the directory first.
        try? injectFault("remove journal", journalPath)
        try? FileIO.remove(journalPath)
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
        if let firstError { throw firstError }
    }

    // MARK: Commit machinery

    /// Why applying a batch to the files failed, and whether any file had committed it.
    private struct ApplyFailure: Error {
        var error: any Error
        var committedAny: Bool
    }

    /// Applies `batch` to its files: every file in a transaction, all writes, then commits.
    private func applyToFiles(_ batch: WriteBatch) throws {
        var open: [any TableDatabase] = []
        do {
            for table in batch.tables {
                guard let database = try database(for: table, creatingFile: true) else { throw BackendError.readOnly }
                try injectFault("begin transaction", database.path)
                try database.beginTransaction()
                open.append(database)
            }
            try makeUndoLogsDurable(of: open)
            for (table, database) in zip(batch.tables, open) {
                try batch.forEachOperation(in: table) { kind, key, value in
                    switch kind {
                    case .put:
                        try injectFault("write", database.path)
                        try database.put(value, forKey: key)
                    case .insert:
                        try injectFault("write", database.path)
                        try database.putNew(value, forKey: key)
                    case .delete:
                        try injectFault("delete", database.path)
                        try database.delete(key)
                    }
                }
            }
        } catch {
            open.forEach { $0.abort() }
            throw ApplyFailure(error: error, committedAny: false)
        }
        for (index, database) in open.enumerated() {
            do {
                try injectFault("commit", database.path)
                try database.commit()
            } catch {
                // Tokyo Cabinet ends a transaction whose commit fails: the file may hold the
                // batch or part of it, and an abort undoes nothing (it only ends a transaction
                // a failure before Tokyo Cabinet's commit left open). Only a roll-forward from
                // the journal is safe, even for the first file.
                open[index...].forEach { $0.abort() }
                throw ApplyFailure(error: error, committedAny: true)
            }
        }
    }

    /// Finishes a batch that some files committed: applies it again (idempotent) and syncs.
    private func rollForward(_ batch: WriteBatch) throws {
        do {
            try applyToFiles(batch)
            if configuration.durability == .full { try syncFiles(of: batch) }
        } catch {
            needsRecovery = true
            throw (error as? ApplyFailure)?.error ?? error
        }
    }

    /// Syncs the batch's files, then their undo logs: Tokyo Cabinet empties a file's log at
    /// commit without syncing it, and a log a power cut brings back would undo the commit at
    /// the next open after the journal that redoes it is gone.
    private func syncFiles(of batch: WriteBatch) throws {
        for table in batch.tables {
            guard let database = try database(for: table) else { continue }
            try injectFault("sync", database.path)
            try database.sync()
            let undoLog = Self.undoLogPath(of: database.path)
            if FileIO.exists(undoLog) {
                try injectFault("sync undo log", undoLog)
                try FileIO.syncFile(undoLog)
            }
        }
    }

    /// With `.full` durability, syncs the directory once after a file's first transaction
    /// created its undo log (`<file>.wal`, which Tokyo Cabinet creates without syncing the
    /// directory), before any byte of the file changes: a log whose name a power cut loses
    /// cannot restore the file.
    private func makeUndoLogsDurable(of databases: [any TableDatabase]) throws {
        guard configuration.durability == .full else { return }
        let newLogs = databases.map(\.path).filter { !filesWithDurableUndoLog.contains($0) }
        guard !newLogs.isEmpty else { return }
        try injectFault("sync directory", path)
        try FileIO.syncDirectory(path)
        filesWithDurableUndoLog.formUnion(newLogs)
    }

    /// Tokyo Cabinet's undo log of the database file at `path`, present while it is open for
    /// writing after its first transaction.
    static func undoLogPath(of path: String) -> String { path + ".wal" }

    /// Opens the lock table, waiting for another process up to the configured timeout.
    private func lockStore() throws {
        let deadline = Date().addingTimeInterval(configuration.lockTimeout)
        while true {
            do {
                _ = try database(for: Self.lockTable, creatingFile: true)
                if holdsCurrentLockFile() { return }
            } catch BackendError.locked(let lockedPath) {
                guard Date() < deadline else { throw BackendError.locked(path: lockedPath) }
                Thread.sleep(forTimeInterval: 0.01)
            }
        }
    }

    /// Completes a batch whose journal is complete; discards a torn journal.
    private func recoverInterruptedCommit() throws {
        guard let bytes = try FileIO.read(journalPath) else { return }
        guard let batch = CommitJournal.decode(bytes) else {
            if !configuration.readOnly { try FileIO.remove(journalPath) }
            return
        }
        guard !configuration.readOnly else { throw BackendError.needsRecovery(path: path) }
        do {
            try applyToFiles(batch)
        } catch let failure as ApplyFailure {
            throw failure.error
        }
        try syncFiles(of: batch)
        try FileIO.remove(journalPath)
        try FileIO.syncDirectory(path)
    }

    func injectFault(_ operation: String, _ path: String) throws {
        try faultInjector?.check(operation, path: path)
    }

    // MARK: Files

    /// The open database of `table`, opening it on first use; nil for a table with no file,
    /// unless `creatingFile` (a write, or the lock) in a writable store creates it. Reads
    /// never create a file: `verify()` and a look-up change nothing on disk.
    func database(for table: String, creatingFile: Bool = false) throws -> (any TableDatabase)? {
        if let database = databases[table] { return database }
        guard !isClosed else { throw BackendError.closed }
        guard Self.isValidTableName(table) else { throw BackendError.invalidTableName(table) }
        let filePath = filePath(for: table)
        if !FileIO.exists(filePath) {
            if configuration.readOnly || !creatingFile { return nil }
            try createFile(filePath) { try openFile(for: table, at: $0, readOnly: false).close() }
        }
        // Tokyo Cabinet's open restores a file from an undo log a crash left, then unlinks the
        // log, without syncing the restored bytes: sync them at once, so that a second power
        // cut finds the file restored or its log still there (a small window remains between
        // the unlink and this sync; Tokyo Cabinet offers no hook inside its open).
        let hadUndoLog = !configuration.readOnly && FileIO.exists(Self.undoLogPath(of: filePath))
        let database = try openFile(for: table, at: filePath, readOnly: configuration.readOnly)
        if hadUndoLog { try database.sync() }
        databases[table] = database
        return database
    }

    /// Opens a table's file. With `.full` durability Tokyo Cabinet syncs its own undo log before
    /// it changes a byte of the file: the commit journal can replay a batch's puts, but only
    /// into a file whose structure is whole, and a power cut inside a commit would otherwise
    /// leave bucket chains and free-block lists half-written (`invalid record header`).
    func openFile(for table: String, at filePath: String, readOnly: Bool) throws -> any TableDatabase {
        let syncs = configuration.durability == .full
        if orderedTables.contains(table) {
            return try BTreeDatabase(path: filePath, readOnly: readOnly, syncsTransactions: syncs)
        }
        let tuning: HashDatabase.Tuning = table.hasPrefix("_") ? .smallFile : .classFile
        return try HashDatabase(path: filePath, tuning: tuning, readOnly: readOnly, syncsTransactions: syncs)
    }

    /// Declares ordered every table whose file is a B+tree file (`<table>.tcb`): the file
    /// extension is how an ordered table's kind persists.
    private func declareOrderedTablesOnDisk() throws {
        guard FileIO.exists(path) else { return }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw BackendError.ioFailure(path: path, operation: "list directory", reason: "\(error)")
        }
        for name in names where name.hasSuffix(".tcb") {
            let table = String(name.dropLast(4))
            if Self.isValidTableName(table) { declareOrderedTable(table) }
        }
    }

    /// Creates the file of every table of `batch` that has none yet.
    private func createMissingFiles(of batch: WriteBatch) throws {
        for table in batch.tables where databases[table] == nil {
            guard try database(for: table, creatingFile: true) != nil else { throw BackendError.readOnly }
        }
    }

    /// Removes files a process killed while creating a database file left behind (the writer
    /// holds the store's lock, so no other process is creating one now).
    private func removeAbandonedFiles() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        for name in names where name.contains(Self.creatingMarker) {
            try? FileIO.remove((path as NSString).appendingPathComponent(name))
        }
    }

    /// What a file's name carries while it is being created.
    private static let creatingMarker = ".creating-"

    /// Creates a database file whole or not at all. Tokyo Cabinet writes a new file's header
    /// and bucket array in several steps, and a process killed between them leaves a file that
    /// cannot be opened: the file is made under a temporary name, synced, and linked into
    /// place (never over a file another process made first).
    private func createFile(_ filePath: String, _ make: (String) throws -> Void) throws {
        let temporary = filePath + Self.creatingMarker + "\(getpid())"
        try FileIO.remove(temporary)
        defer { try? FileIO.remove(temporary) }
        try make(temporary)
        let sync = configuration.durability == .full
        if sync { try FileIO.syncFile(temporary) }
        if try FileIO.linkUnlessExists(temporary, as: filePath), sync {
            try FileIO.syncDirectory(path)
        }
    }

    /// A table name is a file name: letters, digits, `_`, `-`, `.`; not starting with `.`.
    static func isValidTableName(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 200, !name.hasPrefix(".") else { return false }
        return name.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0" ... "9").contains(scalar)
                               || scalar == "_" || scalar == "-" || scalar == ".")
        }
    }
}
