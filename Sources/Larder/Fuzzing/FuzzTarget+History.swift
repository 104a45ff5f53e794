// The history fuzz target: a record of `_history.<Class>` (one save's versions of one page) as a
// damaged or hostile file holds it. The input's first 16 bytes are the key (page, sequence), the
// rest the stored value; it is opened as a plaintext store and as an encrypted one would open it.
// It decodes or throws; a record decoded once encodes to a value that decodes to the same record.

extension FuzzTarget {
    /// A history record: key and value (FORMAT.md 20).
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
        let checksummed = value.first == HistoryRecord.checkedFormat && value.count >= 1 + RecordEnvelope.checksumSize
        let body = checksummed ? Array(value[1 ..< value.count - RecordEnvelope.checksumSize]) : Array(value.dropFirst())
        if let body = try? HistoryRecord(page: 1, sequence: 1, body: body) {
            accepted = true
            try checkRoundTrip(body, key: HistoryRecord.key(page: 1, sequence: 1), table: table, cipher: nil)
        }
        return accepted
    }

    /// A decoded version must be what its encoding decodes to.
    private static func checkRoundTrip(_ record: HistoryRecord, key: [UInt8], table: String,
                                       cipher: RecordCipher?) throws(FuzzViolation) {
        let layout = HistoryRecord.layout
        try FuzzViolation.check(!record.versions.isEmpty, "a record without versions")
        for (version, next) in zip(record.versions, record.versions.dropFirst()) {
            try FuzzViolation.check(version.rowID < next.rowID, "versions out of order: \(version.rowID), \(next.rowID)")
        }
        for version in record.versions {
            try FuzzViolation.check(layout.number(of: version.rowID) == record.page, "rowID \(version.rowID) outside page \(record.page)")
            try FuzzViolation.check(version.version != nil || version.content.isEmpty, "a deletion carries content")
        }
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
            HistoryRecord(page: 0, sequence: 1, savedAt: 786_000_000.25,
                          versions: [.init(rowID: 1, version: 1, content: Array("a note".utf8))]),
            HistoryRecord(page: 9, sequence: 9, savedAt: -1.5,
                          versions: [.init(rowID: 288, version: 2, content: []), .init(rowID: 290, version: nil, content: []),
                                     .init(rowID: 319, version: 1, content: [1, 2, 3])]),
        ]
        var seeds: [[UInt8]] = []
        let sealing = historyFuzzCipher()
        for record in records {
            let key = HistoryRecord.key(page: record.page, sequence: record.sequence)
            for cipher in [nil, sealing] {
                if let value = try? record.encodedValue(table: table, cipher: cipher) { seeds.append(key + value) }
            }
        }
        return seeds
    }
}
