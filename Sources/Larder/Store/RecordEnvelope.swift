// RecordEnvelope: the bytes around an object's content in its class file (and around named
// buffers and metadata records):
//
//   [format 0x02][version][content...][CRC-32 of key + everything before it, 4 bytes LE]
//
// The checksum covers the record's key too, so damaged bytes and a record copied under
// another key are both detected. Format 0x01 (no checksum) is still read. See docs/FORMAT.md.

/// The framing of every stored record.
internal enum RecordEnvelope {
    /// Format byte of a record without checksum (written by the first Larder versions).
    static let plainFormat: UInt8 = 0x01
    /// Format byte of a record with a trailing CRC-32.
    static let checkedFormat: UInt8 = 0x02
    static let checksumSize = 4

    /// Why a record's envelope cannot be opened.
    enum Failure: Error, Equatable {
        case tooShort
        case unknownFormat(UInt8)
        case checksumMismatch
    }

    /// Appends a sealed record for `content` to `bytes`, whose tail from `keyStart` on already
    /// holds the record's key: the checksum covers the key and the record.
    static func append(version: UInt8, content: [UInt8], to bytes: inout [UInt8], keyStart: Int) {
        bytes.append(checkedFormat)
        bytes.append(version)
        bytes.append(contentsOf: content)
        let crc = bytes.withUnsafeBytes { Checksum.crc32(UnsafeRawBufferPointer(rebasing: $0[keyStart...])) }
        withUnsafeBytes(of: crc.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// Opens a record stored under `key`: its content in a buffer ready for reading, with its
    /// version, after checking the checksum.
    static func open(_ record: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer) throws(Failure) -> DataBuffer {
        guard record.count >= 2 else { throw .tooShort }
        switch record[0] {
        case checkedFormat:
            guard record.count >= 2 + checksumSize else { throw .tooShort }
            let body = UnsafeRawBufferPointer(rebasing: record[..<(record.count - checksumSize)])
            let stored = UInt32(littleEndian: record.loadUnaligned(fromByteOffset: body.count, as: UInt32.self))
            guard Checksum.crc32(key, body) == stored else { throw .checksumMismatch }
            return DataBuffer(bytes: Array(body[2...]), versionOfData: record[1])
        case plainFormat:
            return DataBuffer(bytes: Array(record[2...]), versionOfData: record[1])
        default:
            throw .unknownFormat(record[0])
        }
    }

    /// Opens a record stored under the key `key`.
    static func open(_ record: UnsafeRawBufferPointer, key: [UInt8]) throws(Failure) -> DataBuffer {
        let opened: Result<DataBuffer, Failure> = key.withUnsafeBytes { key in
            Result { () throws(Failure) -> DataBuffer in try open(record, key: key) }
        }
        return try opened.get()
    }
}
