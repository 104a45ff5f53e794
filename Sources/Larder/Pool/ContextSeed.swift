// ContextSeed: what a read context would otherwise read from `_store` when it opens (the class
// registry, the named-buffer count, the sequence number and change log bounds, history counts,
// encryption settings) and the saved record count of each class, taken from the pool's writer
// after each write, when the writer's saved state is exactly the files' newest generation. A
// context opened at that generation starts from it instead of walking `_store` (with its change
// log, a thousand records) and scanning class files to count: the read after a save stays cheap.

/// The writer's saved metadata at one generation.
internal struct ContextSeed: @unchecked Sendable {
    // @unchecked: plain values (ClassRecord, EncryptionRecord are structs of integers, bytes
    // and ranges), never changed after they are taken.

    /// The generation the values are of.
    let generation: UInt64
    let records: [String: ClassRecord]
    let namedBufferCount: Int?
    let changeLog: ChangeSequenceRecord
    let historyCounts: [String: UInt64]
    let encryptionRecord: EncryptionRecord?
    /// Saved record counts the writer knows, by storage name.
    let savedRecordCounts: [String: Int]
}

extension Store {
    /// The saved metadata of this store, which the caller knows to be that of `generation`
    /// (nothing pending can be in it: only saved records and counts are taken).
    internal func contextSeed(generation: UInt64) -> ContextSeed {
        var counts: [String: Int] = [:]
        for entry in entriesByType.values {
            if let count = entry.savedRecordCount { counts[entry.name] = count }
        }
        return ContextSeed(generation: generation, records: records, namedBufferCount: namedBufferCount,
                           changeLog: changeLog, historyCounts: historyCounts, encryptionRecord: encryptionRecord,
                           savedRecordCounts: counts)
    }

    /// Gives the registered classes the saved record counts of `seed`.
    internal func adoptRecordCounts(of seed: ContextSeed) {
        for entry in entriesByType.values {
            if let count = seed.savedRecordCounts[entry.name] { entry.savedRecordCount = count }
        }
    }

    /// Takes the metadata of `seed` as if read from `_store`.
    internal func adoptMetadata(of seed: ContextSeed, configuration: Configuration, unlockedCipher: RecordCipher?) throws {
        keyDerivationIterations = configuration.keyDerivationIterations
        changeLogLimit = max(0, configuration.changeLogLimit)
        records = seed.records
        namedBufferCount = seed.namedBufferCount
        changeLog = seed.changeLog
        historyCounts = seed.historyCounts
        encryptionRecord = seed.encryptionRecord
        if seed.encryptionRecord != nil {
            guard let unlockedCipher else { throw StoreError.encryptionKeyRequired }
            cipher = try Self.encryptionFailure { try unlockedCipher.duplicate() }
        }
    }
}
