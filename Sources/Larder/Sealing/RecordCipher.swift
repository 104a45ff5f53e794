// RecordCipher: AES-256-GCM through OpenSSL's EVP API, the PBKDF2-HMAC-SHA256 key
// derivation and HMAC-SHA256. The only file that imports OpenSSL.
//
// A sealed value is  nonce (12 random bytes) | ciphertext | tag (16 bytes).  The caller's
// associated data (class ID and rowID, or a buffer's name) is authenticated with it, so a
// value copied under another key fails to open.

import COpenSSL
import Glibc

/// AES-256-GCM encryption of record values.
package final class RecordCipher {
    static let keySize = 32
    static let nonceSize = 12
    static let tagSize = 16
    /// Bytes a sealed value adds to its plaintext.
    package static let overhead = nonceSize + tagSize

    /// Why a cipher operation failed.
    package enum Failure: Error, Equatable {
        /// OpenSSL reported an error (out of memory, no entropy).
        case openSSL(String)
        /// The sealed value is damaged, truncated, or was sealed with another key or
        /// associated data.
        case authenticationFailed
    }

    /// One context per direction, each keyed once: a record only sets its nonce.
    private let encryptor: OpaquePointer
    private let decryptor: OpaquePointer
    /// Random bytes drawn from OpenSSL in batches, 12 per nonce.
    private var noncePool: [UInt8] = []
    private var noncePoolOffset = 0
    /// The process the pool was drawn in: a forked child must never reuse its parent's nonces.
    private var noncePoolProcess: pid_t = 0
    private static let noncePoolSize = nonceSize * 256
    /// The store is fully encrypted: records in a plaintext format are treated as damaged.
    var rejectsPlaintext = false
    /// The key, for ``duplicate()``.
    private let key: [UInt8]

    init(key: [UInt8]) throws(Failure) {
        guard key.count == Self.keySize else { throw .openSSL("AES-256 needs a 32-byte key") }
        self.key = key
        guard let encryptor = EVP_CIPHER_CTX_new() else { throw .openSSL("EVP_CIPHER_CTX_new failed") }
        guard let decryptor = EVP_CIPHER_CTX_new() else {
            EVP_CIPHER_CTX_free(encryptor)
            throw .openSSL("EVP_CIPHER_CTX_new failed")
        }
        self.encryptor = encryptor
        self.decryptor = decryptor
        self.currentContext = encryptor
        // GCM's default nonce length is 12 bytes; the key schedule is computed here, once.
        let keyed = key.withUnsafeBufferPointer { key in
            EVP_CipherInit_ex(encryptor, EVP_aes_256_gcm(), nil, key.baseAddress, nil, 1) == 1
                && EVP_CipherInit_ex(decryptor, EVP_aes_256_gcm(), nil, key.baseAddress, nil, 0) == 1
        }
        guard keyed else {
            EVP_CIPHER_CTX_free(encryptor)
            EVP_CIPHER_CTX_free(decryptor)
            throw .openSSL("EVP_CipherInit_ex failed")
        }
    }

    /// A cipher of the same key and settings with contexts of its own, for another thread: a
    /// cipher's contexts and nonce pool serve one thread at a time, and deriving the key again
    /// would cost the passphrase's whole key derivation.
    func duplicate() throws(Failure) -> RecordCipher {
        let copy = try RecordCipher(key: key)
        copy.rejectsPlaintext = rejectsPlaintext
        return copy
    }

    deinit {
        EVP_CIPHER_CTX_free(encryptor)
        EVP_CIPHER_CTX_free(decryptor)
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

    /// HMAC-SHA256 of `message` under `key` (32 bytes).
    static func authenticationCode(of message: [UInt8], key: [UInt8]) throws(Failure) -> [UInt8] {
        var code = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let result = key.withUnsafeBufferPointer { key in
            message.withUnsafeBufferPointer { message in
                code.withUnsafeMutableBufferPointer { code in
                    HMAC(EVP_sha256(), key.baseAddress, Int32(key.count), message.baseAddress, message.count,
                         code.baseAddress, &length)
                }
            }
        }
        guard result != nil, length == 32 else { throw .openSSL("HMAC-SHA256 failed") }
        return code
    }

    /// `count` cryptographically random bytes.
    static func randomBytes(_ count: Int) throws(Failure) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let ok = bytes.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32($0.count)) }
        guard ok == 1 else { throw .openSSL("RAND_bytes failed") }
        return bytes
    }

    /// Appends nonce | ciphertext | tag of `plaintext` to `output`, with a fresh random nonce.
    package func seal(_ plaintext: UnsafeRawBufferPointer, authenticating associatedData: UnsafeRawBufferPointer,
                      appendingTo output: inout [UInt8]) throws(Failure) {
        try seal(plaintext, nonce: nextNonce(), authenticating: associatedData, appendingTo: &output)
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
                && EVP_CIPHER_CTX_ctrl(currentContext, EVP_CTRL_GCM_GET_TAG, Int32(Self.tagSize), tag) == 1
        }
        guard ok else {
            output.removeSubrange(offset...)
            throw .openSSL("AES-GCM encryption failed")
        }
    }

    /// The plaintext of a sealed value, after checking its tag against `associatedData`.
    package func open(_ sealed: UnsafeRawBufferPointer, authenticating associatedData: UnsafeRawBufferPointer) throws(Failure) -> [UInt8] {
        var plaintext: [UInt8] = []
        try open(sealed, authenticating: associatedData, into: &plaintext)
        return plaintext
    }

    /// Replaces the contents of `plaintext` (its storage reused) with the plaintext of a sealed
    /// value, after checking its tag against `associatedData`; on a failure `plaintext` is
    /// emptied, never left holding unauthenticated bytes.
    package func open(_ sealed: UnsafeRawBufferPointer, authenticating associatedData: UnsafeRawBufferPointer,
                      into plaintext: inout [UInt8]) throws(Failure) {
        plaintext.removeAll(keepingCapacity: true)
        guard sealed.count >= Self.overhead, let base = sealed.baseAddress else { throw .authenticationFailed }
        let ciphertextCount = sealed.count - Self.overhead
        let ciphertext = UnsafeRawBufferPointer(start: base + Self.nonceSize, count: ciphertextCount)
        // GCM's tag is set through a mutable pointer; OpenSSL only reads it.
        let tag = UnsafeMutableRawPointer(mutating: base + Self.nonceSize + ciphertextCount)
        plaintext.append(contentsOf: repeatElement(0, count: ciphertextCount))
        let ok: Bool = plaintext.withUnsafeMutableBufferPointer { output in
            start(encrypting: false, nonce: base.assumingMemoryBound(to: UInt8.self))
                && update(associatedData: associatedData)
                && update(input: ciphertext, output: output.baseAddress)
                && EVP_CIPHER_CTX_ctrl(currentContext, EVP_CTRL_GCM_SET_TAG, Int32(Self.tagSize), tag) == 1
                && finish()
        }
        guard ok else {
            plaintext.removeAll(keepingCapacity: true)
            throw .authenticationFailed
        }
    }

    /// A fresh random nonce, from the pool (refilled from OpenSSL's RAND_bytes).
    private func nextNonce() throws(Failure) -> [UInt8] {
        let process = getpid()
        if noncePoolOffset + Self.nonceSize > noncePool.count || process != noncePoolProcess {
            noncePool = try Self.randomBytes(Self.noncePoolSize)
            noncePoolOffset = 0
            noncePoolProcess = process
        }
        defer { noncePoolOffset += Self.nonceSize }
        return Array(noncePool[noncePoolOffset ..< noncePoolOffset + Self.nonceSize])
    }

    // MARK: EVP steps

    /// The context of the message in progress (the encryptor or the decryptor).
    private var currentContext: OpaquePointer

    /// Switches to the context for one direction and starts a new message with `nonce`.
    private func start(encrypting: Bool, nonce: UnsafePointer<UInt8>) -> Bool {
        currentContext = encrypting ? encryptor : decryptor
        return EVP_CipherInit_ex(currentContext, nil, nil, nil, nonce, -1) == 1
    }

    private func update(associatedData: UnsafeRawBufferPointer) -> Bool {
        guard associatedData.count > 0 else { return true }
        var length: Int32 = 0
        return EVP_CipherUpdate(currentContext, nil, &length, associatedData.baseAddress?.assumingMemoryBound(to: UInt8.self),
                                Int32(associatedData.count)) == 1
    }

    private func update(input: UnsafeRawBufferPointer, output: UnsafeMutablePointer<UInt8>?) -> Bool {
        guard input.count > 0 else { return true }
        var length: Int32 = 0
        return EVP_CipherUpdate(currentContext, output, &length, input.baseAddress?.assumingMemoryBound(to: UInt8.self),
                                Int32(input.count)) == 1 && Int(length) == input.count
    }

    private func finish() -> Bool {
        var length: Int32 = 0
        // GCM writes nothing here (it is a stream mode), but OpenSSL asks for a block's room.
        var scratch: (UInt64, UInt64) = (0, 0)
        return withUnsafeMutableBytes(of: &scratch) {
            EVP_CipherFinal_ex(currentContext, $0.baseAddress?.assumingMemoryBound(to: UInt8.self), &length)
        } == 1
    }
}
