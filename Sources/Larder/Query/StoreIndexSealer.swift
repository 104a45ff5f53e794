// StoreIndexSealer: how an encrypted object store seals its index tables' runs and run
// directories (IndexTable+SealedRuns): AES-256-GCM with the store's key, the associated data
// binding each sealed value to its table and key, as the documents layer does:
//
//   associated data:  [format byte][table name, UTF-8][0x00][record key]
//
// Index table names start with `_index`, which no class file, text index or metadata table
// shares, so a value sealed for an index cannot open anywhere else.

/// Seals index runs with an object store's cipher.
internal struct StoreIndexSealer: IndexRunSealer, @unchecked Sendable {
    // @unchecked: a Store is used from one thread at a time, and so is its cipher.
    let cipher: RecordCipher

    func seal(_ plaintext: UnsafeRawBufferPointer, format: UInt8, scope: String, key: UnsafeRawBufferPointer,
              appendingTo output: inout [UInt8]) throws {
        try cipher.seal(plaintext, format: format, scope: scope, key: key, appendingTo: &output)
    }

    func open(_ sealed: UnsafeRawBufferPointer, format: UInt8, scope: String, key: UnsafeRawBufferPointer) -> [UInt8]? {
        cipher.open(sealed, format: format, scope: scope, key: key)
    }
}
