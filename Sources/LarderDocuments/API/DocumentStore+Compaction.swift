// DocumentStore+Compaction: rewriting the store's files so that they hold only live
// documents, index runs and metadata, with nothing of a deleted, replaced or rekeyed one left
// in their free space.

import Larder

extension DocumentStore {
    /// Rewrites every file of the store into a fresh one holding only its live records and
    /// swaps them in atomically (see `TokyoCabinetBackend.compact()`): a crash at any point
    /// leaves the old files or the new ones, whole. Collections wait for it. The files shrink
    /// to what their records need; ``rekey(to:iterations:compact:)`` compacts by default.
    ///
    /// ```swift
    /// _ = try store.collection("logs").delete(where: "level = ?", arguments: ["debug"])
    /// try store.compact()
    /// ```
    public func compact() throws {
        try withLock {
            guard !backend.isReadOnly else { throw StoreError.readOnly }
            // Operations under way end first; the store's lock keeps new ones from starting.
            let loaded = Array(states.values)
            for state in loaded { state.lock.lock() }
            defer { for state in loaded { state.lock.unlock() } }
            try backend.compact()
        }
    }
}
