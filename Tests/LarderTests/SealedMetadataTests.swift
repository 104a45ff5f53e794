// The metadata of an encrypted store (format, class registry, text index registry) as an
// attacker with the files but not the key rewrites it: records checksummed instead of sealed,
// sealed records moved under another key or out of a named buffer, the settings relabelled as
// the earlier form that did not seal them; and the upgrades and rekeys that seal or unseal them.

import Foundation
import Testing
@testable import Larder

@Suite struct SealedMetadataTests {
    private let classKey = ClassRecord.key(for: "Song")

    private func open(_ directory: TemporaryDirectory, key: String? = "k", readOnly: Bool = false) throws -> Store {
        let store = try Store(path: directory.path, configuration: .quickKey(key, readOnly: readOnly))
        try store.register(Song.self)
        try store.register(IndexedSong.self)
        return store
    }

    /// A closed store (encrypted with "k" unless `key` is nil) holding songs 1...5 and one
    /// indexed song.
    private func store(key: String? = "k") throws -> TemporaryDirectory {
        let directory = TemporaryDirectory("sealed-meta")
        let store = try open(directory, key: key)
        for i in 1 ... 5 { try store.insert(Song(title: "song \(i)", seconds: UInt32(i))) }
        try store.insert(IndexedSong("So What", artist: "Miles Davis"))
        try store.saveChanges()
        try store.close()
        return directory
    }

    /// The envelope format (first byte) of each metadata record that must be sealed.
    private func formats(_ directory: TemporaryDirectory) throws -> [String: UInt8?] {
        let raw = RawMetadata(directory: directory)
        var formats: [String: UInt8?] = [:]
        for name in ["format", "class/Song", "class/IndexedSong", "text/IndexedSong"] {
            formats[name] = try raw.envelope(forKey: Array(name.utf8))?.first
        }
        return formats
    }

    private func allSealed(_ directory: TemporaryDirectory) throws -> Bool {
        try formats(directory).values.allSatisfy { $0 == RecordEnvelope.encryptedFormat }
    }

    private func allChecksummed(_ directory: TemporaryDirectory) throws -> Bool {
        try formats(directory).values.allSatisfy { $0 == RecordEnvelope.checkedFormat }
    }

    /// The class record of Song as the store holds it.
    private func songRecord(_ directory: TemporaryDirectory) throws -> ClassRecord {
        let store = try open(directory)
        defer { try? store.close() }
        return try #require(store.records["Song"])
    }

    @Test func everyMetadataRecordButTheSettingsIsSealedInAnEncryptedStore() throws {
        let encrypted = try store()
        #expect(try allSealed(encrypted))
        // The settings carry their own authenticator and must be readable before the key is known.
        #expect(try RawMetadata(directory: encrypted).envelope(forKey: EncryptionRecord.key)?.first == RecordEnvelope.checkedFormat)
        #expect(try allChecksummed(store(key: nil)))
    }

    @Test func aChecksummedClassRecordIsRefused() throws {
        let directory = try store()
        var record = try songRecord(directory)
        record.nextRowID = 2   // would hand out rowID 2 again, over song 2
        try RawMetadata(directory: directory).put(RawMetadata.checksummed(record.encoded(), key: classKey), forKey: classKey)
        #expect(throws: StoreError.corruptMetadata(key: "class/Song", reason: "not sealed with the store's key")) {
            _ = try open(directory)
        }
    }

    @Test func aChecksummedOrMissingFormatRecordIsRefused() throws {
        let directory = try store()
        let raw = RawMetadata(directory: directory)
        var format = DataBuffer()
        format.writeVarInt(1)
        try raw.put(RawMetadata.checksummed(format, key: Store.formatKey), forKey: Store.formatKey)
        #expect(throws: StoreError.corruptMetadata(key: "format", reason: "not sealed with the store's key")) {
            _ = try open(directory)
        }
        let backend = try TokyoCabinetBackend(path: directory.path, configuration: BackendConfiguration())
        var batch = WriteBatch()
        batch.removeValue(forKey: Store.formatKey, in: Store.metadataTable)
        try backend.apply(batch)
        try backend.close()
        #expect(throws: StoreError.corruptMetadata(key: "format", reason: "the format record is missing")) {
            _ = try open(directory)
        }
    }

    @Test func aSealedRecordMovedUnderAnotherKeyIsRefused() throws {
        let directory = try store()
        let raw = RawMetadata(directory: directory)
        let songs = try #require(try raw.envelope(forKey: classKey))
        try raw.put(songs, forKey: ClassRecord.key(for: "IndexedSong"))
        #expect(throws: StoreError.corruptMetadata(key: "class/IndexedSong", reason: "damaged record (checksumMismatch)")) {
            _ = try open(directory)
        }
    }

    @Test func aNamedBufferCannotPassForAClassRecord() throws {
        let directory = try store()
        var forged = try songRecord(directory)
        forged.nextRowID = 1
        // The key seals the buffer, but under the scope of named buffers, not of metadata.
        let store = try open(directory)
        try store.setDataBuffer(forged.encoded(), forName: "class/Song")
        try store.close()
        let raw = RawMetadata(directory: directory)
        let sealedBuffer = try #require(try raw.value(forKey: classKey, in: Store.namesTable))
        try raw.put(sealedBuffer, forKey: classKey)
        #expect(throws: StoreError.corruptMetadata(key: "class/Song", reason: "damaged record (checksumMismatch)")) {
            _ = try open(directory)
        }
    }

    @Test func aStoreOfTheFirstAuthenticatedFormIsSealedWhenAWriterOpensIt() throws {
        let directory = try store()
        try rewriteInTheFirstAuthenticatedForm(directory, passphrase: "k")
        #expect(try allChecksummed(directory))
        // A reader opens it as it is and writes nothing.
        let reader = try open(directory, readOnly: true)
        #expect(try reader.object(of: Song.self, rowID: 4)?.title == "song 4")
        #expect(reader.encryptionRecord?.sealsMetadata == false)
        try reader.close()
        #expect(try allChecksummed(directory))
        // A writer seals it, in one batch with the settings' new form.
        let writer = try open(directory)
        #expect(writer.encryptionRecord?.sealsMetadata == true)
        #expect(try writer.objects(of: IndexedSong.self, matchingText: "miles", forAttribute: "artist").count == 1)
        try writer.close()
        #expect(try allSealed(directory))
        let reopened = try open(directory)
        #expect(try reopened.count(of: Song.self) == 5)
        #expect(try reopened.verify().isHealthy)
        try reopened.close()
    }

    @Test func settingsRelabelledAsTheFirstAuthenticatedFormAreRefused() throws {
        let directory = try store()
        var settings = try #require(try open(directory).encryptionRecord)
        // Form 2 would accept checksummed metadata: the authenticator covers the form.
        settings.form = EncryptionRecord.firstAuthenticatedForm
        try RawMetadata(directory: directory).put(RawMetadata.checksummed(settings.encoded(), key: EncryptionRecord.key),
                                                  forKey: EncryptionRecord.key)
        #expect(throws: StoreError.tamperedEncryptionSettings(reason: "the settings do not match their authenticator")) {
            _ = try open(directory)
        }
    }

    @Test func rekeyingSealsAndUnsealsTheMetadata() throws {
        let directory = try store()
        let store = try open(directory)
        try store.rekey(to: nil)
        try store.close()
        #expect(try allChecksummed(directory))
        #expect(try open(directory, key: nil).count(of: Song.self) == 5)

        let plain = try open(directory, key: nil)
        try plain.rekey(to: "k2", iterations: 1_000)
        try plain.close()
        #expect(try allSealed(directory))
        #expect(throws: StoreError.wrongEncryptionKey) { _ = try open(directory, key: "k") }
        let rekeyed = try open(directory, key: "k2")
        #expect(try rekeyed.object(of: Song.self, rowID: 5)?.title == "song 5")
        #expect(try rekeyed.verify().isHealthy)
        try rekeyed.close()
    }

    @Test func encryptionTurnedOnForAPlaintextStoreSealsItsMetadata() throws {
        let directory = try store(key: nil)
        let store = try open(directory, key: "k")
        #expect(try store.object(of: Song.self, rowID: 1)?.title == "song 1")
        try store.close()
        #expect(try allSealed(directory))
        #expect(throws: StoreError.encryptionKeyRequired) { _ = try open(directory, key: nil) }
        #expect(try open(directory, key: "k").verify().isHealthy)
    }
}
