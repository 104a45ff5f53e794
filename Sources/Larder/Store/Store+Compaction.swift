// Store+Compaction: rewriting the store's files so that they hold only live records, with no
// byte of a deleted, overwritten or rekeyed one left in their free space.

extension Store {
    /// Rewrites every file of the store into a fresh one holding only its live records and
    /// swaps them in atomically (see ``TokyoCabinetBackend/compact()``): a crash at any point
    /// leaves the old files or the new ones, whole. Unsaved changes stay pending. The files
    /// shrink to what their records need, and nothing of a deleted or rekeyed record remains
    /// in them; ``rekey(to:iterations:compact:)`` compacts by default. A failure before the
    /// fresh files are committed leaves the old ones in use; a failure after that leaves the
    /// store refusing writes (`BackendError.needsRecovery(path:)`) until it is reopened, which
    /// finishes the swap.
    ///
    /// ```swift
    /// for song in oldSongs { try store.delete(song) }
    /// try store.saveChanges()
    /// try store.compact()
    /// ```
    public func compact() throws {
        try checkOpen()
        guard !backend.isReadOnly else { throw StoreError.readOnly }
        // Cached pages may point into the files' mapped memory.
        forgetCachedPages()
        try backend.compact()
    }
}
