// TokyoCabinetBackend+Files: a store directory's files: the database of each table, opened on
// first use (a hash file, or a B+tree file for an ordered table) and created whole or not at all,
// the directory's lock, and the files a killed process left behind.

import Foundation

extension TokyoCabinetBackend {
    /// Opens the lock table, waiting for another process up to the configured timeout.
    func lockStore() throws {
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
    func declareOrderedTablesOnDisk() throws {
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
    func createMissingFiles(of batch: WriteBatch) throws {
        for table in batch.tables where databases[table] == nil {
            guard try database(for: table, creatingFile: true) != nil else { throw BackendError.readOnly }
        }
    }

    /// Removes files a process killed while creating a database file left behind (the writer
    /// holds the store's lock, so no other process is creating one now).
    func removeAbandonedFiles() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        for name in names where name.contains(Self.creatingMarker) {
            try? FileIO.remove((path as NSString).appendingPathComponent(name))
        }
    }

    /// What a file's name carries while it is being created.
    static let creatingMarker = ".creating-"

    /// Creates a database file whole or not at all. Tokyo Cabinet writes a new file's header
    /// and bucket array in several steps, and a process killed between them leaves a file that
    /// cannot be opened: the file is made under a temporary name, synced, and linked into
    /// place (never over a file another process made first).
    func createFile(_ filePath: String, _ make: (String) throws -> Void) throws {
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
