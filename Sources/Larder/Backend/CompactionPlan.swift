// CompactionPlan: the file that makes a compaction's swap of fresh files for live ones
// crash-safe. Once every fresh copy is written and synced, the list of tables whose copies
// replace their files is written to `_compaction` (synced, directory synced); the copies are
// then renamed over the live files, and the plan removed. A complete plan found on open is
// carried out again (a copy already renamed is simply missing); a torn or absent plan means
// the copies are abandoned and deleted.
//
// File layout (docs/FORMAT.md):
//   magic "LARDERC1" (8) | CRC-32 of the rest, UInt32 LE (4) | table names, UTF-8, each ended by "\n"

/// Encoding and decoding of a compaction plan.
internal enum CompactionPlan {
    static let magic: [UInt8] = Array("LARDERC1".utf8)
    private static let separator = UInt8(ascii: "\n")

    /// The plan file's bytes for swapping in the copies of `tables`, in order.
    static func encode(_ tables: [String]) -> [UInt8] {
        let names = tables.flatMap { Array($0.utf8) + [separator] }
        let crc = names.withUnsafeBytes { Checksum.crc32($0) }
        return magic + crc.littleEndianBytes + names
    }

    /// The tables of a plan file, in order, or nil when the file is torn or damaged.
    static func decode(_ file: [UInt8]) -> [String]? {
        let namesStart = magic.count + 4
        guard file.count >= namesStart, file.starts(with: magic), file.last == separator else { return nil }
        let storedCRC = file.withUnsafeBytes { $0.loadLittleEndian(UInt32.self, at: magic.count) }
        let names = file[namesStart...]
        guard names.withUnsafeBytes({ Checksum.crc32($0) }) == storedCRC else { return nil }
        let tables = names.split(separator: separator).map { String(decoding: $0, as: UTF8.self) }
        guard tables.allSatisfy(TokyoCabinetBackend.isValidTableName) else { return nil }
        return tables
    }
}
