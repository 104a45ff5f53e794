// TokyoCabinetBackend+Compaction: rewriting every file of a store into a fresh one, so that
// what Tokyo Cabinet left in freed space (old versions of records, records deleted or
// rekeyed, pages of old index runs) is gone, and swapping the fresh files in crash-safely
// through a compaction plan (CompactionPlan).
//
// Steps: (1) each table's records are copied into `<file>.compacting`, a new file with the
// table's tuning that never freed a byte, and synced; (2) every live file but the lock file
// is closed; (3) the plan is written and synced, and the directory synced: the commit point;
// (4) each copy is renamed over its file, the lock file last; (5) the directory is synced,
// the plan removed, and the directory synced again. A compaction changes no record, so a
// store caught between (3) and (5), some files old and some new, holds the same data: open
// finishes the renames; before (3), open deletes the copies.
//
// The lock: the directory is locked by Tokyo Cabinet's fcntl lock on the open `_store.tch`,
// and closing any descriptor of a file drops the process's fcntl locks on it. So the lock
// file is never closed and reopened: its copy stays open (and so locked) from its creation,
// is renamed over `_store.tch` while the old file is still open and locked, and the two trade
// names (HashDatabase.tradeNames(with:)). At every instant the file named `_store.tch` is
// locked by this process. The old file stays open, and locked, until the next compaction or
// close: another process that opened `_store.tch` just before the rename and locks it after
// finds it locked and tries again, on the new file. (Should it lock the old file all the same,
// after a stall that long, it sees that the file is no longer `_store.tch`, and tries again:
// holdsCurrentLockFile().)

import Foundation

extension TokyoCabinetBackend {
    /// The compaction plan's file, present only while fresh copies are being swapped in.
    public var compactionPlanPath: String {
        (path as NSString).appendingPathComponent("_compaction")
    }

    /// Rewrites every file of the store into a fresh one holding only its live records, and
    /// swaps them in atomically: a crash at any point leaves the old files or the new ones
    /// (open finishes or discards an interrupted compaction). Afterwards no byte of a deleted,
    /// overwritten or rekeyed record remains in the store's files, and the files are as small
    /// as their records allow. Always synced, whatever the durability. Takes a while on a
    /// large store: every record is copied once.
    ///
    /// ```swift
    /// try backend.compact()
    /// ```
    public func compact() throws {
        guard !isClosed else { throw BackendError.closed }
        guard !configuration.readOnly else { throw BackendError.readOnly }
        guard !needsRecovery else { throw BackendError.needsRecovery(path: path) }
        try databases.removeValue(forKey: Self.retiredLockFile)?.close()
        let tables = try tablesOnDisk()
        removeCompactionCopies()
        var lockCopy: (any TableDatabase)?
        do {
            for table in tables {
                if let copy = try writeCopy(of: table) { lockCopy = copy }
            }
            try closeEveryFileButTheLockFile()
            try injectFault("write compaction plan", compactionPlanPath)
            try FileIO.write(CompactionPlan.encode(tables), to: compactionPlanPath, sync: true)
            try injectFault("sync directory", path)
            try FileIO.syncDirectory(path)
        } catch {
            try? lockCopy?.close()
            try? FileIO.remove(compactionPlanPath)
            removeCompactionCopies()
            throw error
        }
        do {
            try swapInCopies(of: tables, lockCopy: lockCopy)
        } catch {
            // Past the commit point: reopening finishes the swap.
            needsRecovery = true
            throw error
        }
    }

    /// Finishes a compaction whose plan is complete, and deletes the copies of one that never
    /// reached its plan (called on open, with the store locked). A read-only open leaves
    /// both alone: old and new files hold the same records.
    func finishInterruptedCompaction() throws {
        guard !configuration.readOnly else { return }
        if let bytes = try FileIO.read(compactionPlanPath), let tables = CompactionPlan.decode(bytes) {
            var lockCopy: (any TableDatabase)?
            if tables.contains(Self.lockTable), FileIO.exists(compactionCopyPath(for: Self.lockTable)) {
                lockCopy = try openFile(for: Self.lockTable, at: compactionCopyPath(for: Self.lockTable), readOnly: false)
            }
            try closeEveryFileButTheLockFile()
            try swapInCopies(of: tables, lockCopy: lockCopy)
        } else if FileIO.exists(compactionPlanPath) {
            try FileIO.remove(compactionPlanPath)
            try FileIO.syncDirectory(path)
        }
        removeCompactionCopies()
    }

    // MARK: Steps

    /// The tables with a file in the directory, the lock table last.
    private func tablesOnDisk() throws -> [String] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw BackendError.ioFailure(path: path, operation: "list directory", reason: "\(error)")
        }
        let tables = names.compactMap { name -> String? in
            guard name.hasSuffix(".tch") || name.hasSuffix(".tcb") else { return nil }
            let table = String(name.dropLast(4))
            guard Self.isValidTableName(table), (filePath(for: table) as NSString).lastPathComponent == name else { return nil }
            return table
        }
        return tables.filter { $0 != Self.lockTable }.sorted() + [Self.lockTable]
    }

    /// Under what the old lock file is kept open (and locked) after a compaction, until the
    /// next one or ``close()``: a key no table name can be (it holds `/` and a space).
    static let retiredLockFile = "/retired lock file"

    /// True when the lock file this backend opened is still the file named `_store.tch`. If
    /// not (a compaction in another process renamed a fresh one over it between this open and
    /// its lock), closes it, so that the next attempt opens and locks the new one.
    func holdsCurrentLockFile() -> Bool {
        guard let lock = databases[Self.lockTable] as? HashDatabase, !lock.isStillAtItsPath() else { return true }
        databases[Self.lockTable] = nil
        try? lock.close()
        return false
    }

    /// Where the fresh copy of `table` is written.
    func compactionCopyPath(for table: String) -> String {
        filePath(for: table) + Self.compactionCopySuffix
    }

    /// What a fresh copy's file name ends with.
    static let compactionCopySuffix = ".compacting"

    /// Writes every record of `table` into a fresh file and syncs it. Returns the copy of the
    /// lock table still open (it must keep the lock once renamed); closes any other.
    private func writeCopy(of table: String) throws -> (any TableDatabase)? {
        guard let source = try database(for: table) else { throw BackendError.readOnly }
        let copyPath = compactionCopyPath(for: table)
        try injectFault("create copy", copyPath)
        let copy = try openFile(for: table, at: copyPath, readOnly: false)
        do {
            try source.forEachRecord { key, value in
                try self.injectFault("copy", copyPath)
                try copy.put(value, forKey: key)
                return true
            }
            try injectFault("sync", copyPath)
            try copy.sync()
            if table == Self.lockTable { return copy }
            try copy.close()
            // Closing rewrites the header: sync again.
            try FileIO.syncFile(copyPath)
            return nil
        } catch {
            try? copy.close()
            throw error
        }
    }

    /// Closes every open file but the lock file (closing a file removes its undo log: a file
    /// opened again makes a new one, whose name the directory must hold durably again).
    private func closeEveryFileButTheLockFile() throws {
        for (table, database) in databases where table != Self.lockTable {
            databases[table] = nil
            filesWithDurableUndoLog.remove(database.path)
            try database.close()
        }
    }

    /// Renames each table's copy (if it is still there) over its file, the lock table last,
    /// then syncs the directory and removes the plan.
    private func swapInCopies(of tables: [String], lockCopy: (any TableDatabase)?) throws {
        for table in tables where table != Self.lockTable {
            let copyPath = compactionCopyPath(for: table)
            guard FileIO.exists(copyPath) else { continue }
            try injectFault("rename", copyPath)
            try FileIO.rename(copyPath, to: filePath(for: table))
        }
        if let lockCopy = lockCopy as? HashDatabase {
            try injectFault("rename", lockCopy.path)
            try FileIO.rename(lockCopy.path, to: filePath(for: Self.lockTable))
            if let oldLock = databases[Self.lockTable] as? HashDatabase {
                try lockCopy.tradeNames(with: oldLock)
                databases[Self.retiredLockFile] = oldLock
            }
            // The fresh lock file makes its undo log anew.
            filesWithDurableUndoLog.remove(lockCopy.path)
            databases[Self.lockTable] = lockCopy
        }
        try injectFault("sync directory", path)
        try FileIO.syncDirectory(path)
        try injectFault("remove compaction plan", compactionPlanPath)
        try FileIO.remove(compactionPlanPath)
        try FileIO.syncDirectory(path)
    }

    /// Deletes every fresh copy (and any undo log Tokyo Cabinet made for one) in the directory.
    private func removeCompactionCopies() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        for name in names where name.hasSuffix(Self.compactionCopySuffix) || name.hasSuffix(Self.compactionCopySuffix + ".wal") {
            try? FileIO.remove((path as NSString).appendingPathComponent(name))
        }
    }
}
