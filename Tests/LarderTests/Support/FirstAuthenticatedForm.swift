// Encrypted stores as the first authenticated form left them (encryption settings in form 2,
// every other metadata record checksummed), made from a current store for the upgrade tests.

import Testing
@testable import Larder

/// Rewrites the closed encrypted store in `directory` (whose passphrase is `passphrase`) as
/// the first authenticated form left it.
func rewriteInTheFirstAuthenticatedForm(_ directory: TemporaryDirectory, passphrase: String) throws {
    let store = try Store(path: directory.path, configuration: Store.Configuration.quickKey(passphrase))
    var settings = try #require(store.encryptionRecord)
    var contents: [[UInt8]: DataBuffer] = [:]
    try store.backend.forEachRecord(in: Store.metadataTable) { key, value in
        if !key.elementsEqual(EncryptionRecord.key) {
            contents[Array(key)] = try store.openMetadata(value, key: key, name: "")
        }
        return true
    }
    try store.close()
    settings.form = EncryptionRecord.firstAuthenticatedForm
    settings.authenticator = try settings.expectedAuthenticator(
        key: RecordCipher.deriveKey(passphrase: passphrase, salt: settings.salt, iterations: settings.iterations))
    let raw = RawMetadata(directory: directory)
    for (key, content) in contents { try raw.put(RawMetadata.checksummed(content, key: key), forKey: key) }
    try raw.put(RawMetadata.checksummed(settings.encoded(), key: EncryptionRecord.key), forKey: EncryptionRecord.key)
}
