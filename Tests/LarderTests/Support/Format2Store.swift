// Format 2 stores, as the Larder before record pages wrote them: made from a current store, for
// the tests of the format upgrade.

@testable import Larder

/// Turns the store in `directory` back into format 2: every record of `tables` under
/// its 8-byte rowID key, no pages, format record 2 and, for an encrypted store (whose
/// `passphrase` is given), its metadata as format 2 stores kept it. Returns each table's record count.
@discardableResult
func rewriteAsFormat2(_ directory: TemporaryDirectory, tables: [String] = ["Song", "Playlist"],
                      passphrase: String? = nil) throws -> [String: Int] {
    if let passphrase {
        try rewriteInTheFirstAuthenticatedForm(directory, passphrase: passphrase)
        try rewriteAsFormat3(directory, tables: tables, passphrase: passphrase)
    }
    let backend = try TokyoCabinetBackend(path: directory.path)
    defer { try? backend.close() }
    var batch = WriteBatch()
    for table in tables {
        var pageKeys: [[UInt8]] = []
        try backend.forEachRecord(in: table) { key, _ in
            pageKeys.append(Array(key))
            return true
        }
        for (rowID, envelope) in try RawRecords(backend: backend, table: table).all() {
            batch.put(envelope, forKey: RowIDKey.bytes(rowID), in: table)
        }
        for key in pageKeys { batch.removeValue(forKey: key, in: table) }
    }
    var format = DataBuffer()
    format.writeVarInt(2)
    try batch.putSealed(format, forKey: Store.formatKey, in: Store.metadataTable)
    try backend.apply(batch)
    var counts: [String: Int] = [:]
    for table in tables { counts[table] = try backend.recordCount(in: table) }
    try backend.close()
    return counts
}
