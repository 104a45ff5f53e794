// WriteBatch+Sealing: puts of records in their envelopes (checksummed, or encrypted with the
// store's cipher), the layer above the backend that Store and DocumentStore share: a backend
// stores bytes and never sees an envelope.

extension WriteBatch {
    /// Adds a put of `content` sealed in a record envelope under `key`: checksummed, or
    /// encrypted with `cipher` under `scope` (see RecordEnvelope).
    package mutating func putSealed(_ content: DataBuffer, forKey key: [UInt8], in table: String,
                                    cipher: RecordCipher? = nil, scope: UInt64 = 0) throws {
        do {
            try put(forKey: key, in: table) { bytes, keyStart in
                try RecordEnvelope.append(version: content.versionOfData, content: content.bytes, to: &bytes,
                                          keyStart: keyStart, cipher: cipher, scope: scope)
            }
        } catch {
            throw StoreError.encryptionFailure(reason: "\(error)")
        }
    }
}
