// DocumentRecord: how a JSON value is stored under a key (documents, collection definitions,
// metadata): a format byte, a CRC-32 of the key and the content, then the content in
// JSONBinary. Damaged bytes, or a record moved under another key, are refused.

import Larder

/// Seals and opens stored JSON values.
enum DocumentRecord {
    /// The format byte: `02`, checksummed (as Larder's object records).
    static let format: UInt8 = 2

    /// The stored bytes of `value` under `key`; a document (`isDocument`) is stored without
    /// its `"__rowid__"`.
    static func seal(_ value: JSON, key: [UInt8], isDocument: Bool = false) -> [UInt8] {
        var bytes: [UInt8] = [format, 0, 0, 0, 0]
        if isDocument { JSONBinary.appendDocument(value, to: &bytes) } else { JSONBinary.append(value, to: &bytes) }
        let crc = key.withUnsafeBytes { key in
            bytes.withUnsafeBytes { Checksum.crc32(key, UnsafeRawBufferPointer(rebasing: $0[5...])) }
        }
        for index in 0 ..< 4 { bytes[1 + index] = UInt8(truncatingIfNeeded: crc >> (8 * UInt32(index))) }
        return bytes
    }

    /// The value stored in `bytes` under `key`; throws `JSONBinary.DecodingFailure` for any
    /// damage. `shapes` are the key sets this thread has decoded before.
    static func open(_ bytes: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, addingRowID rowID: Int64? = nil,
                     shapes: ObjectShapes? = nil) throws -> JSON {
        guard bytes.count >= 6, bytes[0] == format else {
            throw JSONBinary.DecodingFailure(reason: "unknown record format")
        }
        var stored: UInt32 = 0
        for index in 0 ..< 4 { stored |= UInt32(bytes[1 + index]) << (8 * UInt32(index)) }
        let content = UnsafeRawBufferPointer(rebasing: bytes[5...])
        guard Checksum.crc32(key, content) == stored else { throw JSONBinary.DecodingFailure(reason: "checksum mismatch") }
        return try JSONBinary.decode(content, addingRowID: rowID, shapes: shapes)
    }
}
