// IndexKeyBytes: the order-preserving byte encoding of IndexableValue (docs/FORMAT.md, section
// 17). Each key starts with a tag, so nil (the lowest tag) sorts first and every range of
// non-nil values starts after it; each is self-delimiting, so an index entry is its keys
// concatenated, then the object's rowID (8 bytes big-endian).

/// Tags and encoders of index keys.
internal enum IndexKeyBytes {
    static let nilTag: UInt8 = 0x05
    static let falseTag: UInt8 = 0x10, trueTag: UInt8 = 0x11
    static let signedTag: UInt8 = 0x20, unsignedTag: UInt8 = 0x21
    static let nanTag: UInt8 = 0x22, doubleTag: UInt8 = 0x23
    static let stringTag: UInt8 = 0x30, dataTag: UInt8 = 0x31, uuidTag: UInt8 = 0x32
    static let referenceTag: UInt8 = 0x40

    /// The first byte after the nil key: every non-nil key sorts at or after it.
    static let firstValue: [UInt8] = [nilTag + 1]
    /// Appended to a whole key, or to the escaped start of a string, sorts after every entry
    /// that extends it: what follows a whole key is the next key's tag or the rowID (never
    /// nine 0xFF bytes), and UTF-8 has no 0xFF byte.
    static let prefixEnd: [UInt8] = Array(repeating: 0xFF, count: 9)

    static func appendSigned(_ value: Int64, to key: inout [UInt8]) {
        key.append(signedTag)
        key.appendBigEndian(UInt64(bitPattern: value) ^ (1 << 63))
    }

    static func appendUnsigned(_ value: UInt64, to key: inout [UInt8]) {
        key.append(unsignedTag)
        key.appendBigEndian(value)
    }

    /// IEEE bits flipped so that unsigned byte order is numeric order; -0 is 0, NaN sorts
    /// before every number.
    static func appendDouble(_ value: Double, to key: inout [UInt8]) {
        guard !value.isNaN else { return key.append(nanTag) }
        key.append(doubleTag)
        let bits = (value == 0 ? 0 : value).bitPattern
        key.appendBigEndian(bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63))
    }

    /// Bytes with 0x00 escaped as 0x00 0xFF, ended by 0x00 0x01 (which sorts before any
    /// continuation, so "a" < "ab").
    static func appendEscaped<Bytes: Sequence>(_ bytes: Bytes, to key: inout [UInt8]) where Bytes.Element == UInt8 {
        appendEscapedPrefix(bytes, to: &key)
        key.append(0x00)
        key.append(0x01)
    }

    /// Escaped bytes without the end: what every key of text starting with them starts with.
    static func appendEscapedPrefix<Bytes: Sequence>(_ bytes: Bytes, to key: inout [UInt8]) where Bytes.Element == UInt8 {
        for byte in bytes {
            key.append(byte)
            if byte == 0 { key.append(0xFF) }
        }
    }

    /// `key` followed by ``prefixEnd``.
    static func through(_ key: [UInt8]) -> [UInt8] {
        key + prefixEnd
    }
}
