// Stored classes: what the registry and metadata say about every class in a store (rowIDs,
// records, indexes, full-text index, history), the stored format and the encryption state,
// registered classes or not. For tools that describe a store they have no Swift classes for
// (the `larder` command's `info`); nothing here reads a class file.

extension Store {
    /// What the store's metadata says about one class, registered in this session or not.
    ///
    /// ```swift
    /// for stored in try store.storedClasses() { print(stored.name, stored.recordCount) }
    /// ```
    package struct StoredClass: Sendable, Equatable {
        /// An object index of the class, as the store keeps it.
        package struct Index: Sendable, Equatable {
            /// The index's name (its key paths' names, or the name the class gave it).
            package var name: String
            /// Whether the index is unique.
            package var isUnique: Bool
        }

        /// The class's storage name.
        package var name: String
        /// The class's ID in the registry (references name it).
        package var classID: UInt64
        /// The version of the class that last registered it.
        package var version: UInt8
        /// The rowID the next inserted object gets.
        package var nextRowID: UInt64
        /// The records the class file holds, by the registry: rowIDs handed out and not deleted
        /// (``verify()`` checks the file against it).
        package var recordCount: Int
        /// RowIDs handed out and since deleted.
        package var deletedCount: Int
        /// The class's object indexes.
        package var indexes: [Index]
        /// Whether the store keeps a full-text index of the class.
        package var hasTextIndex: Bool
        /// Versions in the class's history (0 for a class that keeps none).
        package var historyVersionCount: UInt64
    }

    /// What the metadata says about every class in the registry, by name. Reads only `_store`.
    /// Throws ``StoreError/corruptMetadata(key:reason:)`` for a damaged index record.
    ///
    /// ```swift
    /// let songs = try store.storedClasses().first { $0.name == "Song" }
    /// ```
    package func storedClasses() throws -> [StoredClass] {
        try checkOpen()
        return try records.keys.sorted().compactMap { name in
            guard let record = records[name] else { return nil }
            let hasTextIndex = try backend.withValue(forKey: TextIndex.registryKey(for: name), in: Self.metadataTable) { $0 != nil }
            let indexes = try readIndexRecord(key: ObjectIndexRecord.key(for: name), className: name).indexes.map {
                StoredClass.Index(name: $0.name, isUnique: $0.isUnique)
            }
            return StoredClass(name: name, classID: record.classID, version: record.version, nextRowID: record.nextRowID,
                               recordCount: record.expectedRecordCount, deletedCount: record.deletedRowIDs.count,
                               indexes: indexes, hasTextIndex: hasTextIndex, historyVersionCount: historyCounts[name] ?? 0)
        }
    }

    /// The format version of the store's files, from its `format` record (this Larder's format
    /// for a store that has none yet).
    ///
    /// ```swift
    /// print(try store.storedFormatVersion())   // 8
    /// ```
    package func storedFormatVersion() throws -> UInt64 {
        try checkOpen()
        return try backend.withValue(forKey: Self.formatKey, in: Self.metadataTable) { value -> UInt64 in
            guard let value else { return records.isEmpty ? Self.formatVersion : 1 }
            var buffer = try Self.formatKey.withUnsafeBytes { try openMetadata(value, key: $0, name: "format") }
            do {
                return try buffer.readVarInt()
            } catch {
                throw StoreError.corruptMetadata(key: "format", reason: "\(error)")
            }
        }
    }

    /// Whether the store is encrypted (it has encryption settings, and was opened with its key).
    ///
    /// ```swift
    /// print(store.isEncrypted ? "encrypted" : "plaintext")
    /// ```
    package var isEncrypted: Bool { encryptionRecord != nil }

    /// The PBKDF2 iterations of the store's key derivation, or nil for a plaintext store.
    ///
    /// ```swift
    /// print(store.keyDerivationIterationCount ?? 0)   // 210000
    /// ```
    package var keyDerivationIterationCount: Int? { encryptionRecord?.iterations }
}
