// Encryption: rewriting every record under a new key (or none) in one atomic save. Opening an
// encrypted store, and turning encryption on for a plaintext one, is Store+Metadata's.

extension Store {
    /// Rewrites every object record, index, history version and named buffer of the store with
    /// `newKey` (or as plaintext, for nil), in one atomic save. The store must have no unsaved changes.
    ///
    /// After a rekey to a key, the store accepts only encrypted records: a plaintext record
    /// slipped into a file reads as damaged. With `compact` (the default) the store is then
    /// compacted (``compact()``), so that no byte of the old records survives in the files'
    /// free space; without it they may linger there until it is reused. An error thrown by
    /// that compaction comes after the rekey itself was saved: the store is rekeyed, and
    /// ``compact()`` (or reopening, past its commit point) finishes the job.
    ///
    /// ```swift
    /// try store.rekey(to: "a new passphrase")
    /// try store.rekey(to: nil)   // back to plaintext
    /// ```
    public func rekey(to newKey: String?, iterations: Int? = nil, compact: Bool = true) throws {
        let iterations = iterations ?? keyDerivationIterations
        try checkOpen()
        guard !backend.isReadOnly else { throw StoreError.readOnly }
        guard !belongsToPool else { throw StoreError.unavailableInPool(operation: "rekey(to:)") }
        guard !hasUnsavedChanges else { throw StoreError.unsavedChanges }
        var newRecord: EncryptionRecord?
        var newCipher: RecordCipher?
        if let newKey {
            (newRecord, newCipher) = try EncryptionRecord.make(passphrase: newKey, iterations: iterations,
                                                               requiresEncryption: true)
        }
        var batch = WriteBatch()
        for (name, record) in records.sorted(by: { $0.key < $1.key }) {
            try resealClassFile(name, scope: record.classID, into: &batch, with: newCipher)
        }
        for name in records.keys.sorted() {
            try resealTextIndex(ofClass: name, into: &batch, with: newCipher)
            try resealObjectIndexes(ofClass: name, into: &batch, with: newCipher)
        }
        try addHistoryResealed(readingWith: cipher, with: newCipher, to: &batch)
        try addMetadataResealed(with: newCipher, to: &batch)
        try reseal(table: Self.namesTable, scope: 0, into: &batch, with: newCipher) {
            StoreError.corruptNamedBuffer(name: String(decoding: $0, as: UTF8.self))
        }
        if let newRecord {
            try batch.putSealed(newRecord.encoded(), forKey: EncryptionRecord.key, in: Self.metadataTable)
        } else {
            batch.removeValue(forKey: EncryptionRecord.key, in: Self.metadataTable)
        }
        try apply(batch)
        encryptionRecord = newRecord
        cipher = newCipher
        try reopenObjectIndexTables()
        if compact { try self.compact() }
    }

    /// Adds to `batch` every page of the class file `table`, with each record opened with the
    /// current cipher and the page sealed whole with `newCipher` (or checksummed whole, for
    /// nil).
    private func resealClassFile(_ table: String, scope: UInt64, into batch: inout WriteBatch,
                                 with newCipher: RecordCipher?) throws {
        var pending = PendingRecords()
        let writing = PageSealing(cipher: newCipher, scope: scope, checksPages: true)
        try forEachRecord(inClassFile: table) { rowID, envelope, key, envelopeCipher in
            let content = try openForRekey(envelope, key: key, cipher: envelopeCipher, scope: scope) {
                StoreError.corruptRecord(class: table, rowID: rowID)
            }
            do {
                try pending.seal(rowID: rowID, version: content.versionOfData, content: content.bytes, for: writing)
            } catch {
                throw StoreError.encryptionFailure(reason: "\(error)")
            }
        }
        _ = try pending.writePages(of: table, to: &batch, from: backend, reading: pageSealing(scope: scope),
                                   writing: writing) { _ in true }
    }

    /// Opens a record with `cipher` (the current one; nil inside a page written whole), for a
    /// rekey.
    private func openForRekey(_ envelope: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, cipher: RecordCipher?,
                              scope: UInt64, damaged: () -> StoreError) throws -> DataBuffer {
        do {
            return try RecordEnvelope.open(envelope, key: key, cipher: cipher, scope: scope)
        } catch RecordEnvelope.Failure.encryptedWithoutKey {
            throw StoreError.encryptionKeyRequired
        } catch {
            throw damaged()
        }
    }

    /// Adds to `batch` the records of the full-text index of class `name`, if it has one.
    private func resealTextIndex(ofClass name: String, into batch: inout WriteBatch, with newCipher: RecordCipher?) throws {
        guard let classID = records[name]?.classID,
              try backend.withValue(forKey: TextIndex.registryKey(for: name), in: Self.metadataTable, { $0 != nil })
        else { return }
        for (table, scope) in zip(TextIndex.tables(for: name), TextIndex.scopes(classID: classID)) {
            try reseal(table: table, scope: scope, into: &batch, with: newCipher) { _ in
                StoreError.corruptTextIndex(class: name, reason: "damaged record in \(table)")
            }
        }
    }

    /// Adds to `batch` every record of `table`, opened with the current cipher and sealed
    /// with `newCipher`.
    private func reseal(table: String, scope: UInt64, into batch: inout WriteBatch, with newCipher: RecordCipher?,
                        damaged: (UnsafeRawBufferPointer) -> StoreError) throws {
        try backend.forEachRecord(in: table) { key, value in
            let content = try openForRekey(value, key: key, cipher: cipher, scope: scope) { damaged(key) }
            try batch.putSealed(content, forKey: Array(key), in: table, cipher: newCipher, scope: scope)
            return true
        }
    }
}
