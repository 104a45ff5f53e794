// ShadowCopy: how a batch that rewrites a large part of a file (hash or B+tree) commits with
// `.full` durability without an fsync per changed region. Tokyo Cabinet's synced undo log
// (HDBOTSYNC) fsyncs the log before every region of the file it changes: several fsyncs per
// record, tens of thousands for a save that updates a third of a million objects. Instead, the file is copied,
// the batch is written into the copy (outside any transaction), the copy is synced and renamed
// over the file: the live file is never changed in place, so a power cut leaves it whole, old
// or new, and the commit journal redoes the batch on the old one (docs/FORMAT.md 12.2).

import Glibc

/// A copy of one file that a batch is written into, to be renamed over the file.
package final class ShadowCopy {
    /// Which batches take a shadow copy (always with `.full` durability, never for the lock file).
    package enum Policy: Sendable {
        /// When it is cheaper than the synced undo log (``isCheaper(forOperations:onFileAt:)``).
        case automatic
        /// Every batch, whatever its size (tests).
        case always
        /// No batch: the undo log always (tests).
        case never
    }

    /// A batch takes the shadow copy when it has this many operations on a file for each of
    /// the file's bytes the copy must move: a region synced through the undo log costs about
    /// what copying and syncing this many bytes does (about 6 fsyncs per record written).
    static let bytesPerOperation = 64 << 10
    /// Below this many operations the undo log is always cheaper (and a copy is work for nothing).
    static let minimumOperations = 16

    /// The table whose file is copied.
    let table: String
    /// The live file.
    let livePath: String
    /// The copy's path: marked as a file being created, so that one a crash leaves is removed
    /// at the next open (TokyoCabinetBackend.removeAbandonedFiles).
    let path: String
    /// The copy, open for writing.
    private(set) var database: any TableDatabase

    /// Copies the live file of `table` at `livePath` (whose database has committed every
    /// write: its bytes in the page cache are whole) and opens the copy with `open`.
    /// The copy carries the live file's "open" flag, so Tokyo Cabinet does not trust the free
    /// block list stored in it, which may be older than the records.
    init(table: String, livePath: String, open: (String) throws -> any TableDatabase) throws {
        self.table = table
        self.livePath = livePath
        path = livePath + TokyoCabinetBackend.creatingMarker + "\(getpid())-shadow"
        try FileIO.remove(path)
        do {
            try FileIO.copy(livePath, to: path, sync: false)
            database = try open(path)
        } catch {
            try? FileIO.remove(path)
            throw error
        }
    }

    /// Whether a batch of `operationCount` operations on the file at `livePath` should be
    /// written through a shadow copy.
    static func isCheaper(forOperations operationCount: Int, onFileAt livePath: String) -> Bool {
        guard operationCount >= minimumOperations, let size = FileIO.size(of: livePath) else { return false }
        return operationCount.multipliedReportingOverflow(by: bytesPerOperation).partialValue >= size
    }

    /// Makes the written copy durable: syncs it, closes it (Tokyo Cabinet writes its header
    /// and free block list at close), and syncs it again.
    func finish() throws {
        try database.sync()
        try database.close()
        try FileIO.syncFile(path)
    }

    /// Closes and removes the copy (the batch failed before it was renamed).
    func discard() {
        try? database.close()
        try? FileIO.remove(path)
    }
}
