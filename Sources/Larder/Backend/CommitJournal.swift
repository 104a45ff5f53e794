// CommitJournal: the redo log that makes a save atomic across files. Before a batch touches
// any Tokyo Cabinet file, all of it is written to `_journal` with a checksum (and synced, in
// `.full` durability); after every file has it, the journal is removed. A complete journal
// found on open is applied again (puts and deletes are idempotent); a torn one is discarded.
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
        // The header first, its length and checksum filled in at the end: the journal is built
        // in one buffer, not copied from the payload into the file's bytes (a batch can be
        // tens of megabytes).
        var payload = DataBuffer()
        payload.reserveCapacity(headerSize + batch.byteCount + batch.operationCount * 4 + 64)
        magic.withUnsafeBytes { payload.appendRaw($0) }
        for _ in magic.count ..< headerSize { payload.write(UInt8(0)) }
        for table in batch.tables {
            payload.write(table)
            payload.writeVarInt(UInt64(batch.operationCount(in: table)))
            batch.forEachOperation(in: table) { kind, key, value in
                // An insert replays as a put: both are idempotent.
                payload.write(kind == .delete ? deleteKind : putKind)
                payload.writeVarInt(UInt64(key.count))
                payload.appendRaw(key)
                if kind != .delete {
                    payload.writeVarInt(UInt64(value.count))
                    payload.appendRaw(value)
                }
            }
        }
        var file = payload.bytes
        payload = DataBuffer()   // `file` is now the buffer's only owner: no copy on write
        let crc = file.withUnsafeBytes { Checksum.crc32(UnsafeRawBufferPointer(rebasing: $0[headerSize...])) }
        file.replaceLittleEndian(UInt64(file.count - headerSize), at: magic.count)
        file.replaceLittleEndian(crc, at: magic.count + 8)
        return file
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
