// Format 3 and 4 stores, as the Larder before pages written whole wrote them: records each in an
// envelope of its own (0x03 encrypted, 0x02 checksummed) inside unsealed pages. Made from a
// current store, for the tests of the format upgrade.

@testable import Larder

/// Turns the current store in `directory` back into `format` (3, or 4 for a plaintext store):
/// every record of `tables` in an envelope of its own in an unsealed page, sealed with the key
/// of an encrypted store (whose `passphrase` is given) or checksummed; the format record says
/// `format`.
func rewriteAsFormat3(_ directory: TemporaryDirectory, tables: [String] = ["Song", "Playlist"],
                      passphrase: String?, format formatVersion: UInt64 = 3) throws {
    // Read only: a writer's open would seal the pages whole again.
    var configuration = Store.Configuration.quickKey(passphrase)
    configuration.readOnly = true
    let store = try Store(path: directory.path, configuration: configuration)
    var batch = WriteBatch()
    for table in tables {
        guard let classID = store.records[table]?.classID else { continue }
        let cipher = store.cipher
        var pending = PendingRecords()
        try store.forEachRecord(inClassFile: table) { rowID, envelope, key, envelopeCipher in
            let content = try RecordEnvelope.open(envelope, key: key, cipher: envelopeCipher, scope: classID)
            var bytes = RowIDKey.bytes(rowID)
            try RecordEnvelope.append(version: content.versionOfData, content: content.bytes, to: &bytes, keyStart: 0,
                                      cipher: cipher, scope: classID)
            bytes[RowIDKey.size...].withUnsafeBytes { pending.add(envelope: $0, rowID: rowID) }
        }
        _ = try pending.writePages(of: table, to: &batch, from: store.backend, reading: store.pageSealing(scope: classID),
                                   writing: .unsealed) { _ in true }
    }
    var format = DataBuffer()
    format.writeVarInt(formatVersion)
    try store.addMetadata(format, forKey: Store.formatKey, to: &batch)
    try store.close()
    let backend = try TokyoCabinetBackend(path: directory.path)
    try backend.apply(batch)
    try backend.close()
}
