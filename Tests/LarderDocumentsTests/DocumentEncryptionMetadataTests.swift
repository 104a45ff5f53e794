// A document store's encryption record and collection definitions as an attacker without the
// key rewrites them: the "encrypted records only" flag switched off, the authenticator
// stripped, an iteration count that would stall an open, a next rowID at the end of the range;
// and the upgrade of a legacy (unauthenticated) encryption record.

import Foundation
@testable import Larder
import Testing
@testable import LarderDocuments

@Suite struct DocumentEncryptionMetadataTests {
    /// A fresh directory path, removed when `body` ends.
    private func withDirectory(_ body: (String) throws -> Void) throws {
        let path = NSTemporaryDirectory() + "larder-documents-crypt-meta-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try body(path)
    }

    private func open(_ path: String, key: String? = "k") throws -> DocumentStore {
        try DocumentStore(path: path, configuration: DocumentEncryptionTests.configuration(key))
    }

    /// A closed encrypted store with three documents in "vault".
    private func makeEncryptedStore(_ path: String) throws {
        let store = try open(path)
        _ = try store.collection("vault").insertBatch([["n": 1], ["n": 2], ["n": 3]])
        try store.close()
    }

    /// Runs `body` on the store's files, behind its back.
    private func withBackend(_ path: String, _ body: (TokyoCabinetBackend) throws -> Void) throws {
        let backend = try TokyoCabinetBackend(path: path, configuration: DocumentEncryptionTests.configuration(nil).backend)
        defer { try? backend.close() }
        try body(backend)
    }

    /// The encryption record as the file holds it.
    private func storedRecord(_ path: String) throws -> EncryptionRecord {
        var record: EncryptionRecord?
        try withBackend(path) { backend in
            try backend.readValue(forKey: EncryptionRecord.key, in: DocumentStore.metadataTable) { bytes in
                guard let bytes else { return }
                record = try EncryptionRecord.key.withUnsafeBytes { key in
                    try DocumentRecord.withContent(bytes, key: key, cipher: nil, scope: DocumentStore.metadataTable) { content in
                        var buffer = DataBuffer(bytes: Array(content))
                        return try EncryptionRecord(decoding: &buffer)
                    }
                }
            }
        }
        return try #require(record)
    }

    /// Writes `record` as the encryption record, in a checksummed envelope.
    private func write(_ record: EncryptionRecord, to path: String) throws {
        try withBackend(path) { backend in
            let key = EncryptionRecord.key
            var batch = WriteBatch()
            batch.put(try DocumentRecord.seal(content: record.encoded().bytes, key: key, cipher: nil, scope: DocumentStore.metadataTable),
                      forKey: key, in: DocumentStore.metadataTable)
            try backend.apply(batch)
        }
    }

    @Test func switchingOffEncryptedRecordsOnlyIsRefusedWithTheRightKey() throws {
        try withDirectory { path in
            try makeEncryptedStore(path)
            var record = try storedRecord(path)
            record.requiresEncryption = false
            try write(record, to: path)
            #expect(throws: StoreError.tamperedEncryptionSettings(reason: "the settings do not match their authenticator")) {
                _ = try open(path)
            }
            record.authenticator = nil
            try write(record, to: path)
            #expect(throws: StoreError.tamperedEncryptionSettings(reason: "an authenticated record was rewritten in the legacy form")) {
                _ = try open(path)
            }
        }
    }

    @Test func anIterationCountThatWouldStallIsRefusedBeforeDerivingAKey() throws {
        try withDirectory { path in
            try makeEncryptedStore(path)
            var record = try storedRecord(path)
            record.iterations = 100_000_000
            try write(record, to: path)
            let started = Date()
            #expect(throws: StoreError.keyDerivationIterationsOutOfRange(100_000_000)) { _ = try open(path) }
            #expect(Date().timeIntervalSince(started) < 1)
        }
    }

    @Test func aLegacyRecordIsUpgradedWhenOpenedWithItsKey() throws {
        try withDirectory { path in
            try makeEncryptedStore(path)
            let current = try storedRecord(path)
            let cipher = try RecordCipher(key: RecordCipher.deriveKey(passphrase: "k", salt: current.salt,
                                                                      iterations: current.iterations))
            var check: [UInt8] = []
            try Array("Larder key check".utf8).withUnsafeBytes { plaintext in
                try Array("larder/key-check".utf8).withUnsafeBytes { try cipher.seal(plaintext, authenticating: $0, appendingTo: &check) }
            }
            try write(EncryptionRecord(iterations: current.iterations, requiresEncryption: true, salt: current.salt, check: check),
                      to: path)
            let store = try open(path)
            #expect(try store.collection("vault").findOne(where: "[n] = ?", arguments: [2])?["n"] == 2)
            try store.close()
            #expect(try storedRecord(path).isLegacy == false)
            #expect(try storedRecord(path).requiresEncryption)
        }
    }

    @Test func aNextRowIDAtTheEndOfTheRangeIsATypedErrorAtInsert() throws {
        try withDirectory { path in
            let store = try open(path, key: nil)
            _ = try store.collection("plain").insertBatch([["n": 1], ["n": 2]])
            try store.close()
            try withBackend(path) { backend in
                var definition = CollectionDefinition()
                definition.nextRowID = Int64.max
                let key = CollectionDefinition.metadataKey(for: "plain")
                var batch = WriteBatch()
                batch.put(DocumentRecord.seal(definition.json, key: key), forKey: key, in: DocumentStore.metadataTable)
                try backend.apply(batch)
            }
            let reopened = try open(path, key: nil)
            let plain = try reopened.collection("plain")
            #expect(throws: DocumentError.identifiersExhausted(collection: "plain")) { _ = try plain.insert(["n": 3]) }
            #expect(try plain.find().count == 2)
            try reopened.close()
        }
    }
}
