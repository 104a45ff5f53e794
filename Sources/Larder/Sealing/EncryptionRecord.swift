// EncryptionRecord: how an encrypted store remembers its key derivation (salt, iterations)
// and checks a passphrase at once: the metadata record "encryption" in `_store`, holding a
// known value sealed with the derived key, and an HMAC-SHA256 over every setting under a key
// derived from the passphrase, so nobody without the key can change a setting (switch off
// "encrypted records only", lower or raise the iterations, swap the salt).
//
// Layout (docs/FORMAT.md): varint iterations | bytes salt | bytes check | bool
// requiresEncryption | u8 form (3) | u8 cipher (1) | bytes authenticator. Form 3 also says that
// every other metadata record of the store is sealed with the key; form 2 (authenticated, metadata
// only checksummed) and the legacy form (which stops after the flag, or before it) are upgraded
// by a store opened with its key and for writing.

/// The persisted encryption settings of a store.
package struct EncryptionRecord: Equatable {
    package static let key = Array("encryption".utf8)
    static let saltSize = 16
    /// The most PBKDF2 iterations a store may ask for (10 times the default): a record asking
    /// for more is refused before any key is derived, so a tampered record cannot stall an open.
    package static let maximumIterations = 2_100_000
    /// The form this version writes: authenticated, and the store's other metadata sealed.
    static let authenticatedForm: UInt8 = 3
    /// The first authenticated form, whose stores kept their other metadata only checksummed.
    static let firstAuthenticatedForm: UInt8 = 2
    /// AES-256-GCM records, PBKDF2-HMAC-SHA256 key, HMAC-SHA256 authenticator.
    static let cipherID: UInt8 = 1
    private static let checkPlaintext = Array("Larder key check".utf8)
    /// The key check of the legacy form; the authenticated form uses its own, so a legacy
    /// record cannot be forged from an authenticated one.
    private static let legacyCheckAssociatedData = Array("larder/key-check".utf8)
    private static let checkAssociatedData = Array("larder/key-check/2".utf8)
    private static let authenticatorKeyLabel = Array("larder/encryption-record/authenticator-key".utf8)
    private static let authenticatorLabel = Array("larder/encryption-record/2".utf8)

    var iterations: Int
    /// Every record of the store is encrypted: plaintext records are refused as damaged.
    var requiresEncryption: Bool
    var salt: [UInt8]
    /// `checkPlaintext` sealed with the derived key.
    var check: [UInt8]
    /// HMAC-SHA256 of the settings under a key derived from the passphrase; nil in the legacy
    /// form (written before stores authenticated their settings).
    var authenticator: [UInt8]?
    /// The authenticated form the record was read in (nil: legacy).
    var form: UInt8?

    /// The record is in the legacy form, without an authenticator.
    package var isLegacy: Bool { authenticator == nil }
    /// Every other metadata record of the store is sealed with the key, so a plaintext one
    /// can only be a substitution.
    package var sealsMetadata: Bool { form == Self.authenticatedForm }

    /// A new record with a fresh salt, and the cipher for `passphrase`.
    package static func make(passphrase: String, iterations: Int, requiresEncryption: Bool) throws -> (EncryptionRecord, RecordCipher) {
        try checkRange(iterations)
        let salt: [UInt8]
        let key: [UInt8]
        do {
            salt = try RecordCipher.randomBytes(saltSize)
            key = try RecordCipher.deriveKey(passphrase: passphrase, salt: salt, iterations: iterations)
        } catch {
            throw StoreError.encryptionFailure(reason: "\(error)")
        }
        return try authenticated(iterations: iterations, requiresEncryption: requiresEncryption, salt: salt, key: key)
    }

    /// The authenticated record for these settings and derived `key`, and its cipher.
    private static func authenticated(iterations: Int, requiresEncryption: Bool, salt: [UInt8],
                                      key: [UInt8]) throws -> (EncryptionRecord, RecordCipher) {
        do {
            let cipher = try RecordCipher(key: key)
            var check: [UInt8] = []
            try checkPlaintext.withUnsafeBytes { plaintext in
                try checkAssociatedData.withUnsafeBytes { associatedData in
                    try cipher.seal(plaintext, authenticating: associatedData, appendingTo: &check)
                }
            }
            var record = EncryptionRecord(iterations: iterations, requiresEncryption: requiresEncryption, salt: salt, check: check)
            record.form = authenticatedForm
            record.authenticator = try record.expectedAuthenticator(key: key)
            cipher.rejectsPlaintext = requiresEncryption
            return (record, cipher)
        } catch {
            throw StoreError.encryptionFailure(reason: "\(error)")
        }
    }

    init(iterations: Int, requiresEncryption: Bool, salt: [UInt8], check: [UInt8], authenticator: [UInt8]? = nil) {
        self.iterations = iterations
        self.requiresEncryption = requiresEncryption
        self.salt = salt
        self.check = check
        self.authenticator = authenticator
        self.form = authenticator == nil ? nil : Self.authenticatedForm
    }

    package init(decoding buffer: inout DataBuffer) throws {
        let offset = buffer.readPosition
        let rawIterations = try buffer.readVarInt()
        salt = try buffer.readBytes()
        check = try buffer.readBytes()
        // Added after the first encrypted stores: absent means false.
        requiresEncryption = buffer.remainingCount > 0 ? try buffer.readBool() : false
        if buffer.remainingCount > 0 {
            let formOffset = buffer.readPosition
            let form = try buffer.readUInt8()
            guard form == Self.authenticatedForm || form == Self.firstAuthenticatedForm,
                  try buffer.readUInt8() == Self.cipherID else {
                throw DataBufferError.valueOutOfRange(offset: formOffset)
            }
            self.form = form
            authenticator = try buffer.readBytes()
        }
        // The cap on iterations is checked before a key is derived (``cipher(for:)``).
        guard rawIterations >= 1, rawIterations <= UInt64(Int32.max), salt.count >= 8 else {
            throw DataBufferError.valueOutOfRange(offset: offset)
        }
        iterations = Int(rawIterations)
    }

    package func encoded() -> DataBuffer {
        var buffer = settingsEncoded()
        if let authenticator, let form {
            buffer.write(form)
            buffer.write(Self.cipherID)
            buffer.write(authenticator)
        }
        return buffer
    }

    /// The settings as encoded in the legacy form.
    private func settingsEncoded() -> DataBuffer {
        var buffer = DataBuffer()
        buffer.writeVarInt(UInt64(iterations))
        buffer.write(salt)
        buffer.write(check)
        buffer.write(requiresEncryption)
        return buffer
    }

    /// The authenticator of these settings (form, cipher, iterations, salt, check, flag) under
    /// a key derived from the passphrase-derived `key`. (Internal for the tests that write
    /// the earlier forms.)
    func expectedAuthenticator(key: [UInt8]) throws -> [UInt8] {
        let authenticatorKey = try RecordCipher.authenticationCode(of: Self.authenticatorKeyLabel, key: key)
        let message = Self.authenticatorLabel + [form ?? Self.authenticatedForm, Self.cipherID] + settingsEncoded().bytes
        return try RecordCipher.authenticationCode(of: message, key: authenticatorKey)
    }

    /// The cipher for `passphrase` and, for a record in an earlier form, the same settings in
    /// the current form (to write in its place, with the metadata sealed); ``StoreError/wrongEncryptionKey`` when it
    /// is not the store's key, ``StoreError/tamperedEncryptionSettings(reason:)`` when the settings were
    /// changed without it, ``StoreError/keyDerivationIterationsOutOfRange(_:)`` (before any
    /// work) when they ask for more iterations than ``maximumIterations``.
    package func unlock(with passphrase: String) throws -> (cipher: RecordCipher, upgradedRecord: EncryptionRecord?) {
        try Self.checkRange(iterations)
        let key: [UInt8]
        let cipher: RecordCipher
        do {
            key = try RecordCipher.deriveKey(passphrase: passphrase, salt: salt, iterations: iterations)
            cipher = try RecordCipher(key: key)
        } catch {
            throw StoreError.encryptionFailure(reason: "\(error)")
        }
        let opensCheck = Self.opens(check, with: cipher, associatedData: Self.checkAssociatedData)
        if let authenticator {
            guard opensCheck else { throw StoreError.wrongEncryptionKey }
            guard Self.equalInConstantTime(authenticator, try authenticatorOrFailure(key: key)) else {
                throw StoreError.tamperedEncryptionSettings(reason: "the settings do not match their authenticator")
            }
        } else {
            // A legacy record carrying an authenticated record's check was stripped of its
            // authenticator by someone without the key.
            if opensCheck {
                throw StoreError.tamperedEncryptionSettings(reason: "an authenticated record was rewritten in the legacy form")
            }
            guard Self.opens(check, with: cipher, associatedData: Self.legacyCheckAssociatedData) else {
                throw StoreError.wrongEncryptionKey
            }
        }
        cipher.rejectsPlaintext = requiresEncryption
        guard !sealsMetadata else { return (cipher, nil) }
        return (cipher, try Self.authenticated(iterations: iterations, requiresEncryption: requiresEncryption,
                                               salt: salt, key: key).0)
    }

    private func authenticatorOrFailure(key: [UInt8]) throws -> [UInt8] {
        do {
            return try expectedAuthenticator(key: key)
        } catch {
            throw StoreError.encryptionFailure(reason: "\(error)")
        }
    }

    private static func checkRange(_ iterations: Int) throws {
        guard (1 ... maximumIterations).contains(iterations) else {
            throw StoreError.keyDerivationIterationsOutOfRange(iterations)
        }
    }

    private static func opens(_ sealed: [UInt8], with cipher: RecordCipher, associatedData: [UInt8]) -> Bool {
        let opened = sealed.withUnsafeBytes { sealed in
            associatedData.withUnsafeBytes { associatedData in
                try? cipher.open(sealed, authenticating: associatedData)
            }
        }
        return opened == checkPlaintext
    }

    private static func equalInConstantTime(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
