// The commit journal fuzz target: a `_journal` file as a power cut or an attacker may leave
// it. Decoding gives a batch or nil (torn or damaged), and a batch decoded once encodes to a
// journal that decodes to the same batch.

extension FuzzTarget {
    /// `[mode][bytes]`: mode bit 0 clear, the bytes are the whole file; set, they are the
    /// payload, given the header (magic, length, checksum) it needs to be read at all.
    package static let commitJournal = FuzzTarget(name: "commitJournal", seeds: commitJournalSeeds) { input throws(FuzzViolation) in
        guard let mode = input.first else { return false }
        let bytes = Array(input.dropFirst())
        let file = mode & 1 == 0 ? bytes : journalFile(payload: bytes)
        guard let batch = CommitJournal.decode(file) else { return false }
        let encoded = CommitJournal.encode(batch)
        guard let again = CommitJournal.decode(encoded) else { throw FuzzViolation("a decoded batch encodes to a journal that does not decode") }
        try FuzzViolation.check(CommitJournal.encode(again) == encoded, "a decoded batch does not survive encoding")
        return true
    }

    /// A journal file around `payload`, with the header that makes it whole.
    private static func journalFile(payload: [UInt8]) -> [UInt8] {
        var file = CommitJournal.magic
        file.appendLittleEndian(UInt64(payload.count))
        file.appendLittleEndian(payload.withUnsafeBytes { Checksum.crc32($0) })
        return file + payload
    }

    @Sendable private static func commitJournalSeeds() -> [[UInt8]] {
        var batch = WriteBatch()
        batch.put(Array("value".utf8), forKey: [0x50, 0, 0, 0, 0, 0, 0, 0, 1], in: "Song")
        batch.put([], forKey: Array("class/Song".utf8), in: "_store")
        batch.removeValue(forKey: [0x50, 0, 0, 0, 0, 0, 0, 0, 2], in: "Song")
        batch.put([1, 2, 3], forKey: [9], in: "Album")
        let file = CommitJournal.encode(batch)
        var small = WriteBatch()
        small.removeValue(forKey: [1], in: "t")
        // Most as payloads, so that mutations reach the operations rather than fail the checksum.
        return [[0] + file, [1] + Array(file[CommitJournal.headerSize...]), [1] + Array(CommitJournal.encode(small)[CommitJournal.headerSize...]),
                [0] + CommitJournal.encode(WriteBatch())]
    }
}
