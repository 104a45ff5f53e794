// Named data buffers: bookmarks and small documents kept under a name, written at once,
// outside the unit of work.

extension Store {
    /// Stores `buffer` under `name`, at once (not at the next save), replacing any buffer of
    /// that name.
    ///
    /// ```swift
    /// var bookmark = DataBuffer()
    /// bookmark.writeReference(currentPlaylist)
    /// try store.setDataBuffer(bookmark, forName: "current-playlist")
    /// ```
    public func setDataBuffer(_ buffer: DataBuffer, forName name: String) throws {
        try checkOpen()
        guard !name.isEmpty else { throw StoreError.invalidBufferName(name) }
        var batch = WriteBatch()
        try batch.putSealed(buffer, forKey: Array(name.utf8), in: Self.namesTable, cipher: cipher, scope: 0)
        // The rowIDs handed out so far are recorded with it, so a reference in the buffer can
        // never come to mean an object inserted later.
        let registry = changedRegistryRecords(newlyDeleted: [:])
        try add(registry, to: &batch)
        try backend.apply(batch)
        registryRecordsWritten(registry)
    }

    /// The buffer stored under `name`, ready for reading, or nil.
    ///
    /// ```swift
    /// if var bookmark = try store.dataBuffer(forName: "current-playlist") {
    ///     let playlist = try bookmark.readReference(to: Playlist.self, in: store)
    /// }
    /// ```
    public func dataBuffer(forName name: String) throws -> DataBuffer? {
        try checkOpen()
        guard !name.isEmpty else { throw StoreError.invalidBufferName(name) }
        return try backend.withValue(forKey: Array(name.utf8), in: Self.namesTable) { record -> DataBuffer? in
            guard let record else { return nil }
            do {
                return try RecordEnvelope.open(record, key: Array(name.utf8), cipher: cipher, scope: 0)
            } catch RecordEnvelope.Failure.encryptedWithoutKey {
                throw StoreError.encryptionKeyRequired
            } catch {
                throw StoreError.corruptNamedBuffer(name: name)
            }
        }
    }

    /// Removes the buffer stored under `name`, at once; nothing happens when there is none.
    ///
    /// ```swift
    /// try store.removeDataBuffer(forName: "current-playlist")
    /// ```
    public func removeDataBuffer(forName name: String) throws {
        try checkOpen()
        guard !name.isEmpty else { throw StoreError.invalidBufferName(name) }
        var batch = WriteBatch()
        batch.removeValue(forKey: Array(name.utf8), in: Self.namesTable)
        try backend.apply(batch)
    }

    /// The names of every stored buffer, sorted.
    ///
    /// ```swift
    /// for name in try store.dataBufferNames() { print(name) }
    /// ```
    public func dataBufferNames() throws -> [String] {
        try checkOpen()
        var names: [String] = []
        try backend.forEachRecord(in: Self.namesTable) { key, _ in
            guard let name = String(validating: key, as: UTF8.self) else {
                throw StoreError.corruptMetadata(key: "_names", reason: "a buffer name is not UTF-8")
            }
            names.append(name)
            return true
        }
        return names.sorted()
    }
}
