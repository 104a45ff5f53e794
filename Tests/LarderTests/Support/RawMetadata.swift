// RawMetadata: the records of a closed store's metadata table (`_store`), read and written
// behind its back, as an attacker with the files but not the key can.

@testable import Larder

/// The metadata records of the store in `directory`, as bytes.
struct RawMetadata {
    let directory: TemporaryDirectory

    /// The envelope stored under `key`, or nil.
    func envelope(forKey key: [UInt8]) throws -> [UInt8]? {
        try value(forKey: key, in: Store.metadataTable)
    }

    /// The envelope stored under `key` in `table`, or nil.
    func value(forKey key: [UInt8], in table: String) throws -> [UInt8]? {
        let backend = try TokyoCabinetBackend(path: directory.path, configuration: BackendConfiguration(readOnly: true))
        defer { try? backend.close() }
        return try backend.withValue(forKey: key, in: table) { $0.map { Array($0) } }
    }

    /// Puts `envelope` (already sealed, or not) under `key`.
    func put(_ envelope: [UInt8], forKey key: [UInt8]) throws {
        let backend = try TokyoCabinetBackend(path: directory.path, configuration: BackendConfiguration())
        var batch = WriteBatch()
        envelope.withUnsafeBytes { value in
            key.withUnsafeBytes { batch.put(value, forKey: $0, in: Store.metadataTable, isNew: false) }
        }
        try backend.apply(batch)
        try backend.close()
    }

    /// `content` in a checksummed envelope (format 02) for `key`, as plaintext stores write it.
    static func checksummed(_ content: DataBuffer, key: [UInt8]) throws -> [UInt8] {
        var bytes = key
        try RecordEnvelope.append(version: content.versionOfData, content: content.bytes, to: &bytes,
                                  keyStart: 0, cipher: nil, scope: 0)
        return Array(bytes[key.count...])
    }
}
