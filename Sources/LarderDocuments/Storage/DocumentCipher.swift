// DocumentCipher: an encrypted document store's key, shared by its collections. Larder's
// RecordCipher (AES-256-GCM) seals and opens every document, index run, run directory and
// metadata value; it is one OpenSSL context, so calls take a lock (collections decode in
// parallel). The associated data binds each sealed value to where it is stored:
//
//   associated data:  [format byte][scope, UTF-8][0x00][key]
//
// scope is the table (a collection's name, an index table's name, `_store`), key the
// record's key in it (a document's 8-byte rowID, a run's number, a metadata key), so a value
// copied under another key, table or collection fails to open. It is the sealer of the
// collections' index tables (IndexRunSealer, in Larder's index engine), with
// DocumentRecord.encryptedFormat as their format byte.

import Foundation
import Larder

/// The cipher of an encrypted document store.
final class DocumentCipher: @unchecked Sendable {
    // @unchecked: `cipher` is used only while `lock` is held.
    private let cipher: RecordCipher
    private let lock = NSLock()

    init(_ cipher: RecordCipher) {
        self.cipher = cipher
    }

    /// Appends `plaintext` sealed (nonce, ciphertext, tag) to `output`, bound to `format`,
    /// `scope` and `key`.
    func seal(_ plaintext: UnsafeRawBufferPointer, format: UInt8, scope: String, key: UnsafeRawBufferPointer,
              appendingTo output: inout [UInt8]) throws {
        lock.lock()
        defer { lock.unlock() }
        try cipher.seal(plaintext, format: format, scope: scope, key: key, appendingTo: &output)
    }

    /// The plaintext of `sealed`, or nil when it is damaged or was sealed with another key or
    /// for another place.
    func open(_ sealed: UnsafeRawBufferPointer, format: UInt8, scope: String, key: UnsafeRawBufferPointer) -> [UInt8]? {
        lock.lock()
        defer { lock.unlock() }
        return cipher.open(sealed, format: format, scope: scope, key: key)
    }
}

extension DocumentCipher: IndexRunSealer {
    /// An index table's sealed runs and directory are stored like sealed documents:
    /// `[DocumentRecord.encryptedFormat][sealed bytes]`.
    var sealedFormat: UInt8 { DocumentRecord.encryptedFormat }
}
