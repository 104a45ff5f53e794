// The metadata fuzz targets: a class's registry record, its object index record and the
// encryption record, the content
// of `_store` records as a damaged or hostile file holds them. Each decodes or throws, and a
// record decoded once encodes to bytes that decode to the same record.

extension FuzzTarget {
    /// A class record's content.
    package static let classRecord = FuzzTarget(name: "classRecord", seeds: classRecordSeeds) { input throws(FuzzViolation) in
        var buffer = DataBuffer(bytes: input)
        guard let record = try? ClassRecord(decoding: &buffer) else { return false }
        for rowID in [0, 1, record.nextRowID, UInt64.max] { _ = record.deletedRowIDs.contains(rowID) }
        _ = record.deletedRowIDs.count
        var encoded = record.encoded()
        let again = try? ClassRecord(decoding: &encoded)
        try FuzzViolation.check(again == record, "a class record does not survive encoding: \(record)")
        return true
    }

    /// A class's object index record (`index/<C>`).
    package static let objectIndexRecord = FuzzTarget(name: "objectIndexRecord", seeds: objectIndexRecordSeeds) { input throws(FuzzViolation) in
        var buffer = DataBuffer(bytes: input)
        guard let record = try? ObjectIndexRecord(decoding: &buffer) else { return false }
        for index in record.indexes { _ = ObjectIndexRecord.table(number: index.number, className: "C") }
        var encoded = record.encoded()
        let again = try? ObjectIndexRecord(decoding: &encoded)
        try FuzzViolation.check(again == record, "an object index record does not survive encoding: \(record)")
        return true
    }

    /// The encryption record's content (the key derivation it names is not run).
    package static let encryptionRecord = FuzzTarget(name: "encryptionRecord", seeds: encryptionRecordSeeds) { input throws(FuzzViolation) in
        var buffer = DataBuffer(bytes: input)
        guard let record = try? EncryptionRecord(decoding: &buffer) else { return false }
        var encoded = record.encoded()
        let again = try? EncryptionRecord(decoding: &encoded)
        try FuzzViolation.check(again == record, "an encryption record does not survive encoding")
        return true
    }

    @Sendable private static func classRecordSeeds() -> [[UInt8]] {
        let deleted = RowIDRanges(validating: [2 ... 2, 5 ... 9, 1_000 ... 70_000]) ?? RowIDRanges()
        return [ClassRecord(classID: 1, nextRowID: 1, version: 1, deletedRowIDs: RowIDRanges()).encoded().bytes,
                ClassRecord(classID: 7, nextRowID: 70_001, version: 3, deletedRowIDs: deleted).encoded().bytes]
    }

    @Sendable private static func objectIndexRecordSeeds() -> [[UInt8]] {
        var record = ObjectIndexRecord()
        let empty = record.encoded().bytes
        record.indexes = [.init(number: 1, name: "seconds", isUnique: false), .init(number: 3, name: "album,title", isUnique: true)]
        record.nextNumber = 4
        return [empty, record.encoded().bytes]
    }

    @Sendable private static func encryptionRecordSeeds() -> [[UInt8]] {
        let salt = [UInt8](repeating: 0x11, count: EncryptionRecord.saltSize)
        let check = [UInt8](repeating: 0x22, count: 16 + RecordCipher.overhead)
        let authenticator = [UInt8](repeating: 0x33, count: 32)
        return [EncryptionRecord(iterations: 100_000, requiresEncryption: true, salt: salt, check: check,
                                 authenticator: authenticator).encoded().bytes,
                EncryptionRecord(iterations: 100_000, requiresEncryption: true, salt: salt, check: check).encoded().bytes,
                EncryptionRecord(iterations: 1, requiresEncryption: false, salt: salt, check: []).encoded().bytes.dropLast()]
    }
}
