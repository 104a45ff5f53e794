// EtcdStagedChunk: the bytes of one chunk of a staged commit (a run of writes) and of the record
// that publishes a staged commit. Read back from etcd by whoever finishes the commit, so every
// byte is hostile: decoding checks each length and throws EtcdError.damagedCommit.
//
//   chunk:  "LEC1", then per write: kind (1 put, 2 delete), key length (UInt32 big-endian), key,
//           and for a put the value length (UInt32 big-endian) and value
//   commit: "LEP1", chunk count (UInt32 big-endian), write count (UInt32 big-endian)

import Larder

enum EtcdStagedChunk {
    static let chunkMagic: [UInt8] = Array("LEC2".utf8)
    /// The magic and the checksum before a chunk's writes.
    static let headerSize = 8
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

    /// The chunk of `body`: the magic, its checksum, itself.
    private static func sealed(_ body: [UInt8]) -> [UInt8] {
        var chunk = chunkMagic
        append(body, to: &chunk)
        // The length slot holds the checksum instead: the body runs to the chunk's end.
        let crc = body.withUnsafeBytes { Checksum.crc32($0) }
        chunk.replaceSubrange(4 ..< 8, with: [UInt8(crc >> 24), UInt8((crc >> 16) & 0xFF), UInt8((crc >> 8) & 0xFF), UInt8(crc & 0xFF)])
        return chunk
    }

    private static func append(_ bytes: [UInt8], to chunk: inout [UInt8]) {
        let count = UInt32(bytes.count)
        chunk += [UInt8(count >> 24), UInt8((count >> 16) & 0xFF), UInt8((count >> 8) & 0xFF), UInt8(count & 0xFF)]
        chunk += bytes
    }

    /// The writes of a chunk stored under `key`.
    static func writes(in chunk: [UInt8], key: String) throws -> [EtcdWrite] {
        guard chunk.count >= headerSize, chunk.starts(with: chunkMagic) else {
            throw EtcdError.damagedCommit(key: key, reason: "not a staged chunk")
        }
        let stored = UInt32(chunk[4]) << 24 | UInt32(chunk[5]) << 16 | UInt32(chunk[6]) << 8 | UInt32(chunk[7])
        guard chunk.withUnsafeBytes({ Checksum.crc32(UnsafeRawBufferPointer(rebasing: $0[headerSize...])) }) == stored else {
            throw EtcdError.damagedCommit(key: key, reason: "the checksum does not match")
        }
        var position = headerSize
        var writes: [EtcdWrite] = []
        func bytes() throws -> [UInt8] {
            guard chunk.count - position >= 4 else { throw EtcdError.damagedCommit(key: key, reason: "a length past the end") }
            let count = Int(chunk[position]) << 24 | Int(chunk[position + 1]) << 16 | Int(chunk[position + 2]) << 8 | Int(chunk[position + 3])
            position += 4
            guard chunk.count - position >= count else { throw EtcdError.damagedCommit(key: key, reason: "bytes past the end") }
            defer { position += count }
            return Array(chunk[position ..< position + count])
        }
        while position < chunk.count {
            let kind = chunk[position]
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
        for number in [UInt32(chunkCount), UInt32(writeCount)] {
            record += [UInt8(number >> 24), UInt8((number >> 16) & 0xFF), UInt8((number >> 8) & 0xFF), UInt8(number & 0xFF)]
        }
        return record
    }

    /// The chunk and write counts of a commit record stored under `key`.
    static func counts(ofCommitRecord record: [UInt8], key: String) throws -> (chunks: Int, writes: Int) {
        guard record.count == 12, record.starts(with: commitMagic) else {
            throw EtcdError.damagedCommit(key: key, reason: "not a commit record")
        }
        func number(at offset: Int) -> Int {
            Int(record[offset]) << 24 | Int(record[offset + 1]) << 16 | Int(record[offset + 2]) << 8 | Int(record[offset + 3])
        }
        return (number(at: 4), number(at: 8))
    }
}
