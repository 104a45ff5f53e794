// CommitJournal: the redo log that makes a save atomic across files. Before a batch touches
// any Tokyo Cabinet file, all of it is written to `_journal` with a checksum (and synced, in
// `.full` durability); after every file has it, the journal is cleared (zeros over its header)
// and the next save writes the same file again. A complete journal found on open is applied
// again (puts and deletes are idempotent); a torn or cleared one is discarded.
//
// File layout (docs/FORMAT.md):
//   magic "LARDERJ1" (8) | payload length, UInt64 LE (8) | CRC-32 of payload, UInt32 LE (4) | payload
//   payload: per table: varint name length, name, varint operation count, then per operation:
//            kind byte (1 put, 2 delete), varint key length, key, and for puts varint value length, value

/// Encoding and decoding of the commit journal.
internal enum CommitJournal {
    static let magic: [UInt8] = Array("LARDERJ1".utf8)
    static let headerSize = 8 + 8 + 4

    private static let putKind: UInt8 = 1
    private static let deleteKind: UInt8 = 2

    /// The journal file's bytes for `batch`.
    static func encode(_ batch: WriteBatch) -> [UInt8] {
        var file = [UInt8](repeating: 0, count: headerSize)
        file.reserveCapacity(headerSize + batch.byteCount + batch.operationCount * 4 + 64)
        appendPayload(of: batch, to: &file, pieceSize: .max) { _ in }
        let crc = file.withUnsafeBytes { Checksum.crc32(UnsafeRawBufferPointer(rebasing: $0[headerSize...])) }
        file.replaceSubrange(0 ..< headerSize, with: header(payloadLength: file.count - headerSize, crc: crc))
        return file
    }

    /// Writes the journal of `batch` to the file at `path` (over any, which it reuses), a
    /// megabyte at a time, not built whole first: a batch can be tens of megabytes, and a copy
    /// of it costs its pages' faults as well as the copy. The header, which holds the length
    /// and checksum, is written last over zeros: a journal cut short has no valid header, and
    /// one cut before the old journal's longer tail was cut off has the wrong length. With
    /// `sync`, fsyncs the file. The file's bytes are ``encode(_:)``'s.
    static func write(_ batch: WriteBatch, to path: String, sync: Bool) throws {
        try FileIO.withRewrittenFile(at: path, sync: sync) { file in
            var piece = [UInt8](repeating: 0, count: headerSize)
            piece.reserveCapacity(pieceSize + (64 << 10))
            var payloadStart = headerSize
            var length = 0
            var crc: UInt32 = 0
            let flush = { (piece: inout [UInt8]) throws in
                try piece.withUnsafeBytes { bytes in
                    let payload = UnsafeRawBufferPointer(rebasing: bytes[payloadStart...])
                    crc = Checksum.update(crc, with: payload)
                    length += payload.count
                    try file.append(bytes)
                }
                payloadStart = 0
                piece.removeAll(keepingCapacity: true)
            }
            try appendPayload(of: batch, to: &piece, pieceSize: pieceSize, flush: flush)
            try flush(&piece)
            try header(payloadLength: length, crc: crc).withUnsafeBytes { try file.write($0, at: 0) }
        }
    }

    /// Marks the journal at `path` applied: zeros over its header, so that it no longer
    /// decodes (what the next save's journal overwrites). Not synced: a journal whose clearing
    /// a power cut undoes is the last save's, and replaying it rewrites the same values.
    static func clear(at path: String) throws {
        try FileIO.overwrite([UInt8](repeating: 0, count: headerSize), at: 0, inFileAt: path)
    }

    /// Whether `file` starts with a journal's magic: a journal written and not yet cleared
    /// (whole or torn).
    static func isUncleared(_ file: [UInt8]) -> Bool {
        file.starts(with: magic)
    }

    /// How many bytes ``write(_:to:sync:)`` gathers before each write.
    private static let pieceSize = 1 << 20

    /// The header of a journal whose payload has `payloadLength` bytes and checksum `crc`.
    private static func header(payloadLength: Int, crc: UInt32) -> [UInt8] {
        var header = magic
        header.appendLittleEndian(UInt64(payloadLength))
        header.appendLittleEndian(crc)
        return header
    }

    /// Appends the payload of `batch`'s journal to `bytes`, calling `flush` (which empties
    /// them) whenever they reach `pieceSize`.
    private static func appendPayload(of batch: WriteBatch, to bytes: inout [UInt8], pieceSize: Int,
                                      flush: (inout [UInt8]) throws -> Void) rethrows {
        for table in batch.tables {
            bytes.appendVarInt(UInt64(table.utf8.count))
            bytes.append(contentsOf: table.utf8)
            bytes.appendVarInt(UInt64(batch.operationCount(in: table)))
            try batch.forEachOperation(in: table) { kind, key, value in
                // An insert replays as a put: both are idempotent.
                bytes.append(kind == .delete ? deleteKind : putKind)
                bytes.appendVarInt(UInt64(key.count))
                bytes.appendBytes(key)
                if kind != .delete {
                    bytes.appendVarInt(UInt64(value.count))
                    bytes.appendBytes(value)
                }
                if bytes.count >= pieceSize { try flush(&bytes) }
            }
        }
    }

    /// The batch in a journal file, or nil when the file is torn or damaged.
    static func decode(_ file: [UInt8]) -> WriteBatch? {
        guard file.count >= headerSize, file.starts(with: magic) else { return nil }
        let (length, storedCRC) = file.withUnsafeBytes { bytes in
            (bytes.loadLittleEndian(UInt64.self, at: 8),
             bytes.loadLittleEndian(UInt32.self, at: 16))
        }
        guard length == UInt64(file.count - headerSize) else { return nil }
        let payloadBytes = Array(file[headerSize...])
        guard payloadBytes.withUnsafeBytes({ Checksum.crc32($0) }) == storedCRC else { return nil }
        var payload = DataBuffer(bytes: payloadBytes)
        var batch = WriteBatch()
        do {
            while payload.remainingCount > 0 {
                let table = try payload.readString()
                let count = try payload.readVarInt()
                for _ in 0 ..< count {
                    let kind = try payload.readUInt8()
                    let key = try payload.readBytes()
                    switch kind {
                    case putKind: batch.put(try payload.readBytes(), forKey: key, in: table)
                    case deleteKind: batch.removeValue(forKey: key, in: table)
                    default: return nil
                    }
                }
            }
        } catch {
            return nil
        }
        return batch
    }
}
