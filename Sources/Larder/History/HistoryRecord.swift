// HistoryRecord: the versions one save wrote of the objects of one history page (256 consecutive
// rowIDs), as the class's history table (`_history.<Class>`, an ordered table) keeps them,
// docs/FORMAT.md section 20. One record per history page and save, not per object: a save of
// many objects makes an eighth as many Tokyo Cabinet calls for its history as for its pages (one
// per object made `keepsHistory` cost 2.3× on SimpleUpdate; grouped, it stays under 1.5×).
//
//   key     [history page = rowID ÷ 256, 8 bytes BE][sequence number of the save, 8 bytes BE]
//           an object's versions are in the key range of its page, in save order
//   body    [savedAt: Float64 LE, seconds since 2001-01-01 UTC][varint count >= 1]
//           count × [slot = rowID mod 256][kind: 00 saved, 01 deleted]
//                   (saved: [version of the class that wrote it][varint size][the record's content])
//           slots strictly ascending, no byte after the last version
//   value   02 [body][CRC-32 LE of key + 02 + body]                      plaintext store
//           03 [nonce 12][AES-256-GCM ciphertext of body][tag 16]        encrypted store
//              associated data: 03 | table name, UTF-8 | 00 | key     (RecordCipher.seal(format:scope:key:))
//
// The checksum or the tag covers the key, and the tag the table too: a record moved to another
// page, another save or another class's history fails to open. The number of records a class's
// history holds is kept in `_store` (`history/<Class>`: a varint, sealed like all metadata), so
// that records removed or a file emptied are reported.

/// The versions of one page's objects that one save wrote, as a history table keeps them.
internal struct HistoryRecord: Equatable {
    /// One object's version: its content as saved, or its deletion.
    struct Version: Equatable {
        var rowID: UInt64
        /// The class version that wrote `content`; nil for a deletion.
        var version: UInt8?
        /// The object's record content, as its `writeContent` wrote it; empty for a deletion.
        var content: [UInt8]

        var isDeletion: Bool { version == nil }
    }

    static let checkedFormat: UInt8 = 0x02
    static let sealedFormat: UInt8 = 0x03
    static let keySize = 16
    static let savedKind: UInt8 = 0
    static let deletedKind: UInt8 = 1
    /// 256 rowIDs a record (eight class-file pages): per class-file page, SimpleUpdate's
    /// history cost 1.5–1.7× with `.full` (a Tokyo Cabinet put per 32 objects); per 256, 1.37×.
    static let layout = PageLayout(slotBits: 8)

    var page: UInt64
    var sequence: UInt64
    /// Seconds since the reference date (2001-01-01 UTC), as `Date.timeIntervalSinceReferenceDate`.
    var savedAt: Double
    /// In ascending rowID order, all in `page`.
    var versions: [Version]

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
        /// No version, slots out of order or out of the page, or bytes after the last version.
        case malformedVersions

        var reason: String {
            switch self {
            case .malformedKey: return "the key is not a page and a sequence number"
            case .tooShort: return "the record is too short"
            case let .unknownFormat(format): return "unknown record format \(format)"
            case .checksumMismatch: return "the checksum or tag does not match"
            case .notSealed: return "not sealed with the store's key"
            case .sealedWithoutKey: return "sealed, and the store has no key"
            case let .unknownKind(kind): return "unknown version kind \(kind)"
            case .invalidDate: return "the date is not a finite number"
            case .malformedVersions: return "the versions are malformed"
            }
        }
    }

    /// The history table of class `className`.
    static func table(forClass className: String) -> String { "_history." + className }

    /// The `_store` key of the number of records class `className`'s history holds.
    static func countKey(forClass className: String) -> [UInt8] { Array(("history/" + className).utf8) }

    /// The class a `history/` key of `_store` names, or nil for another key.
    static func className(inCountKey key: UnsafeRawBufferPointer) -> String? {
        let prefix = Array("history/".utf8)
        guard key.count > prefix.count, key.starts(with: prefix) else { return nil }
        return String(validating: key[prefix.count...], as: UTF8.self)
    }

    /// The key of page `page`'s versions saved as `sequence`.
    static func key(page: UInt64, sequence: UInt64) -> [UInt8] {
        var key: [UInt8] = []
        key.reserveCapacity(keySize)
        key.appendBigEndian(page)
        key.appendBigEndian(sequence)
        return key
    }

    /// The page and sequence number a key names, or nil when it is not 16 bytes.
    static func parts(ofKey key: UnsafeRawBufferPointer) -> (page: UInt64, sequence: UInt64)? {
        guard key.count == keySize else { return nil }
        return (key.loadBigEndian(UInt64.self), key.loadBigEndian(UInt64.self, at: 8))
    }

    /// The version of `rowID` in the record, if it has one.
    func version(of rowID: UInt64) -> Version? {
        versions.first { $0.rowID == rowID }
    }

    // MARK: Encoding

    /// Appends a version to a body being written (after ``appendBodyHeader(savedAt:count:to:)``).
    static func appendVersion(rowID: UInt64, version: UInt8?, content: UnsafeRawBufferPointer, to bytes: inout [UInt8]) {
        bytes.append(UInt8(layout.slot(of: rowID)))
        guard let version else { return bytes.append(deletedKind) }
        bytes.append(savedKind)
        bytes.append(version)
        bytes.appendVarInt(UInt64(content.count))
        bytes.appendBytes(content)
    }

    /// Appends the start of a body: the date and the number of versions that follow.
    static func appendBodyHeader(savedAt: Double, count: Int, to bytes: inout [UInt8]) {
        bytes.appendLittleEndian(savedAt.bitPattern)
        bytes.appendVarInt(UInt64(count))
    }

    /// Appends a stored value to `bytes`, whose tail from `keyStart` on holds its key (a write
    /// batch's arena): the body `writeBody` appends, checksummed, or sealed with `cipher` for
    /// `table` (written into `scratch` first).
    static func appendValue(table: String, cipher: RecordCipher?, to bytes: inout [UInt8], keyStart: Int,
                            scratch: inout [UInt8], writeBody: (inout [UInt8]) -> Void) throws {
        guard let cipher else {
            bytes.append(checkedFormat)
            writeBody(&bytes)
            let crc = bytes.withUnsafeBytes { Checksum.crc32(UnsafeRawBufferPointer(rebasing: $0[keyStart...])) }
            bytes.appendLittleEndian(crc)
            return
        }
        scratch.removeAll(keepingCapacity: true)
        writeBody(&scratch)
        let key = Array(bytes[keyStart...])
        bytes.append(sealedFormat)
        try scratch.withUnsafeBytes { body in
            try key.withUnsafeBytes { key in
                try cipher.seal(body, format: sealedFormat, scope: table, key: key, appendingTo: &bytes)
            }
        }
    }

    /// The record's stored value under its key in `table` (checksummed, or sealed with `cipher`).
    func encodedValue(table: String, cipher: RecordCipher?) throws -> [UInt8] {
        var bytes = Self.key(page: page, sequence: sequence)
        var scratch: [UInt8] = []
        try Self.appendValue(table: table, cipher: cipher, to: &bytes, keyStart: 0, scratch: &scratch) { body in
            Self.appendBodyHeader(savedAt: savedAt, count: versions.count, to: &body)
            for version in versions {
                version.content.withUnsafeBytes { Self.appendVersion(rowID: version.rowID, version: version.version, content: $0, to: &body) }
            }
        }
        return Array(bytes[Self.keySize...])
    }

    // MARK: Decoding

    init(page: UInt64, sequence: UInt64, savedAt: Double, versions: [Version]) {
        self.page = page
        self.sequence = sequence
        self.savedAt = savedAt
        self.versions = versions
    }

    /// Opens and decodes the value stored under `key` in `table`. `cipher` is the store's
    /// (nil: plaintext store); with `cipher?.rejectsPlaintext` a checksummed record is refused.
    init(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, table: String, cipher: RecordCipher?) throws(Damage) {
        guard let (page, sequence) = Self.parts(ofKey: key) else { throw .malformedKey }
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
        try self.init(page: page, sequence: sequence, body: body)
    }

    /// Decodes a body (the bytes inside the checksum or the seal) of page `page`.
    init(page: UInt64, sequence: UInt64, body: [UInt8]) throws(Damage) {
        var reader = DataBuffer(bytes: body)
        guard let bits = try? reader.readUInt64() else { throw .tooShort }
        let savedAt = Double(bitPattern: bits)
        guard savedAt.isFinite else { throw .invalidDate }
        guard let count = try? reader.readVarInt() else { throw .tooShort }
        // Each version takes 2 bytes at least: a count beyond that is damage, not an allocation.
        guard count >= 1, count <= UInt64(Self.layout.capacity), count <= UInt64(reader.remainingCount / 2) else {
            throw .malformedVersions
        }
        let firstRowID = Self.layout.firstRowID(ofPage: page)
        var versions: [Version] = []
        versions.reserveCapacity(Int(count))
        var lastSlot = -1
        for _ in 0 ..< count {
            guard let slot = try? reader.readUInt8(), let kind = try? reader.readUInt8() else { throw .tooShort }
            guard Int(slot) > lastSlot, Int(slot) < Self.layout.capacity else { throw .malformedVersions }
            lastSlot = Int(slot)
            let rowID = firstRowID | UInt64(slot)
            switch kind {
            case Self.savedKind:
                guard let version = try? reader.readUInt8(), let size = try? reader.readVarInt(),
                      size <= UInt64(reader.remainingCount) else { throw .tooShort }
                let start = reader.readPosition
                let content = Array(body[start ..< start + Int(size)])
                reader.readPosition = start + Int(size)
                versions.append(Version(rowID: rowID, version: version, content: content))
            case Self.deletedKind:
                versions.append(Version(rowID: rowID, version: nil, content: []))
            default:
                throw .unknownKind(kind)
            }
        }
        guard reader.remainingCount == 0 else { throw .malformedVersions }
        self.init(page: page, sequence: sequence, savedAt: savedAt, versions: versions)
    }
}
