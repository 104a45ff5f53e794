// Store metadata: the records of `_store` (format, encryption settings, class registry, text
// index registry, sequence number and change log, history counts), read when the store opens
// and brought up to date there in one batch.
//
// In an encrypted store every metadata record but the encryption settings (which carry their
// own authenticator) is sealed with the store's key under `metadataScope`, so nobody without the
// key can change a class's next rowID or deleted rowIDs, swap class IDs, or pass another record
// off as one of these. docs/FORMAT.md section 8.3 has the rules.

extension Store {
    /// The scope under which metadata records are sealed: no class (IDs count up from 1) and no
    /// text index (class ID | n << 60) uses it.
    internal static let metadataScope: UInt64 = 1 << 63

    /// Opens the store's metadata: the encryption settings first (in an encrypted store the
    /// key opens everything else), then the format and the class registry. A writer then
    /// brings an older store up to date in one batch: pages, format record, sealed metadata.
    internal func openMetadata(_ configuration: Configuration, unlockedCipher: RecordCipher? = nil) throws {
        keyDerivationIterations = configuration.keyDerivationIterations
        changeLogLimit = max(0, configuration.changeLogLimit)
        let stored = try readMetadataTable()
        if let value = stored[EncryptionRecord.key] {
            var buffer = try Self.openEncryptionSettings(value)
            encryptionRecord = try Self.decodeMetadata("encryption") { try EncryptionRecord(decoding: &buffer) }
        }
        var upgradedRecord: EncryptionRecord?
        if encryptionRecord != nil, let unlockedCipher {
            // A context of a pool: the pool's writer unlocked the key already.
            cipher = try Self.encryptionFailure { try unlockedCipher.duplicate() }
        } else if let encryptionRecord {
            guard let passphrase = configuration.encryptionKey else { throw StoreError.encryptionKeyRequired }
            (cipher, upgradedRecord) = try encryptionRecord.unlock(with: passphrase)
        }
        let foundFormat = try loadRegistry(from: stored)
        try bringUpToDate(stored, foundFormat: foundFormat, upgradedRecord: upgradedRecord,
                          newKey: encryptionRecord == nil ? configuration.encryptionKey : nil)
    }

    /// Reads the registry, the sequence number, the history counts and the named-buffer count
    /// again, after another client of a shared backend saved (``refresh()``). A change of the
    /// encryption settings (another client changed the key) is refused: the store must be
    /// opened again with the new key.
    internal func reloadMetadata() throws {
        let stored = try readMetadataTable()
        let settings = try stored[EncryptionRecord.key].map { value in
            var buffer = try Self.openEncryptionSettings(value)
            return try Self.decodeMetadata("encryption") { try EncryptionRecord(decoding: &buffer) }
        }
        guard settings == encryptionRecord else {
            throw StoreError.corruptMetadata(key: "encryption", reason: "another client changed the encryption settings: open the store again")
        }
        records = [:]
        schemas = [:]
        historyCounts = [:]
        namedBufferCount = nil
        _ = try loadRegistry(from: stored)
    }

    /// Adds a put of the metadata record `key`, sealed with the store's key in an encrypted
    /// store (checksummed otherwise).
    internal func addMetadata(_ content: DataBuffer, forKey key: [UInt8], to batch: inout WriteBatch) throws {
        try batch.putSealed(content, forKey: key, in: Self.metadataTable, cipher: cipher, scope: Self.metadataScope)
    }

    /// Opens the metadata record `value` stored under `key`: sealed with the key in a store
    /// whose settings say so, checksummed or sealed before that.
    internal func openMetadata(_ value: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, name: String) throws -> DataBuffer {
        let isSealed = value.first == RecordEnvelope.encryptedFormat
        if encryptionRecord?.sealsMetadata == true && !isSealed {
            throw StoreError.corruptMetadata(key: name, reason: "not sealed with the store's key")
        }
        do {
            return try RecordEnvelope.open(value, key: key, cipher: isSealed ? cipher : nil, scope: Self.metadataScope)
        } catch .encryptedWithoutKey {
            throw StoreError.encryptionKeyRequired
        } catch {
            throw StoreError.corruptMetadata(key: name, reason: "damaged record (\(error))")
        }
    }

    /// Adds to `batch` every metadata record but the encryption settings, opened as stored and
    /// sealed with `newCipher` (checksummed for nil), with `replacing`'s contents in place of
    /// the stored ones.
    internal func addMetadataResealed(with newCipher: RecordCipher?, replacing: [[UInt8]: DataBuffer] = [:],
                                      to batch: inout WriteBatch) throws {
        var contents = replacing
        try backend.forEachRecord(in: Self.metadataTable) { key, value in
            let name = String(decoding: key, as: UTF8.self)
            guard !key.elementsEqual(EncryptionRecord.key), contents[Array(key)] == nil else { return true }
            contents[Array(key)] = try openMetadata(value, key: key, name: name)
            return true
        }
        for (key, content) in contents.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
            try batch.putSealed(content, forKey: key, in: Self.metadataTable, cipher: newCipher, scope: Self.metadataScope)
        }
    }

    // MARK: Private

    /// Every record of the metadata table (a few per class), copied; the change log's records
    /// are left where they are (`changes(since:)` reads them).
    private func readMetadataTable() throws -> [[UInt8]: [UInt8]] {
        var stored: [[UInt8]: [UInt8]] = [:]
        try backend.forEachRecord(in: Self.metadataTable) { key, value in
            if ChangeRecord.isChangeKey(key) { return true }
            stored[Array(key)] = Array(value)
            return true
        }
        return stored
    }

    /// Decodes the format and class records into `records`; returns the stored format.
    private func loadRegistry(from stored: [[UInt8]: [UInt8]]) throws -> UInt64? {
        var foundFormat: UInt64?
        for (key, value) in stored {
            try key.withUnsafeBytes { key in
                try value.withUnsafeBytes { value in
                    if key.elementsEqual(Self.formatKey) {
                        var buffer = try openMetadata(value, key: key, name: "format")
                        foundFormat = try Self.decodeMetadata("format") { try buffer.readVarInt() }
                    } else if key.elementsEqual(Self.namedBufferCountKey) {
                        var buffer = try openMetadata(value, key: key, name: "names")
                        namedBufferCount = try Self.decodeMetadata("names") { Int(clamping: try buffer.readVarInt()) }
                    } else if key.elementsEqual(ChangeSequenceRecord.key) {
                        try loadChangeSequence(value, key: key)
                    } else if let name = HistoryRecord.className(inCountKey: key) {
                        var buffer = try openMetadata(value, key: key, name: "history/" + name)
                        historyCounts[name] = try Self.decodeMetadata("history/" + name) { try buffer.readVarInt() }
                    } else if let name = StoredModelSchema.className(inKey: key) {
                        var buffer = try openMetadata(value, key: key, name: "schema/" + name)
                        schemas[name] = try Self.decodeMetadata("schema/" + name) { try StoredModelSchema(decoding: &buffer) }
                    } else if let name = ClassRecord.name(inKey: key) {
                        var buffer = try openMetadata(value, key: key, name: "class/" + name)
                        records[name] = try Self.decodeMetadata("class/" + name) { try ClassRecord(decoding: &buffer) }
                    }
                }
            }
        }
        if let foundFormat, foundFormat > Self.formatVersion {
            throw StoreError.unsupportedFormat(version: foundFormat)
        }
        // Stores that seal their metadata have always written a format record: one gone missing
        // would make its classes pass for format 1.
        if foundFormat == nil && encryptionRecord?.sealsMetadata == true {
            throw StoreError.corruptMetadata(key: "format", reason: "the format record is missing")
        }
        let ids = records.values.map(\.classID)
        if Set(ids).count != ids.count {
            throw StoreError.corruptMetadata(key: "class/", reason: "two classes share a class ID")
        }
        return foundFormat
    }

    /// Writes what an older or new store lacks, in one batch: records moved into pages, pages
    /// written whole, the format record, the encryption settings in their current form with
    /// every other metadata record sealed, or (with `newKey`, for a plaintext store) encryption
    /// turned on.
    private func bringUpToDate(_ stored: [[UInt8]: [UInt8]], foundFormat: UInt64?, upgradedRecord: EncryptionRecord?,
                               newKey: String?) throws {
        // A store with classes and no format record predates the format record: format 1.
        let format = foundFormat ?? (records.isEmpty ? Self.formatVersion : 1)
        let needsPages = format <= Self.lastFormatWithoutPages && !records.isEmpty
        guard !backend.isReadOnly else {
            if needsPages { throw StoreError.formatUpgradeRequired(version: format) }
            if newKey != nil { throw StoreError.readOnly }
            return
        }
        var newRecord = upgradedRecord
        // The key the class files' pages are sealed with now: none before encryption is turned on.
        let storedCipher = cipher
        if let newKey {
            // A store with no records yet can refuse plaintext records from the start.
            let isEmpty = try records.keys.allSatisfy { try backend.recordCount(in: $0) == 0 }
                && backend.recordCount(in: Self.namesTable) == 0
            let (record, newCipher) = try EncryptionRecord.make(passphrase: newKey, iterations: keyDerivationIterations,
                                                                requiresEncryption: isEmpty)
            newRecord = record
            cipher = newCipher
        }
        var batch = WriteBatch()
        if newKey != nil {
            // Versions of history, checksummed until now, are sealed with the new key.
            try addHistoryResealed(readingWith: storedCipher, with: cipher, to: &batch)
        }
        if needsPages {
            try addUpgradeToPages(to: &batch)
        } else if format < Self.firstFormatWithCheckedPages || newKey != nil {
            // Pages of records sealed or checksummed one by one (format 4 and before, or a
            // plaintext store given a key) are sealed or checksummed whole.
            for (name, record) in records.sorted(by: { $0.key < $1.key }) {
                try addPagesWrittenWhole(ofClassFile: name, scope: record.classID, readingWith: storedCipher, to: &batch)
            }
        }
        var replacing: [[UInt8]: DataBuffer] = [:]
        if foundFormat != Self.formatVersion {
            var buffer = DataBuffer()
            buffer.writeVarInt(Self.formatVersion)
            replacing[Self.formatKey] = buffer
        }
        if let newRecord {
            // The record's current form says every other metadata record is sealed: seal them
            // in the same batch.
            try addMetadataResealed(with: cipher, replacing: replacing, to: &batch)
            try batch.putSealed(newRecord.encoded(), forKey: EncryptionRecord.key, in: Self.metadataTable)
        } else {
            for (key, content) in replacing { try addMetadata(content, forKey: key, to: &batch) }
        }
        if !batch.isEmpty { try applyToBackend(batch) }
        if let newRecord { encryptionRecord = newRecord }
    }

    /// Opens the encryption settings record: checksummed in every store (its authenticator
    /// is inside).
    private static func openEncryptionSettings(_ value: [UInt8]) throws -> DataBuffer {
        do {
            return try value.withUnsafeBytes { try RecordEnvelope.open($0, key: EncryptionRecord.key, cipher: nil, scope: 0) }
        } catch {
            throw StoreError.corruptMetadata(key: "encryption", reason: "damaged record (\(error))")
        }
    }

    /// The result of `body`, an OpenSSL failure in it thrown as ``StoreError/encryptionFailure(reason:)``.
    internal static func encryptionFailure<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw StoreError.encryptionFailure(reason: "\(error)")
        }
    }

    private static func decodeMetadata<T>(_ key: String, _ decode: () throws -> T) throws -> T {
        do {
            return try decode()
        } catch {
            throw StoreError.corruptMetadata(key: key, reason: "\(error)")
        }
    }
}
