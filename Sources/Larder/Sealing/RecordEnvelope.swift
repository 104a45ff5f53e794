// RecordEnvelope: the bytes around an object's content in its class file (and around named
// buffers and metadata records). Three formats, told apart by the first byte:
//
//   0x02  [0x02][version][content...][CRC-32 of key + every byte before it, 4 bytes LE]
//   0x03  [0x03][version][nonce 12][AES-256-GCM ciphertext of content][tag 16]
//         associated data: scope (8 bytes LE: the class ID, 0 for named buffers) + key + the
//         two header bytes
//   0x01  [0x01][version][content...]   (no checksum: written by the first versions, and inside a
//         page sealed whole, whose tag covers it; PageSeal)
//
// The checksum (or the tag) covers the record's key, so damaged bytes and a record copied
// under another key (or class) are both detected. See docs/FORMAT.md.

/// The framing of every stored record.
internal enum RecordEnvelope {
    static let plainFormat: UInt8 = 0x01
    static let checkedFormat: UInt8 = 0x02
    static let encryptedFormat: UInt8 = 0x03
    static let checksumSize = 4

    /// Why a record's envelope cannot be opened.
    enum Failure: Error, Equatable {
        case tooShort
        case unknownFormat(UInt8)
        /// The checksum or the authentication tag does not match.
        case checksumMismatch
        /// The record is encrypted and the store has no key.
        case encryptedWithoutKey
        /// OpenSSL failed while sealing.
        case cipherFailure(String)
    }

    /// Appends a sealed record for `content` to `bytes`, whose tail from `keyStart` on already
    /// holds the record's key. With a cipher the record is encrypted (format 0x03), otherwise
    /// checksummed (format 0x02).
    static func append(version: UInt8, content: [UInt8], to bytes: inout [UInt8], keyStart: Int,
                       cipher: RecordCipher?, scope: UInt64) throws(Failure) {
        guard let cipher else {
            bytes.append(checkedFormat)
            bytes.append(version)
            bytes.append(contentsOf: content)
            let crc = bytes.withUnsafeBytes { Checksum.crc32(UnsafeRawBufferPointer(rebasing: $0[keyStart...])) }
            bytes.appendLittleEndian(crc)
            return
        }
        let header = [encryptedFormat, version]
        let key = Array(bytes[keyStart...])
        let associatedData = self.associatedData(scope: scope, key: key, header: header)
        bytes.append(contentsOf: header)
        do {
            try content.withUnsafeBytes { content in
                try associatedData.withUnsafeBytes { associatedData in
                    try cipher.seal(content, authenticating: associatedData, appendingTo: &bytes)
                }
            }
        } catch {
            throw .cipherFailure("\(error)")
        }
    }

    /// Appends a plain record (format 0x01) for `content` to `bytes`: only for a page sealed
    /// whole (PageSeal), whose authentication covers it.
    static func appendPlain(version: UInt8, content: [UInt8], to bytes: inout [UInt8]) {
        bytes.append(plainFormat)
        bytes.append(version)
        bytes.append(contentsOf: content)
    }

    /// Opens a record stored under `key` into `buffer` (whose storage is reused): its
    /// content ready for reading, with its version, after checking its checksum or tag.
    @inline(__always)
    static func open(_ record: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, cipher: RecordCipher?,
                     scope: UInt64, into buffer: inout DataBuffer) throws(Failure) {
        // A plain record without a cipher (inside a page written whole, which its checksum or
        // seal covers): the record a fetch meets once an object, read inline, without a call
        // and the format switch (about 28 instructions an object of SimpleFetch). The same
        // answer as openAny's.
        if cipher == nil, record.count >= 2, record[0] == plainFormat {
            buffer.replaceContent(with: UnsafeRawBufferPointer(rebasing: record[2...]), versionOfData: record[1])
            return
        }
        try openAny(record, key: key, cipher: cipher, scope: scope, into: &buffer)
    }

    /// ``open(_:key:cipher:scope:into:)`` for every format.
    @inline(never)
    private static func openAny(_ record: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, cipher: RecordCipher?,
                                scope: UInt64, into buffer: inout DataBuffer) throws(Failure) {
        guard record.count >= 2 else { throw .tooShort }
        // In a fully encrypted store a plaintext record can only be a substitution.
        if record[0] != encryptedFormat, cipher?.rejectsPlaintext == true { throw .checksumMismatch }
        switch record[0] {
        case checkedFormat:
            guard record.count >= 2 + checksumSize else { throw .tooShort }
            let body = UnsafeRawBufferPointer(rebasing: record[..<(record.count - checksumSize)])
            let stored = record.loadLittleEndian(UInt32.self, at: body.count)
            guard Checksum.crc32(key, body) == stored else { throw .checksumMismatch }
            buffer.replaceContent(with: UnsafeRawBufferPointer(rebasing: body[2...]), versionOfData: record[1])
        case encryptedFormat:
            guard let cipher else { throw .encryptedWithoutKey }
            let associatedData = self.associatedData(scope: scope, key: Array(key), header: [record[0], record[1]])
            let sealed = UnsafeRawBufferPointer(rebasing: record[2...])
            let content: [UInt8]
            do {
                content = try associatedData.withUnsafeBytes { associatedData in
                    try cipher.open(sealed, authenticating: associatedData)
                }
            } catch {
                throw .checksumMismatch
            }
            buffer = DataBuffer(bytes: content, versionOfData: record[1])
        case plainFormat:
            buffer.replaceContent(with: UnsafeRawBufferPointer(rebasing: record[2...]), versionOfData: record[1])
        default:
            throw .unknownFormat(record[0])
        }
    }

    /// Opens a record stored under `key` into a new buffer.
    static func open(_ record: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer,
                     cipher: RecordCipher?, scope: UInt64) throws(Failure) -> DataBuffer {
        var buffer = DataBuffer()
        try open(record, key: key, cipher: cipher, scope: scope, into: &buffer)
        return buffer
    }

    /// Opens a record stored under the key `key`.
    static func open(_ record: UnsafeRawBufferPointer, key: [UInt8], cipher: RecordCipher?,
                     scope: UInt64) throws(Failure) -> DataBuffer {
        let opened: Result<DataBuffer, Failure> = key.withUnsafeBytes { key in
            Result { () throws(Failure) -> DataBuffer in try open(record, key: key, cipher: cipher, scope: scope) }
        }
        return try opened.get()
    }

    /// Opens an unencrypted record (metadata).
    static func open(_ record: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer) throws(Failure) -> DataBuffer {
        try open(record, key: key, cipher: nil, scope: 0)
    }

    private static func associatedData(scope: UInt64, key: [UInt8], header: [UInt8]) -> [UInt8] {
        var data: [UInt8] = []
        data.reserveCapacity(8 + key.count + header.count)
        data.appendLittleEndian(scope)
        data.append(contentsOf: key)
        data.append(contentsOf: header)
        return data
    }
}
