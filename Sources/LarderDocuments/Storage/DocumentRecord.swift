// DocumentRecord: how a JSON value is stored under a key (documents, collection definitions,
// metadata). Two formats, told apart by the first byte:
//
//   02  [0x02][CRC-32 of the key and the content, 4 bytes LE][content]
//   03  [0x03][nonce 12][AES-256-GCM ciphertext of the content][tag 16]    (encrypted stores)
//
// The content is the value in JSONBinary. The checksum covers the key, and the tag the
// format, the table and the key (DocumentCipher): damaged bytes, or a record moved under
// another key, are refused. An encrypted store refuses format 02, a plaintext one 03.

import Larder

/// Seals and opens stored JSON values.
enum DocumentRecord {
    /// The format byte of a checksummed record (as Larder's object records).
    static let format: UInt8 = 2
    /// The format byte of an encrypted record.
    static let encryptedFormat: UInt8 = 3

    /// The stored bytes of `value` under `key`, checksummed; a document (`isDocument`) is
    /// stored without its `"__rowid__"`.
    static func seal(_ value: JSON, key: [UInt8], isDocument: Bool = false) -> [UInt8] {
        var bytes: [UInt8] = [format, 0, 0, 0, 0]
        if isDocument { JSONBinary.appendDocument(value, to: &bytes) } else { JSONBinary.append(value, to: &bytes) }
        stampChecksum(&bytes, key: key)
        return bytes
    }

    /// The stored bytes of `value` under `key` in `scope` (the table), encrypted with
    /// `cipher`, or checksummed when it is nil.
    static func seal(_ value: JSON, key: [UInt8], isDocument: Bool = false, cipher: DocumentCipher?, scope: String) throws -> [UInt8] {
        guard let cipher else { return seal(value, key: key, isDocument: isDocument) }
        var content: [UInt8] = []
        if isDocument { JSONBinary.appendDocument(value, to: &content) } else { JSONBinary.append(value, to: &content) }
        return try seal(content: content, key: key, cipher: cipher, scope: scope)
    }

    /// The stored bytes of `content` (JSONBinary) under `key` in `scope`, encrypted with
    /// `cipher`, or checksummed when it is nil.
    static func seal(content: [UInt8], key: [UInt8], cipher: DocumentCipher?, scope: String) throws -> [UInt8] {
        guard let cipher else {
            var bytes: [UInt8] = [format, 0, 0, 0, 0]
            bytes.append(contentsOf: content)
            stampChecksum(&bytes, key: key)
            return bytes
        }
        var bytes: [UInt8] = [encryptedFormat]
        bytes.reserveCapacity(1 + content.count + RecordCipher.overhead)
        try content.withUnsafeBytes { content in
            try key.withUnsafeBytes { key in
                try cipher.seal(content, format: encryptedFormat, scope: scope, key: key, appendingTo: &bytes)
            }
        }
        return bytes
    }

    private static func stampChecksum(_ bytes: inout [UInt8], key: [UInt8]) {
        let crc = key.withUnsafeBytes { key in
            bytes.withUnsafeBytes { Checksum.crc32(key, UnsafeRawBufferPointer(rebasing: $0[5...])) }
        }
        for index in 0 ..< 4 { bytes[1 + index] = UInt8(truncatingIfNeeded: crc >> (8 * UInt32(index))) }
    }

    /// The value stored in `bytes` under `key` (in `scope`, with `cipher` in an encrypted
    /// store); throws `JSONBinary.DecodingFailure` for any damage. `shapes` are the key sets
    /// this thread has decoded before.
    static func open(_ bytes: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, addingRowID rowID: Int64? = nil,
                     shapes: ObjectShapes? = nil, cipher: DocumentCipher? = nil, scope: String = "") throws -> JSON {
        try withContent(bytes, key: key, cipher: cipher, scope: scope) {
            try JSONBinary.decode($0, addingRowID: rowID, shapes: shapes)
        }
    }

    /// Calls `body` with the content (JSONBinary) of the record `bytes` stored under `key`,
    /// after checking its checksum, or opening it with `cipher`; throws
    /// `JSONBinary.DecodingFailure` when it is damaged, moved, or of the other kind of store.
    static func withContent<Result>(_ bytes: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, cipher: DocumentCipher?,
                                    scope: String, _ body: (UnsafeRawBufferPointer) throws -> Result) throws -> Result {
        switch bytes.first {
        case format:
            guard cipher == nil else { throw JSONBinary.DecodingFailure(reason: "plaintext record in an encrypted store") }
            guard bytes.count >= 6 else { throw JSONBinary.DecodingFailure(reason: "unknown record format") }
            var stored: UInt32 = 0
            for index in 0 ..< 4 { stored |= UInt32(bytes[1 + index]) << (8 * UInt32(index)) }
            let content = UnsafeRawBufferPointer(rebasing: bytes[5...])
            guard Checksum.crc32(key, content) == stored else { throw JSONBinary.DecodingFailure(reason: "checksum mismatch") }
            return try body(content)
        case encryptedFormat:
            guard let cipher else { throw JSONBinary.DecodingFailure(reason: "encrypted record in a plaintext store") }
            let sealed = UnsafeRawBufferPointer(rebasing: bytes[1...])
            guard let content = cipher.open(sealed, format: encryptedFormat, scope: scope, key: key) else {
                throw JSONBinary.DecodingFailure(reason: "authentication failed")
            }
            return try content.withUnsafeBytes(body)
        default:
            throw JSONBinary.DecodingFailure(reason: "unknown record format")
        }
    }
}
