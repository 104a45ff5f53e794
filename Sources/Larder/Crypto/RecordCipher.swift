// RecordCipher: AES-256-GCM through OpenSSL's EVP API, and the PBKDF2-HMAC-SHA256 key
// derivation. The only file that imports OpenSSL.
//
// A sealed value is  nonce (12 random bytes) | ciphertext | tag (16 bytes).  The caller's
// associated data (class ID and rowID, or a buffer's name) is authenticated with it, so a
// value copied under another key fails to open.

import COpenSSL

/// AES-256-GCM encryption of record values.
internal final class RecordCipher {
    static let keySize = 32
    static let nonceSize = 12
    static let tagSize = 16
    /// Bytes a sealed value adds to its plaintext.
    static let overhead = nonceSize + tagSize

    /// Why a cipher operation failed.
    enum Failure: Error, Equatable {
        /// OpenSSL reported an error (out of memory, no entropy).
        case openSSL(String)
        /// The sealed value is damaged, truncated, or was sealed with another key or
        /// associated data.
        case authenticationFailed
    }

    private let key: [UInt8]
    private let context: OpaquePointer
    /// The store is fully encrypted: records in a plaintext format are treated as damaged.
    var rejectsPlaintext = false

    init(key: [UInt8]) throws(Failure) {
        guard key.count == Self.keySize else { throw .openSSL("AES-256 needs a 32-byte key") }
        guard let context = EVP_CIPHER_CTX_new() else { throw .openSSL("EVP_CIPHER_CTX_new failed") }
        self.key = key
        self.context = context
    }

    deinit {
        EVP_CIPHER_CTX_free(context)
    }

    /// The 32-byte key for `passphrase` with PBKDF2-HMAC-SHA256.
    static func deriveKey(passphrase: String, salt: [UInt8], iterations: Int) throws(Failure) -> [UInt8] {
        var key = [UInt8](repeating: 0, count: keySize)
        let password = Array(passphrase.utf8)
        let ok = password.withUnsafeBufferPointer { password in
            salt.withUnsafeBufferPointer { salt in
                key.withUnsafeMutableBufferPointer { key in
                    password.withMemoryRebound(to: CChar.self) { password in
                        PKCS5_PBKDF2_HMAC(password.baseAddress, Int32(password.count),
                                          salt.baseAddress, Int32(salt.count), Int32(clamping: iterations),
                                          EVP_sha256(), Int32(key.count), key.baseAddress)
                    }
                }
            }
        }
        guard ok == 1 else { throw .openSSL("PKCS5_PBKDF2_HMAC failed") }
        return key
    }

    /// `count` cryptographically random bytes.
    static func randomBytes(_ count: Int) throws(Failure) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let ok = bytes.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32($0.count)) }
        guard ok == 1 else { throw .openSSL("RAND_bytes failed") }
        return bytes
    }

    /// Appends nonce | ciphertext | tag of `plaintext` to `output`, with a fresh random nonce.
    func seal(_ plaintext: UnsafeRawBufferPointer, authenticating associatedData: UnsafeRawBufferPointer,
              appendingTo output: inout [UInt8]) throws(Failure) {
        let nonce = try Self.randomBytes(Self.nonceSize)
        try seal(plaintext, nonce: nonce, authenticating: associatedData, appendingTo: &output)
    }

    /// Appends nonce | ciphertext | tag with the given nonce (known-answer tests use this).
    func seal(_ plaintext: UnsafeRawBufferPointer, nonce: [UInt8], authenticating associatedData: UnsafeRawBufferPointer,
              appendingTo output: inout [UInt8]) throws(Failure) {
        let offset = output.count
        output.append(contentsOf: nonce)
        output.append(contentsOf: repeatElement(0, count: plaintext.count + Self.tagSize))
        let ok: Bool = output.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return false }
            let ciphertext = base + offset + Self.nonceSize
            let tag = ciphertext + plaintext.count
            return start(encrypting: true, nonce: base + offset)
                && update(associatedData: associatedData)
                && update(input: plaintext, output: ciphertext)
                && finish()
                && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, Int32(Self.tagSize), tag) == 1
        }
        guard ok else {
            output.removeSubrange(offset...)
            throw .openSSL("AES-GCM encryption failed")
        }
    }

    /// The plaintext of a sealed value, after checking its tag against `associatedData`.
    func open(_ sealed: UnsafeRawBufferPointer, authenticating associatedData: UnsafeRawBufferPointer) throws(Failure) -> [UInt8] {
        guard sealed.count >= Self.overhead, let base = sealed.baseAddress else { throw .authenticationFailed }
        let ciphertextCount = sealed.count - Self.overhead
        let ciphertext = UnsafeRawBufferPointer(start: base + Self.nonceSize, count: ciphertextCount)
        var tag = Array(UnsafeRawBufferPointer(start: base + Self.nonceSize + ciphertextCount, count: Self.tagSize))
        var plaintext = [UInt8](repeating: 0, count: ciphertextCount)
        let ok: Bool = plaintext.withUnsafeMutableBufferPointer { output in
            tag.withUnsafeMutableBytes { tag in
                start(encrypting: false, nonce: base.assumingMemoryBound(to: UInt8.self))
                    && update(associatedData: associatedData)
                    && update(input: ciphertext, output: output.baseAddress)
                    && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, Int32(Self.tagSize), tag.baseAddress) == 1
                    && finish()
            }
        }
        guard ok else { throw .authenticationFailed }
        return plaintext
    }

    // MARK: EVP steps

    private func start(encrypting: Bool, nonce: UnsafePointer<UInt8>) -> Bool {
        let enc: Int32 = encrypting ? 1 : 0
        return key.withUnsafeBufferPointer { key in
            EVP_CipherInit_ex(context, EVP_aes_256_gcm(), nil, nil, nil, enc) == 1
                && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_IVLEN, Int32(Self.nonceSize), nil) == 1
                && EVP_CipherInit_ex(context, nil, nil, key.baseAddress, nonce, enc) == 1
        }
    }

    private func update(associatedData: UnsafeRawBufferPointer) -> Bool {
        guard associatedData.count > 0 else { return true }
        var length: Int32 = 0
        return EVP_CipherUpdate(context, nil, &length, associatedData.baseAddress?.assumingMemoryBound(to: UInt8.self),
                                Int32(associatedData.count)) == 1
    }

    private func update(input: UnsafeRawBufferPointer, output: UnsafeMutablePointer<UInt8>?) -> Bool {
        guard input.count > 0 else { return true }
        var length: Int32 = 0
        return EVP_CipherUpdate(context, output, &length, input.baseAddress?.assumingMemoryBound(to: UInt8.self),
                                Int32(input.count)) == 1 && Int(length) == input.count
    }

    private func finish() -> Bool {
        var length: Int32 = 0
        var scratch = [UInt8](repeating: 0, count: 16)
        return scratch.withUnsafeMutableBufferPointer { EVP_CipherFinal_ex(context, $0.baseAddress, &length) } == 1
    }
}
