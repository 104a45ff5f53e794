// Named data buffers: bookmarks and small documents kept under a name, written at once,
// outside the unit of work, each write or removal a commit of its own (with its sequence number
// and change record, like a save). The registry counts them (`names` in `_store`), so that a `_names`
// file emptied or replaced behind the store's back is not taken for a store without buffers.

extension Store {
    /// The metadata key of the number of named buffers.
    internal static let namedBufferCountKey = Array("names".utf8)

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
        guard observationDepth == 0 else { throw StoreError.saveDuringObservation }
        var batch = WriteBatch()
        try batch.putSealed(buffer, forKey: Array(name.utf8), in: Self.namesTable, cipher: cipher, scope: 0)
        let count = try addNamedBufferCount(after: .set, existing: hasDataBuffer(forName: name), to: &batch)
        // The rowIDs handed out so far are recorded with it, so a reference in the buffer can
        // never come to mean an object inserted later.
        let registry = changedRegistryRecords(newlyDeleted: [:])
        try add(registry, to: &batch)
        let committed = try addChange(classes: [:], namedBuffers: [name], to: &batch)
        try applyToBackend(batch)
        registryRecordsWritten(registry)
        namedBufferCount = count
        changeCommitted(committed)
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
        readDependencies?.noteNamedBuffer(name)
        let buffer = try backend.withValue(forKey: Array(name.utf8), in: Self.namesTable) { record -> DataBuffer? in
            guard let record else { return nil }
            do {
                return try RecordEnvelope.open(record, key: Array(name.utf8), cipher: cipher, scope: 0)
            } catch RecordEnvelope.Failure.encryptedWithoutKey {
                throw StoreError.encryptionKeyRequired
            } catch {
                throw StoreError.corruptNamedBuffer(name: name)
            }
        }
        if buffer == nil { try checkNamedBuffersPresent() }
        return buffer
    }

    /// Deletes the buffer stored under `name`, at once; nothing happens when there is none.
    ///
    /// ```swift
    /// try store.deleteDataBuffer(forName: "current-playlist")
    /// ```
    public func deleteDataBuffer(forName name: String) throws {
        try checkOpen()
        guard !name.isEmpty else { throw StoreError.invalidBufferName(name) }
        guard observationDepth == 0 else { throw StoreError.saveDuringObservation }
        guard try hasDataBuffer(forName: name) else { return }
        var batch = WriteBatch()
        batch.removeValue(forKey: Array(name.utf8), in: Self.namesTable)
        let count = try addNamedBufferCount(after: .remove, existing: true, to: &batch)
        let committed = try addChange(classes: [:], namedBuffers: [name], to: &batch)
        try applyToBackend(batch)
        namedBufferCount = count
        changeCommitted(committed)
    }

    /// The names of every stored buffer, sorted.
    ///
    /// ```swift
    /// for name in try store.dataBufferNames() { print(name) }
    /// ```
    public func dataBufferNames() throws -> [String] {
        try checkOpen()
        readDependencies?.noteBufferNames()
        var names: [String] = []
        try backend.forEachRecord(in: Self.namesTable) { key, _ in
            guard let name = String(validating: key, as: UTF8.self) else {
                throw StoreError.corruptMetadata(key: "_names", reason: "a buffer name is not UTF-8")
            }
            names.append(name)
            return true
        }
        if names.isEmpty { try checkNamedBuffersPresent() }
        return names.sorted()
    }

    private enum NamedBufferChange { case set, remove }

    private func hasDataBuffer(forName name: String) throws -> Bool {
        try backend.withValue(forKey: Array(name.utf8), in: Self.namesTable) { $0 != nil }
    }

    /// Adds to `batch` the registry's count of named buffers once a buffer (which `exists`, or
    /// not) is set or removed; returns it.
    private func addNamedBufferCount(after change: NamedBufferChange, existing exists: Bool,
                                     to batch: inout WriteBatch) throws -> Int {
        let current = try namedBufferCount ?? backend.recordCount(in: Self.namesTable)
        let count = switch change {
        case .set: exists ? current : current + 1
        case .remove: exists ? max(0, current - 1) : current
        }
        var buffer = DataBuffer()
        buffer.writeVarInt(UInt64(count))
        try addMetadata(buffer, forKey: Self.namedBufferCountKey, to: &batch)
        return count
    }

    /// Throws when the registry counts named buffers and `_names` holds none.
    private func checkNamedBuffersPresent() throws {
        guard let expected = namedBufferCount, expected > 0, try backend.recordCount(in: Self.namesTable) == 0 else { return }
        throw StoreError.missingRecords(table: Self.namesTable, expected: expected, found: 0)
    }
}
