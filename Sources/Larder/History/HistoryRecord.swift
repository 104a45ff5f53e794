// HistoryRecord: one saved version of an object in its class's history table
// (`_history.<Class>`, an ordered table), docs/FORMAT.md section 20:
//
//   key     [rowID, 8 bytes BE][sequence number of the save, 8 bytes BE]   one object's versions are a range
//   body    [savedAt: Float64 LE, seconds since 2001-01-01 UTC][kind: 00 saved, 01 deleted]
//           (saved: [version of the class that wrote it][the record's content])
//   value   02 [body][CRC-32 LE of key + 02 + body]                      plaintext store
//           03 [nonce 12][AES-256-GCM ciphertext of body][tag 16]        encrypted store
//              associated data: 03 | table name, UTF-8 | 00 | key     (RecordCipher.seal(format:scope:key:))
//
// The checksum or the tag covers the key, and the tag the table too: a version moved to
// another object, another save or another class's history fails to open. The number of versions
// a class's history holds is kept in `_store` (`history/<Class>`: a varint, sealed like all
// metadata), so that versions removed or a file emptied are reported.

/// One version of an object as its class's history table keeps it.
internal struct HistoryRecord: Equatable {
    static let checkedFormat: UInt8 = 0x02
    static let sealedFormat: UInt8 = 0x03
    static let keySize = 16
    static let savedKind: UInt8 = 0
    static let deletedKind: UInt8 = 1

    var rowID: UInt64
    var sequence: UInt64
    /// Seconds since the reference date (2001-01-01 UTC), as `Date.timeIntervalSinceReferenceDate`.
    var savedAt: Double
    /// The class version that wrote `content`; nil for a deletion.
    var version: UInt8?
    /// The object's record content, as its `writeContent` wrote it; empty for a deletion.
    var content: [UInt8]

    /// Why a stored history record cannot be read.
    enum Damage: Error, Equatable {
        case malformedKey
        case tooShort
        case unknownFormat(UInt8)
        /// The checksum or the authentication tag does not match (damage, or a record moved
        /// from another key or table, or sealed with another key).
        case checksumMismatch
        /// A checksummed record in a store that accepts only sealed ones.
        case notSealed
        /// The record is sealed and the store has no key.
        case sealedWithoutKey
        case unknownKind(UInt8)
        /// The date is not a finite number.
        case invalidDate
        /// A deletion with bytes after its kind.
        case trailingBytes

        var reason: String {
            switch self {
            case .malformedKey: return "the key is not a rowID and a sequence number"
            case .tooShort: return "the record is too short"
            case let .unknownFormat(format): return "unknown record format \(format)"
            case .checksumMismatch: return "the checksum or tag does not match"
            case .notSealed: return "not sealed with the store's key"
            case .sealedWithoutKey: return "sealed, and the store has no key"
            case let .unknownKind(kind): return "unknown version kind \(kind)"
            case .invalidDate: return "the date is not a finite number"
            case .trailingBytes: return "a deletion carries content"
            }
        }
    }

    /// The history table of class `className`.
    static func table(forClass className: String) -> String { "_history." + className }

    /// The `_store` key of the number of versions class `className`'s history holds.
    static func countKey(forClass className: String) -> [UInt8] { Array(("history/" + className).utf8) }

    /// The class a `history/` key of `_store` names, or nil for another key.
    static func className(inCountKey key: UnsafeRawBufferPointer) -> String? {
        let prefix = Array("history/".utf8)
        guard key.count > prefix.count, key.starts(with: prefix) else { return nil }
        return String(validating: key[prefix.count...], as: UTF8.self)
    }

    /// The key of `rowID`'s version saved as `sequence`.
    static func key(rowID: UInt64, sequence: UInt64) -> [UInt8] {
        var key: [UInt8] = []
        key.reserveCapacity(keySize)
        key.appendBigEndian(rowID)
        key.appendBigEndian(sequence)
        return key
    }

    /// The rowID and sequence number a key names, or nil when it is not 16 bytes.
    static func parts(ofKey key: UnsafeRawBufferPointer) -> (rowID: UInt64, sequence: UInt64)? {
        guard key.count == keySize else { return nil }
        return (key.loadBigEndian(UInt64.self), key.loadBigEndian(UInt64.self, at: 8))
    }

    var isDeletion: Bool { version == nil }

    /// Appends the body (the bytes the checksum or the seal protects) to `bytes`.
    static func appendBody(savedAt: Double, version: UInt8?, content: UnsafeRawBufferPointer, to bytes: inout [UInt8]) {
        bytes.appendLittleEndian(savedAt.bitPattern)
        if let version {
            bytes.append(savedKind)
            bytes.append(version)
            bytes.appendBytes(content)
        } else {
            bytes.append(deletedKind)
        }
    }

    /// Appends the stored value of a version to `bytes`, whose tail from `keyStart` on holds
    /// its key (a write batch's arena): checksummed, or sealed with `cipher` for `table`.
    static func appendValue(savedAt: Double, version: UInt8?, content: UnsafeRawBufferPointer, table: String,
                            cipher: RecordCipher?, to bytes: inout [UInt8], keyStart: Int) throws {
        guard let cipher else {
            bytes.append(checkedFormat)
            appendBody(savedAt: savedAt, version: version, content: content, to: &bytes)
            let crc = bytes.withUnsafeBytes { Checksum.crc32(UnsafeRawBufferPointer(rebasing: $0[keyStart...])) }
            bytes.appendLittleEndian(crc)
            return
        }
        let key = Array(bytes[keyStart...])
        var body: [UInt8] = []
        body.reserveCapacity(10 + content.count)
        appendBody(savedAt: savedAt, version: version, content: content, to: &body)
        bytes.append(sealedFormat)
        try body.withUnsafeBytes { body in
            try key.withUnsafeBytes { key in
                try cipher.seal(body, format: sealedFormat, scope: table, key: key, appendingTo: &bytes)
            }
        }
    }

    /// Opens and decodes the value stored under `key` in `table`. `cipher` is the store's
    /// (nil: plaintext store); with `cipher?.rejectsPlaintext` a checksummed record is refused.
    init(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, table: String, cipher: RecordCipher?) throws(Damage) {
        guard let (rowID, sequence) = Self.parts(ofKey: key) else { throw .malformedKey }
        guard let format = value.first else { throw .tooShort }
        let body: [UInt8]
        switch format {
        case Self.checkedFormat:
            guard value.count >= 1 + RecordEnvelope.checksumSize else { throw .tooShort }
            if cipher?.rejectsPlaintext == true { throw .notSealed }
            let covered = UnsafeRawBufferPointer(rebasing: value[..<(value.count - RecordEnvelope.checksumSize)])
            guard Checksum.crc32(key, covered) == value.loadLittleEndian(UInt32.self, at: covered.count) else {
                throw .checksumMismatch
            }
            body = Array(covered.dropFirst())
        case Self.sealedFormat:
            guard let cipher else { throw .sealedWithoutKey }
            guard let opened = cipher.open(UnsafeRawBufferPointer(rebasing: value[1...]), format: Self.sealedFormat,
                                           scope: table, key: key) else { throw .checksumMismatch }
            body = opened
        default:
            throw .unknownFormat(format)
        }
        try self.init(rowID: rowID, sequence: sequence, body: body)
    }

    /// Decodes a body (the bytes inside the checksum or the seal).
    init(rowID: UInt64, sequence: UInt64, body: [UInt8]) throws(Damage) {
        guard body.count >= 9 else { throw .tooShort }
        let savedAt = Double(bitPattern: body.withUnsafeBytes { $0.loadLittleEndian(UInt64.self) })
        guard savedAt.isFinite else { throw .invalidDate }
        self.rowID = rowID
        self.sequence = sequence
        self.savedAt = savedAt
        switch body[8] {
        case Self.savedKind:
            guard body.count >= 10 else { throw .tooShort }
            version = body[9]
            content = Array(body[10...])
        case Self.deletedKind:
            guard body.count == 9 else { throw .trailingBytes }
            version = nil
            content = []
        default:
            throw .unknownKind(body[8])
        }
    }

    init(rowID: UInt64, sequence: UInt64, savedAt: Double, version: UInt8?, content: [UInt8]) {
        self.rowID = rowID
        self.sequence = sequence
        self.savedAt = savedAt
        self.version = version
        self.content = content
    }

    /// The record's stored value under its key in `table` (checksummed, or sealed with `cipher`).
    func encodedValue(table: String, cipher: RecordCipher?) throws -> [UInt8] {
        var bytes = Self.key(rowID: rowID, sequence: sequence)
        try content.withUnsafeBytes { content in
            try Self.appendValue(savedAt: savedAt, version: version, content: content, table: table, cipher: cipher,
                                 to: &bytes, keyStart: 0)
        }
        return Array(bytes[Self.keySize...])
    }
}
