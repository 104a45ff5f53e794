// EtcdStagedChunk: the bytes of one chunk of a staged commit (a run of writes) and of the record
// that publishes a staged commit. Read back from etcd by whoever finishes the commit, so every
// byte is hostile: decoding checks each length and throws EtcdError.damagedCommit.
//
//   body:   per write: kind (1 put, 2 delete), key length (UInt32 big-endian), key, and for a
//           put the value length (UInt32 big-endian) and value
//   chunk:  "LEC2", the body's CRC-32 (UInt32 big-endian), the body
//        or "LEZ1", the CRC-32 of the compressed bytes, the body's length (both UInt32
//           big-endian), the body deflated (zlib): written when that is smaller. A staged chunk
//           is written twice (staged, then copied into the tables), so its bytes cost the
//           cluster twice; a chunk of pages deflates to about a third.
//   commit: "LEP1", chunk count (UInt32 big-endian), write count (UInt32 big-endian)

import CZlib
import Larder

enum EtcdStagedChunk {
    static let chunkMagic: [UInt8] = Array("LEC2".utf8)
    static let compressedMagic: [UInt8] = Array("LEZ1".utf8)
    /// The magic and the checksum before a chunk's writes.
    static let headerSize = 8
    /// The magic, the checksum and the body's length before a compressed chunk's bytes.
    static let compressedHeaderSize = 12
    /// The longest body a compressed chunk may say it holds (what a hostile length can make a
    /// reader allocate); a longer body is written uncompressed.
    static let largestBody = 1 << 26
    static let commitMagic: [UInt8] = Array("LEP1".utf8)

    /// The bytes a write takes in a chunk.
    static func size(of write: EtcdWrite) -> Int { 5 + write.key.count + (write.value.map { 4 + $0.count } ?? 0) }

    /// `writes` cut into chunks of at most `capacity` bytes each (a write bigger than that alone).
    static func chunks(of writes: [EtcdWrite], capacity: Int) -> [[UInt8]] {
        var chunks: [[UInt8]] = []
        var body: [UInt8] = []
        for write in writes {
            if !body.isEmpty && headerSize + body.count + size(of: write) > capacity {
                chunks.append(sealed(body))
                body = []
            }
            body.append(write.value == nil ? 2 : 1)
            append(write.key, to: &body)
            if let value = write.value { append(value, to: &body) }
        }
        if !body.isEmpty { chunks.append(sealed(body)) }
        return chunks
    }

    /// The chunk of `body`: deflated when that is smaller, else the magic, its checksum, itself.
    private static func sealed(_ body: [UInt8]) -> [UInt8] {
        if let compressed = deflated(body) { return compressed }
        var chunk = chunkMagic
        chunk.appendBigEndian(body.withUnsafeBytes { Checksum.crc32($0) })
        chunk += body
        return chunk
    }

    /// `body` as a compressed chunk, or nil when deflating does not make it smaller.
    private static func deflated(_ body: [UInt8]) -> [UInt8]? {
        guard !body.isEmpty, body.count <= largestBody else { return nil }
        var chunk = [UInt8](repeating: 0, count: compressedHeaderSize + Int(compressBound(uLong(body.count))))
        var length = uLongf(chunk.count - compressedHeaderSize)
        let status = chunk.withUnsafeMutableBufferPointer { output in
            body.withUnsafeBufferPointer { input in
                compress2(output.baseAddress! + compressedHeaderSize, &length, input.baseAddress!, uLong(input.count), Z_BEST_SPEED)
            }
        }
        guard status == Z_OK, compressedHeaderSize + Int(length) < headerSize + body.count else { return nil }
        chunk.removeLast(chunk.count - compressedHeaderSize - Int(length))
        var header = compressedMagic
        header.appendBigEndian(chunk.withUnsafeBytes { Checksum.crc32(UnsafeRawBufferPointer(rebasing: $0[compressedHeaderSize...])) })
        header.appendBigEndian(UInt32(body.count))
        chunk.replaceSubrange(0 ..< compressedHeaderSize, with: header)
        return chunk
    }

    /// The body of a chunk stored under `key`, its checksum checked (and inflated, to exactly the
    /// length it states).
    private static func body(of chunk: [UInt8], key: String) throws -> ArraySlice<UInt8> {
        let compressed: Bool
        if chunk.count >= headerSize, chunk.starts(with: chunkMagic) {
            compressed = false
        } else if chunk.count > compressedHeaderSize, chunk.starts(with: compressedMagic) {
            compressed = true
        } else {
            throw EtcdError.damagedCommit(key: key, reason: "not a staged chunk")
        }
        // The checksum covers what follows the header: the body, or its compressed bytes.
        let start = compressed ? compressedHeaderSize : headerSize
        let checks = chunk.withUnsafeBytes {
            Checksum.crc32(UnsafeRawBufferPointer(rebasing: $0[start...])) == $0.loadBigEndian(UInt32.self, at: 4)
        }
        guard checks else { throw EtcdError.damagedCommit(key: key, reason: "the checksum does not match") }
        guard compressed else { return chunk[start...] }
        let count = Int(chunk.withUnsafeBytes { $0.loadBigEndian(UInt32.self, at: 8) })
        guard count > 0, count <= largestBody else { throw EtcdError.damagedCommit(key: key, reason: "a body of \(count) bytes") }
        var body = [UInt8](repeating: 0, count: count)
        var produced = uLongf(count)
        var consumed = uLong(chunk.count - start)
        let status = body.withUnsafeMutableBufferPointer { output in
            chunk.withUnsafeBufferPointer { input in
                uncompress2(output.baseAddress!, &produced, input.baseAddress! + start, &consumed)
            }
        }
        guard status == Z_OK, Int(produced) == count, Int(consumed) == chunk.count - start else {
            throw EtcdError.damagedCommit(key: key, reason: "the compressed bytes do not inflate to \(count) bytes")
        }
        return body[...]
    }

    private static func append(_ bytes: [UInt8], to chunk: inout [UInt8]) {
        chunk.appendBigEndian(UInt32(bytes.count))
        chunk += bytes
    }

    /// The writes of a chunk stored under `key`.
    static func writes(in chunk: [UInt8], key: String) throws -> [EtcdWrite] {
        let body = try body(of: chunk, key: key)
        var position = body.startIndex
        var writes: [EtcdWrite] = []
        func bytes() throws -> [UInt8] {
            guard body.endIndex - position >= 4 else { throw EtcdError.damagedCommit(key: key, reason: "a length past the end") }
            let count = Int(body.withUnsafeBytes { $0.loadBigEndian(UInt32.self, at: position - body.startIndex) })
            position += 4
            guard body.endIndex - position >= count else { throw EtcdError.damagedCommit(key: key, reason: "bytes past the end") }
            defer { position += count }
            return Array(body[position ..< position + count])
        }
        while position < body.endIndex {
            let kind = body[position]
            position += 1
            guard kind == 1 || kind == 2 else { throw EtcdError.damagedCommit(key: key, reason: "a write of kind \(kind)") }
            let writeKey = try bytes()
            writes.append(EtcdWrite(key: writeKey, value: kind == 1 ? try bytes() : nil))
        }
        return writes
    }

    /// The record that publishes a commit of `chunkCount` chunks holding `writeCount` writes.
    static func commitRecord(chunkCount: Int, writeCount: Int) -> [UInt8] {
        var record = commitMagic
        record.appendBigEndian(UInt32(chunkCount))
        record.appendBigEndian(UInt32(writeCount))
        return record
    }

    /// The chunk and write counts of a commit record stored under `key`.
    static func counts(ofCommitRecord record: [UInt8], key: String) throws -> (chunks: Int, writes: Int) {
        guard record.count == 12, record.starts(with: commitMagic) else {
            throw EtcdError.damagedCommit(key: key, reason: "not a commit record")
        }
        return record.withUnsafeBytes { (Int($0.loadBigEndian(UInt32.self, at: 4)), Int($0.loadBigEndian(UInt32.self, at: 8))) }
    }
}
