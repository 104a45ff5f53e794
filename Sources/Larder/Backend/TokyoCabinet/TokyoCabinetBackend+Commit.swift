// TokyoCabinetBackend+Commit: how a batch is applied atomically across files: journal first
// (synced with `.full`), then every file in a Tokyo Cabinet transaction, then syncs of the files
// and their undo logs, then the journal's removal; a failure after a file committed is rolled
// forward from the journal, and a journal found at open is replayed (docs/FORMAT.md 12.2).

import Foundation

extension TokyoCabinetBackend {
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
            try CommitJournal.write(batch, to: journalPath, sync: sync)
            // The journal's name must be durable before any file changes; once it is, the
            // file stays (cleared between saves) and its name needs no sync again.
            if sync && !journalNameIsDurable {
                try injectFault("sync directory", path)
                try FileIO.syncDirectory(path)
                journalNameIsDurable = true
            }
        } catch {
            removeJournal()
            throw error
        }
        do {
            try applyToFiles(batch)
        } catch let failure as ApplyFailure where !failure.committedAny {
            // No file has the batch. Its journal must be gone for good before the save throws:
            // one that a power cut brings back (its unlink not yet durable) or that cannot be
            // removed would apply the failed save at the next open.
            do {
                journalNameIsDurable = false
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
        // The journal is cleared, not removed: the next save writes the same file again
        // instead of creating one and syncing its name into the directory (SQLite's persistent
        // journal). A journal left whole (or brought back by a power cut: its clearing is not
        // synced) is harmless: it is this save's, the last one, and replaying it rewrites the
        // same values. The next save's journal overwrites it, its header written last.
        try? injectFault("clear journal", journalPath)
        try? CommitJournal.clear(at: journalPath)
    }

    /// Removes the journal of a batch that failed before any file had it (best effort here:
    /// the caller removes it again where it must be gone); its name is no longer durable.
    private func removeJournal() {
        journalNameIsDurable = false
        try? FileIO.remove(journalPath)
    }

    /// Why applying a batch to the files failed, and whether any file had committed it.
    struct ApplyFailure: Error {
        var error: any Error
        var committedAny: Bool
    }

    /// Applies `batch` to its files: every file in a transaction (or, for a large share of a
    /// file with `.full` durability, into a shadow copy), all writes, then commits (the
    /// copies renamed over their files).
    func applyToFiles(_ batch: WriteBatch) throws {
        var open: [any TableDatabase] = []
        var shadows: [ShadowCopy] = []
        var targets: [any TableDatabase] = []
        do {
            for table in batch.tables {
                guard let database = try database(for: table, creatingFile: true) else { throw BackendError.readOnly }
                if usesShadowCopy(for: table, database: database, operations: batch.operationCount(in: table)) {
                    try injectFault("copy", database.path)
                    let shadow = try ShadowCopy(table: table, livePath: database.path) { copy in
                        try openFile(for: table, at: copy, readOnly: false)
                    }
                    shadows.append(shadow)
                    targets.append(shadow.database)
                    continue
                }
                try injectFault("begin transaction", database.path)
                try database.beginTransaction()
                open.append(database)
                targets.append(database)
            }
            try makeUndoLogsDurable(of: open)
            for (table, database) in zip(batch.tables, targets) {
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
            for shadow in shadows {
                try injectFault("sync", shadow.path)
                try shadow.finish()
            }
        } catch {
            open.forEach { $0.abort() }
            shadows.forEach { $0.discard() }
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
                shadows.forEach { $0.discard() }
                throw ApplyFailure(error: error, committedAny: true)
            }
        }
        try commit(shadows)
    }

    /// Whether `table`'s part of a batch, `operations` operations, is written through a shadow
    /// copy: with `.full` durability, for a file (not the lock file, which must keep its inode)
    /// that the batch rewrites a large share of (ShadowCopy.isCheaper), or as
    /// `shadowCopyPolicy` says. A B+tree file qualifies like a hash file: a committed
    /// transaction has written its cached leaves into the file, so a copy of it is whole.
    private func usesShadowCopy(for table: String, database: any TableDatabase, operations: Int) -> Bool {
        guard configuration.durability == .full, table != Self.lockTable else { return false }
        switch shadowCopyPolicy {
        case .automatic: return ShadowCopy.isCheaper(forOperations: operations, onFileAt: database.path)
        case .always: return true
        case .never: return false
        }
    }

    /// Renames each written shadow copy over its live file and syncs the directory; the old
    /// files' databases are closed after that (their last writes go to the replaced files) and
    /// reopened on next use. A failure here may leave some files renamed: the batch is rolled
    /// forward from the journal.
    private func commit(_ shadows: [ShadowCopy]) throws {
        guard !shadows.isEmpty else { return }
        defer { reopenOnNextUse(shadows.map(\.table)) }
        do {
            for (index, shadow) in shadows.enumerated() {
                do {
                    try injectFault("rename", shadow.livePath)
                    try FileIO.rename(shadow.path, to: shadow.livePath)
                } catch {
                    shadows[index...].forEach { $0.discard() }
                    throw error
                }
            }
            try injectFault("sync directory", path)
            try FileIO.syncDirectory(path)
        } catch {
            throw ApplyFailure(error: error, committedAny: true)
        }
    }

    /// Closes the databases of `tables`, whose files were replaced, so that the next use opens
    /// the new ones (with an undo log of their own to make durable).
    private func reopenOnNextUse(_ tables: [String]) {
        for table in tables {
            guard let database = databases.removeValue(forKey: table) else { continue }
            filesWithDurableUndoLog.remove(database.path)
            try? database.close()
        }
    }

    /// Finishes a batch that some files committed: applies it again (idempotent) and syncs.
    func rollForward(_ batch: WriteBatch) throws {
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
    /// the next open after the journal that redoes it is gone. A file whose commit synced it
    /// (``TableDatabase/commitSyncsFile``) or written through a shadow copy (synced before
    /// its rename) is not synced again; its log still is.
    func syncFiles(of batch: WriteBatch) throws {
        for table in batch.tables {
            guard let database = try database(for: table) else { continue }
            if !database.commitSyncsFile {
                try injectFault("sync", database.path)
                try database.sync()
            }
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
    func makeUndoLogsDurable(of databases: [any TableDatabase]) throws {
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

    /// Completes a batch whose journal is complete; discards a torn journal.
    func recoverInterruptedCommit() throws {
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
}
