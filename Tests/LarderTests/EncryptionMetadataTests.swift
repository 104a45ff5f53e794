// The encryption record and the class records as an attacker without the key rewrites them:
// the "encrypted records only" flag switched off, the key derivation changed, the
// authenticator stripped, an iteration count that would stall an open, a next rowID at the end
// of the range; and the upgrade of a legacy (unauthenticated) encryption record.

import Foundation
import Testing
@testable import Larder

@Suite struct EncryptionMetadataTests {
    private func open(_ directory: TemporaryDirectory, key: String? = "k") throws -> Store {
        let store = try Store(path: directory.path, configuration: Store.Configuration.quickKey(key))
        try store.register(Song.self)
        return store
    }

    /// A closed encrypted store holding songs 1...5.
    private func encryptedStore() throws -> TemporaryDirectory {
        let directory = TemporaryDirectory("crypt-meta")
        let store = try open(directory)
        for i in 1 ... 5 { try store.insert(Song(title: "song \(i)", seconds: UInt32(i))) }
        try store.saveChanges()
        try store.close()
        return directory
    }

    /// The store's encryption record, as decoded from the file.
    private func encryptionRecord(_ directory: TemporaryDirectory) throws -> EncryptionRecord? {
        let store = try open(directory)
        defer { try? store.close() }
        return store.encryptionRecord
    }

    /// Changes the encryption record with `change` and writes it back with a valid checksum.
    private func tamper(_ directory: TemporaryDirectory, _ change: (inout EncryptionRecord) -> Void) throws {
        var record = try #require(try encryptionRecord(directory))
        change(&record)
        try write(record, to: directory)
    }

    /// Writes `record` as the encryption record, with a valid checksum.
    private func write(_ record: EncryptionRecord, to directory: TemporaryDirectory) throws {
        try RawMetadata(directory: directory).put(RawMetadata.checksummed(record.encoded(), key: EncryptionRecord.key), forKey: EncryptionRecord.key)
    }

    /// Puts a plaintext record of a song under rowID 3, as someone without the key can.
    private func forgePlaintextSong(_ directory: TemporaryDirectory) throws {
        let backend = try TokyoCabinetBackend(path: directory.path, configuration: BackendConfiguration())
        var content = DataBuffer()
        content.write("forged title")
        content.write(UInt32(0))
        try RawRecords(backend: backend, table: "Song").write([3: RawRecords.sealed(content, rowID: 3)])
        try backend.close()
    }

    @Test func switchingOffEncryptedRecordsOnlyIsRefusedWithTheRightKey() throws {
        let directory = try encryptedStore()
        try tamper(directory) { $0.requiresEncryption = false }
        try forgePlaintextSong(directory)
        #expect(throws: StoreError.tamperedEncryptionSettings(reason: "the settings do not match their authenticator")) {
            _ = try open(directory)
        }
    }

    @Test func aLegacyRecordForgedFromAnAuthenticatedOneIsRefused() throws {
        let directory = try encryptedStore()
        // The authenticator stripped, the flag off, in a 0x01 envelope (no checksum at all).
        let original = try #require(try encryptionRecord(directory))
        let forged = EncryptionRecord(iterations: original.iterations, requiresEncryption: false, salt: original.salt,
                                      check: original.check)
        let content = forged.encoded()
        try RawMetadata(directory: directory).put([0x01, content.versionOfData] + content.bytes, forKey: EncryptionRecord.key)
        try forgePlaintextSong(directory)
        #expect(throws: StoreError.tamperedEncryptionSettings(reason: "an authenticated record was rewritten in the legacy form")) {
            _ = try open(directory)
        }
    }

    @Test func changedIterationsOrSaltDoNotOpenWithTheKey() throws {
        let directory = try encryptedStore()
        let original = try #require(try encryptionRecord(directory))
        var changed = original
        changed.iterations = 1
        try write(changed, to: directory)
        #expect(throws: StoreError.wrongEncryptionKey) { _ = try open(directory) }
        changed = original
        changed.salt[0] ^= 1
        try write(changed, to: directory)
        #expect(throws: StoreError.wrongEncryptionKey) { _ = try open(directory) }
        try write(original, to: directory)
        #expect(try open(directory).object(of: Song.self, rowID: 3)?.title == "song 3")
    }

    @Test func anIterationCountThatWouldStallIsRefusedBeforeDerivingAKey() throws {
        let directory = try encryptedStore()
        try tamper(directory) { $0.iterations = 100_000_000 }
        let started = Date()
        #expect(throws: StoreError.keyDerivationIterationsOutOfRange(100_000_000)) { _ = try open(directory) }
        #expect(Date().timeIntervalSince(started) < 1)
        // A new key asking for too many is refused the same way.
        let plain = TemporaryDirectory("crypt-meta-plain")
        let store = try open(plain, key: nil)
        #expect(throws: StoreError.keyDerivationIterationsOutOfRange(EncryptionRecord.maximumIterations + 1)) {
            try store.rekey(to: "k", iterations: EncryptionRecord.maximumIterations + 1)
        }
    }

    @Test func aNextRowIDAtTheEndOfTheRangeIsATypedErrorAtInsert() throws {
        // A plaintext store: in an encrypted one only the key could write this record.
        let directory = TemporaryDirectory("crypt-meta-rowids")
        let created = try open(directory, key: nil)
        for i in 1 ... 5 { try created.insert(Song(title: "song \(i)", seconds: UInt32(i))) }
        try created.saveChanges()
        try created.close()
        let key = ClassRecord.key(for: "Song")
        let store = try open(directory, key: nil)
        var record = try #require(store.records["Song"])
        try store.close()
        record.nextRowID = UInt64.max
        try RawMetadata(directory: directory).put(RawMetadata.checksummed(record.encoded(), key: key), forKey: key)
        let reopened = try open(directory, key: nil)
        #expect(throws: StoreError.rowIDsExhausted(class: "Song")) { try reopened.insert(Song(title: "one more", seconds: 1)) }
        #expect(try reopened.nextRowID(of: Song.self) == UInt64.max)
        #expect(!reopened.hasUnsavedChanges)
        #expect(try reopened.count(of: Song.self) == 5)
        try reopened.close()
    }

    @Test func aLegacyRecordIsUpgradedWhenOpenedWithItsKey() throws {
        let directory = try encryptedStore()
        // The record as the first encrypted stores wrote it: key check sealed under the legacy
        // associated data, no authenticator.
        let current = try #require(try encryptionRecord(directory))
        let cipher = try RecordCipher(key: RecordCipher.deriveKey(passphrase: "k", salt: current.salt, iterations: current.iterations))
        var check: [UInt8] = []
        try Array("Larder key check".utf8).withUnsafeBytes { plaintext in
            try Array("larder/key-check".utf8).withUnsafeBytes { try cipher.seal(plaintext, authenticating: $0, appendingTo: &check) }
        }
        let legacy = EncryptionRecord(iterations: current.iterations, requiresEncryption: true, salt: current.salt, check: check)
        try write(legacy, to: directory)

        let store = try open(directory)
        #expect(store.encryptionRecord?.isLegacy == false)
        #expect(store.encryptionRecord?.requiresEncryption == true)
        #expect(try store.object(of: Song.self, rowID: 2)?.title == "song 2")
        try store.close()
        #expect(try encryptionRecord(directory)?.isLegacy == false)
        #expect(throws: StoreError.wrongEncryptionKey) { _ = try open(directory, key: "not k") }
    }
}
