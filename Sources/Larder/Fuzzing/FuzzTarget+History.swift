// The history fuzz target: a version of `_history.<Class>` as a damaged or hostile file holds it.
// The input's first 16 bytes are the key (rowID, sequence), the rest the stored value; it is
// opened as a plaintext store and as an encrypted one would open it. It decodes or throws; a
// version decoded once encodes to a value that decodes to the same version.

extension FuzzTarget {
    /// A history version: key and value (FORMAT.md 20).
    package static let historyRecord = FuzzTarget(name: "historyRecord", seeds: historyRecordSeeds) { input throws(FuzzViolation) in
        let table = HistoryRecord.table(forClass: "Note")
        let keyCount = min(input.count, HistoryRecord.keySize)
        let key = Array(input[..<keyCount])
        let value = Array(input[keyCount...])
        let cipher = historyFuzzCipher()
        var accepted = false
        for storeCipher in [nil, cipher] {
            let opened = try withExactBytes(value) { value throws(FuzzViolation) in
                key.withUnsafeBytes { key in try? HistoryRecord(key: key, value: value, table: table, cipher: storeCipher) }
            }
            guard let record = opened else { continue }
            accepted = true
            try checkRoundTrip(record, key: key, table: table, cipher: storeCipher)
        }
        // The bytes after the format byte as a body (what a checksum or a seal protects): most
        // mutations of a seed break its checksum, this reaches the decoder behind it.
        if let body = try? HistoryRecord(rowID: 1, sequence: 1, body: Array(value.dropFirst())) {
            accepted = true
            try checkRoundTrip(body, key: HistoryRecord.key(rowID: 1, sequence: 1), table: table, cipher: nil)
        }
        return accepted
    }

    /// A decoded version must be what its encoding decodes to.
    private static func checkRoundTrip(_ record: HistoryRecord, key: [UInt8], table: String,
                                       cipher: RecordCipher?) throws(FuzzViolation) {
        try FuzzViolation.check(record.version != nil || record.content.isEmpty, "a deletion carries content")
        guard let encoded = try? record.encodedValue(table: table, cipher: cipher) else {
            throw FuzzViolation("a decoded version does not encode")
        }
        let again = key.withUnsafeBytes { key in
            encoded.withUnsafeBytes { try? HistoryRecord(key: key, value: $0, table: table, cipher: cipher) }
        }
        try FuzzViolation.check(again == record, "a version does not survive encoding: \(record)")
    }

    /// A cipher with a fixed key: seeds sealed with it open in every run.
    private static func historyFuzzCipher() -> RecordCipher? {
        try? RecordCipher(key: Array(repeating: 0x5a, count: RecordCipher.keySize))
    }

    @Sendable private static func historyRecordSeeds() -> [[UInt8]] {
        let table = HistoryRecord.table(forClass: "Note")
        let records = [
            HistoryRecord(rowID: 1, sequence: 1, savedAt: 786_000_000.25, version: 1, content: Array("a note".utf8)),
            HistoryRecord(rowID: 300, sequence: 9, savedAt: -1.5, version: 2, content: []),
            HistoryRecord(rowID: 300, sequence: 12, savedAt: 786_000_100, version: nil, content: []),
        ]
        var seeds: [[UInt8]] = []
        let sealing = historyFuzzCipher()
        for record in records {
            let key = HistoryRecord.key(rowID: record.rowID, sequence: record.sequence)
            for cipher in [nil, sealing] {
                if let value = try? record.encodedValue(table: table, cipher: cipher) { seeds.append(key + value) }
            }
        }
        return seeds
    }
}
