// DocumentStore+Encryption: opening an encrypted document store with its passphrase, and
// rewriting every document, index run and metadata value under a new key (or none) in one
// atomic commit. The key derivation and key check are Larder's EncryptionRecord, stored in
// `_store` under "encryption" in a checksummed DocumentRecord (format 02, its content
// EncryptionRecord's bytes).

import Larder

extension DocumentStore {
    /// Sets up the cipher from the configuration's key and the store's encryption record.
    func openEncryption(_ configuration: Store.Configuration) throws {
        keyDerivationIterations = configuration.keyDerivationIterations
        let stored = try storedEncryptionRecord()
        guard let passphrase = configuration.encryptionKey else {
            if stored != nil { throw StoreError.encryptionKeyRequired }
            return
        }
        if let stored {
            let (recordCipher, upgradedRecord) = try stored.unlock(with: passphrase)
            cipher = DocumentCipher(recordCipher)
            // A legacy record is rewritten in the authenticated form (docs/FORMAT.md).
            if let upgradedRecord, !backend.isReadOnly {
                var batch = WriteBatch()
                try putEncryptionRecord(upgradedRecord, into: &batch)
                try backend.apply(batch)
            }
            return
        }
        // A store that holds nothing yet is encrypted from its first record; a plaintext
        // store's data is never adopted silently (it may be a substitution).
        guard try backend.recordCount(in: Self.metadataTable) == 0 else { throw DocumentError.storeNotEncrypted }
        try rekey(to: passphrase)
    }

    /// The store's encryption record, or nil for a plaintext store.
    private func storedEncryptionRecord() throws -> EncryptionRecord? {
        var record: EncryptionRecord?
        let key = EncryptionRecord.key
        try backend.readValue(forKey: key, in: Self.metadataTable) { bytes in
            guard let bytes else { return }
            do {
                record = try key.withUnsafeBytes { key in
                    try DocumentRecord.withContent(bytes, key: key, cipher: nil, scope: Self.metadataTable) { content in
                        var buffer = DataBuffer(bytes: Array(content))
                        return try EncryptionRecord(decoding: &buffer)
                    }
                }
            } catch {
                throw DocumentError.corruptMetadata(key: "encryption", reason: "\(error)")
            }
        }
        return record
    }

    /// Rewrites every document, index entry and metadata value of the store with `newKey`
    /// (or as plaintext, for nil), in one atomic commit; PBKDF2 runs `iterations` times (by
    /// default the configuration's `keyDerivationIterations`). Collections wait for it.
    ///
    /// With `compact` (the default) the store is then compacted (``compact()``), so that no
    /// byte of the old records survives in the files' free space; without it they may linger
    /// there until it is reused. An error thrown by that compaction comes after the rekey
    /// itself was committed: the store is rekeyed, and ``compact()`` finishes the job.
    ///
    /// ```swift
    /// try store.rekey(to: "a new passphrase")
    /// try store.rekey(to: nil)   // back to plaintext
    /// ```
    public func rekey(to newKey: String?, iterations: Int? = nil, compact: Bool = true) throws {
        try withLock {
            guard !backend.isReadOnly else { throw StoreError.readOnly }
            var newRecord: EncryptionRecord?
            var newCipher: DocumentCipher?
            if let newKey {
                let (record, cipher) = try EncryptionRecord.make(passphrase: newKey, iterations: iterations ?? keyDerivationIterations,
                                                                 requiresEncryption: true)
                newRecord = record
                newCipher = DocumentCipher(cipher)
            }
            // Every collection, each under its lock (operations under way end first); the
            // store's lock keeps new ones from starting.
            let collections = try collectionNames().map { try state(of: $0) }
            for state in collections { state.lock.lock() }
            defer { for state in collections { state.lock.unlock() } }
            var batch = WriteBatch()
            for state in collections { try state.reseal(into: &batch, with: newCipher) }
            try resealMetadata(into: &batch, with: newCipher)
            if let newRecord {
                try putEncryptionRecord(newRecord, into: &batch)
            } else {
                batch.removeValue(forKey: EncryptionRecord.key, in: Self.metadataTable)
            }
            try backend.apply(batch)
            cipher = newCipher
            // Collections start again with the new cipher (and read their directories again).
            for state in states.values { state.isRetired = true }
            states.removeAll()
            if compact { try backend.compact() }
        }
    }

    /// Adds to `batch` the put of `record`, the store's encryption record.
    private func putEncryptionRecord(_ record: EncryptionRecord, into batch: inout WriteBatch) throws {
        let key = EncryptionRecord.key
        batch.put(try DocumentRecord.seal(content: record.encoded().bytes, key: key, cipher: nil, scope: Self.metadataTable),
                  forKey: key, in: Self.metadataTable)
    }

    /// The names of the store's collections, from their definitions (called under the lock).
    func collectionNames() throws -> [String] {
        let prefix = Array("collection.".utf8)
        var names: [String] = []
        try backend.forEachRecord(in: Self.metadataTable) { key, _ in
            if key.starts(with: prefix) { names.append(String(decoding: key.dropFirst(prefix.count), as: UTF8.self)) }
            return true
        }
        return names
    }

    /// Adds to `batch` every collection definition and metadata value, sealed with `newCipher`.
    private func resealMetadata(into batch: inout WriteBatch, with newCipher: DocumentCipher?) throws {
        var resealed: [(key: [UInt8], value: [UInt8])] = []
        try backend.forEachRecord(in: Self.metadataTable) { key, value in
            guard !key.elementsEqual(EncryptionRecord.key) else { return true }
            do {
                let content = try DocumentRecord.withContent(value, key: key, cipher: cipher, scope: Self.metadataTable) { Array($0) }
                resealed.append((Array(key), try DocumentRecord.seal(content: content, key: Array(key), cipher: newCipher,
                                                                       scope: Self.metadataTable)))
            } catch let failure as JSONBinary.DecodingFailure {
                throw DocumentError.corruptMetadata(key: String(decoding: key, as: UTF8.self), reason: failure.reason)
            }
            return true
        }
        for record in resealed { batch.put(record.value, forKey: record.key, in: Self.metadataTable) }
    }
}
