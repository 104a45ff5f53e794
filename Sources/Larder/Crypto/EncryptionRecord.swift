// EncryptionRecord: how an encrypted store remembers its key derivation (salt, iterations)
// and checks a passphrase at once: the metadata record "encryption" in `_store`, holding a
// known value sealed with the derived key.

/// The persisted encryption settings of a store.
package struct EncryptionRecord: Equatable {
    package static let key = Array("encryption".utf8)
    static let saltSize = 16
    private static let checkPlaintext = Array("Larder key check".utf8)
    private static let checkAssociatedData = Array("larder/key-check".utf8)

    var iterations: Int
    /// Every record of the store is encrypted: plaintext records are refused as damaged.
    var requiresEncryption: Bool
    var salt: [UInt8]
    /// `checkPlaintext` sealed with the derived key.
    var check: [UInt8]

    /// A new record with a fresh salt, and the cipher for `passphrase`.
    package static func make(passphrase: String, iterations: Int, requiresEncryption: Bool) throws -> (EncryptionRecord, RecordCipher) {
        do {
            let salt = try RecordCipher.randomBytes(saltSize)
            let cipher = try RecordCipher(key: RecordCipher.deriveKey(passphrase: passphrase, salt: salt, iterations: iterations))
            var check: [UInt8] = []
            try checkPlaintext.withUnsafeBytes { plaintext in
                try checkAssociatedData.withUnsafeBytes { associatedData in
                    try cipher.seal(plaintext, authenticating: associatedData, appendingTo: &check)
                }
            }
            cipher.rejectsPlaintext = requiresEncryption
            return (EncryptionRecord(iterations: iterations, requiresEncryption: requiresEncryption, salt: salt, check: check),
                    cipher)
        } catch {
            throw StoreError.encryptionFailure(reason: "\(error)")
        }
    }

    init(iterations: Int, requiresEncryption: Bool, salt: [UInt8], check: [UInt8]) {
        self.iterations = iterations
        self.requiresEncryption = requiresEncryption
        self.salt = salt
        self.check = check
    }

    package init(decoding buffer: inout DataBuffer) throws {
        let offset = buffer.readPosition
        let rawIterations = try buffer.readVarInt()
        salt = try buffer.readBytes()
        check = try buffer.readBytes()
        // Added after the first encrypted stores: absent means false.
        requiresEncryption = buffer.remainingCount > 0 ? try buffer.readBool() : false
        guard rawIterations >= 1, rawIterations <= 100_000_000, salt.count >= 8 else {
            throw DataBufferError.valueOutOfRange(offset: offset)
        }
        iterations = Int(rawIterations)
    }

    package func encoded() -> DataBuffer {
        var buffer = DataBuffer()
        buffer.writeVarInt(UInt64(iterations))
        buffer.write(salt)
        buffer.write(check)
        buffer.write(requiresEncryption)
        return buffer
    }

    /// The cipher for `passphrase`, or ``StoreError/wrongEncryptionKey`` when it is not the
    /// store's key.
    package func cipher(for passphrase: String) throws -> RecordCipher {
        let cipher: RecordCipher
        do {
            cipher = try RecordCipher(key: RecordCipher.deriveKey(passphrase: passphrase, salt: salt, iterations: iterations))
        } catch {
            throw StoreError.encryptionFailure(reason: "\(error)")
        }
        let opened = check.withUnsafeBytes { sealed in
            Self.checkAssociatedData.withUnsafeBytes { associatedData in
                try? cipher.open(sealed, authenticating: associatedData)
            }
        }
        guard opened == Self.checkPlaintext else { throw StoreError.wrongEncryptionKey }
        cipher.rejectsPlaintext = requiresEncryption
        return cipher
    }
}
