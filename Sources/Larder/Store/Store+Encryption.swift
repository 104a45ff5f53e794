// Encryption: opening an encrypted store with its passphrase, turning encryption on for a
// plaintext store, and rewriting every record under a new key (or none) in one atomic save.

extension Store {
    /// Sets up the cipher from the configuration's key and the store's encryption record.
    internal func openEncryption(_ configuration: Configuration) throws {
        guard let passphrase = configuration.encryptionKey else {
            if encryptionRecord != nil { throw StoreError.encryptionKeyRequired }
            return
        }
        if let encryptionRecord {
            cipher = try encryptionRecord.cipher(for: passphrase)
            return
        }
        // A plaintext store given a key: from now on records are written encrypted.
        guard !backend.isReadOnly else { throw StoreError.readOnly }
        let (record, cipher) = try EncryptionRecord.make(passphrase: passphrase,
                                                         iterations: configuration.keyDerivationIterations)
        var batch = WriteBatch()
        try batch.putSealed(record.encoded(), forKey: EncryptionRecord.key, in: Self.metadataTable)
        try backend.apply(batch)
        self.encryptionRecord = record
        self.cipher = cipher
    }

    /// Rewrites every object record and named buffer of the store with `newKey` (or as
    /// plaintext, for nil), in one atomic save. The store must have no unsaved changes.
    ///
    /// Records are rewritten in place; bytes of the old records may linger in the files' free
    /// space until it is reused, so the files are compacted afterwards.
    ///
    /// ```swift
    /// try store.rekey(to: "a new passphrase")
    /// try store.rekey(to: nil)   // back to plaintext
    /// ```
    public func rekey(to newKey: String?, iterations: Int = Configuration().keyDerivationIterations) throws {
        try checkOpen()
        guard !backend.isReadOnly else { throw StoreError.readOnly }
        guard !hasUnsavedChanges else { throw StoreError.unsavedChanges }
        var newRecord: EncryptionRecord?
        var newCipher: RecordCipher?
        if let newKey {
            (newRecord, newCipher) = try EncryptionRecord.make(passphrase: newKey, iterations: iterations)
        }
        var batch = WriteBatch()
        for (name, record) in records.sorted(by: { $0.key < $1.key }) {
            try reseal(table: name, scope: record.classID, into: &batch, with: newCipher) {
                StoreError.corruptRecord(class: name, rowID: RowIDKey.rowID(in: $0) ?? 0)
            }
        }
        try reseal(table: Self.namesTable, scope: 0, into: &batch, with: newCipher) {
            StoreError.corruptNamedBuffer(name: String(decoding: $0, as: UTF8.self))
        }
        if let newRecord {
            try batch.putSealed(newRecord.encoded(), forKey: EncryptionRecord.key, in: Self.metadataTable)
        } else {
            batch.removeValue(forKey: EncryptionRecord.key, in: Self.metadataTable)
        }
        try backend.apply(batch)
        encryptionRecord = newRecord
        cipher = newCipher
        try backend.compact()
    }

    /// Adds to `batch` every record of `table`, opened with the current cipher and sealed
    /// with `newCipher`.
    private func reseal(table: String, scope: UInt64, into batch: inout WriteBatch, with newCipher: RecordCipher?,
                        damaged: (UnsafeRawBufferPointer) -> StoreError) throws {
        try backend.forEachRecord(in: table) { key, value in
            let content: DataBuffer
            do {
                content = try RecordEnvelope.open(value, key: key, cipher: cipher, scope: scope)
            } catch RecordEnvelope.Failure.encryptedWithoutKey {
                throw StoreError.encryptionKeyRequired
            } catch {
                throw damaged(key)
            }
            try batch.putSealed(content, forKey: Array(key), in: table, cipher: newCipher, scope: scope)
            return true
        }
    }
}
