// Promises README.md makes that no other test held it to: a damaged named buffer or metadata
// record is a typed error, a store of a newer format is refused and left alone, unsaved inserts
// and changes are not searched, an encrypted record is its content plus 30 bytes, and rekey
// derives its key with the configured iterations unless told otherwise.

import Foundation
import Testing
@testable import Larder

@Suite struct ReadmePromiseTests {
    /// Every file of the store directory, by name.
    private func files(of directory: TemporaryDirectory) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            files[name] = try Data(contentsOf: URL(fileURLWithPath: directory.file(name)))
        }
        return files
    }

    /// A closed store of 10 songs in 2 playlists.
    private func closedLibrary() throws -> TemporaryDirectory {
        let directory = TemporaryDirectory("readme")
        let store = try directory.openStore()
        try insertLibrary(into: store, songs: 10, perPlaylist: 5)
        try store.close()
        return directory
    }

    /// Flips a bit of the byte `offset` bytes from the start of the one occurrence of `marker`
    /// in `file`, as damage on the disk would.
    private func flipByte(in file: String, at offset: Int, from marker: String) throws {
        let url = URL(fileURLWithPath: file)
        var bytes = [UInt8](try Data(contentsOf: url))
        let pattern = Array(marker.utf8)
        let starts = bytes.indices.dropLast(pattern.count - 1).filter { start in
            bytes[start ..< start + pattern.count].elementsEqual(pattern)
        }
        try #require(starts.count == 1, "'\(marker)' occurs \(starts.count) times in \(file)")
        bytes[starts[0] + offset] ^= 0x10
        try Data(bytes).write(to: url)
    }

    // "Errors. Bad input gets a typed error ... a foreign or damaged file, a record that does
    // not decode."

    @Test func aNamedBufferDamagedOnDiskIsATypedErrorThatVerifyReports() throws {
        let directory = try closedLibrary()
        do {
            let store = try directory.openStore()
            var bookmark = DataBuffer()
            bookmark.write("a bookmark that will be damaged")
            try store.setDataBuffer(bookmark, forName: "bookmark")
            var intact = DataBuffer()
            intact.write("an intact one")
            try store.setDataBuffer(intact, forName: "intact")
            try store.close()
        }
        try flipByte(in: directory.file("_names.tch"), at: 5, from: "a bookmark that will be damaged")

        let store = try directory.openStore()
        #expect(throws: StoreError.corruptNamedBuffer(name: "bookmark")) { _ = try store.dataBuffer(forName: "bookmark") }
        var intact = try #require(try store.dataBuffer(forName: "intact"))
        #expect(try intact.readString() == "an intact one")
        #expect(try store.dataBufferNames() == ["bookmark", "intact"])
        #expect(try store.count(of: Song.self) == 10)
        #expect(try store.verify().problems == [.corruptNamedBuffer(name: "bookmark")])
        // Replacing the damaged buffer mends it.
        var mended = DataBuffer()
        mended.write("mended")
        try store.setDataBuffer(mended, forName: "bookmark")
        var bookmark = try #require(try store.dataBuffer(forName: "bookmark"))
        #expect(try bookmark.readString() == "mended")
        #expect(try store.verify().isHealthy)
    }

    /// The class registry's record of Song, and the format record: a byte of each damaged on
    /// disk (in the byte after the key: the envelope's version byte, which the checksum covers).
    @Test(arguments: ["class/Song", "format"])
    func aMetadataRecordDamagedOnDiskIsATypedErrorAndChangesNothing(key: String) throws {
        let directory = try closedLibrary()
        try flipByte(in: directory.file("_store.tch"), at: key.utf8.count + 1, from: key)
        let damaged = try files(of: directory)

        for readOnly in [false, true] {
            let error = #expect(throws: StoreError.self) {
                _ = try Store(path: directory.path, configuration: .init(readOnly: readOnly))
            }
            guard case let .corruptMetadata(foundKey, _) = error else {
                Issue.record("read-only \(readOnly): \(String(describing: error)), not corruptMetadata")
                continue
            }
            #expect(foundKey == key)
        }
        #expect(try files(of: directory) == damaged)
    }

    @Test func aStoreOfANewerFormatIsRefusedAndLeftAlone() throws {
        let directory = try closedLibrary()
        do {
            let backend = try TokyoCabinetBackend(path: directory.path)
            var format = DataBuffer()
            format.writeVarInt(Store.formatVersion + 1)
            var batch = WriteBatch()
            try batch.putSealed(format, forKey: Store.formatKey, in: Store.metadataTable)
            try backend.apply(batch)
            try backend.close()
        }
        let newer = try files(of: directory)
        for readOnly in [false, true] {
            #expect(throws: StoreError.unsupportedFormat(version: Store.formatVersion + 1)) {
                _ = try Store(path: directory.path, configuration: .init(readOnly: readOnly))
            }
        }
        #expect(try files(of: directory) == newer)
    }

    // "Saved state. The index follows saves: unsaved inserts and changes are not searched yet."

    @Test func unsavedInsertsAndChangesAreNotSearchedUntilSaved() throws {
        let directory = TemporaryDirectory("readme")
        let store = try makeIndexedStore(directory)
        #expect(try store.titleMatches("[[blue]]") == [1, 2])
        try store.insert(IndexedSong("Blue Train"))
        let soWhat = try #require(try store.object(of: IndexedSong.self, rowID: 3))
        soWhat.title = "So Blue"
        #expect(try store.titleMatches("train") == [])
        #expect(try store.titleMatches("[[blue]]") == [1, 2])
        #expect(try store.titleMatches("[[what]]") == [3, 10])
        try store.saveChanges()
        #expect(try store.titleMatches("train") == [11])
        #expect(try store.titleMatches("[[blue]]") == [1, 2, 3, 11])
        #expect(try store.titleMatches("[[what]]") == [10])
    }

    // "Not protected: ... the size of each page of a class file (a sealed page is its records
    // plus 29 bytes; a record in it, its content plus 4 bytes), and of each named buffer (its
    // content plus 30 bytes)".

    @Test func aSealedPageIsItsRecordsPlus29Bytes() throws {
        let directory = TemporaryDirectory("readme")
        let configuration = Store.Configuration.quickKey("correct horse")
        let store = try Store(path: directory.path, configuration: configuration)
        try store.register(Song.self)
        let songs = [Song(title: String(repeating: "x", count: 77), seconds: 3), Song(title: "y", seconds: 4)]
        for song in songs { try store.insert(song) }
        try store.saveChanges()
        let contentSizes = songs.map { song in
            var content = DataBuffer()
            song.writeContent(to: &content)
            return content.bytes.count
        }
        // Page format byte, then per record: slot, size (one byte below 128), format, version.
        let page = 1 + contentSizes.reduce(0) { $0 + $1 + 4 }
        #expect(try RawRecords(store, "Song").pages()[0]?.count == page + 29)

        var bookmark = DataBuffer()
        bookmark.write(String(repeating: "y", count: 41))
        try store.setDataBuffer(bookmark, forName: "bookmark")
        let stored = try store.backend.withValue(forKey: Array("bookmark".utf8), in: Store.namesTable) { $0?.count }
        #expect(stored == bookmark.bytes.count + 30)
    }

    // "rekey(to:) rewrites every record in one atomic save (with the store's configured
    // keyDerivationIterations unless iterations: is given)".

    @Test func rekeyDerivesItsKeyWithTheConfiguredIterationsUnlessGiven() throws {
        let directory = TemporaryDirectory("readme")
        var configuration = Store.Configuration.quickKey("first")
        do {
            let store = try Store(path: directory.path, configuration: configuration)
            #expect(store.encryptionRecord?.iterations == 1_000)
            configuration.keyDerivationIterations = 1_200
            try store.close()
        }
        let store = try Store(path: directory.path, configuration: configuration)
        #expect(store.encryptionRecord?.iterations == 1_000)   // as stored, until a rekey
        try store.rekey(to: "second")
        #expect(store.encryptionRecord?.iterations == 1_200)
        try store.rekey(to: "third", iterations: 1_500)
        #expect(store.encryptionRecord?.iterations == 1_500)
        try store.close()
        configuration.encryptionKey = "third"
        let reopened = try Store(path: directory.path, configuration: configuration)
        #expect(reopened.encryptionRecord?.iterations == 1_500)
    }

    // "Migration. ... to encrypt an existing store completely, open it with the key and call
    // rekey(to:) with the same passphrase": from then on only encrypted records are accepted.

    @Test func rekeyingAMigratedStoreWithItsOwnPassphraseRefusesPlaintextFromThenOn() throws {
        let directory = try closedLibrary()
        let configuration = Store.Configuration.quickKey("the key")
        do {
            let store = try Store(path: directory.path, configuration: configuration)
            try store.register(Song.self)
            try store.register(Playlist.self)
            try store.rekey(to: "the key")
            var content = DataBuffer()
            content.write("forged title")
            content.write(UInt32(0))
            try RawRecords(store, "Song").write([3: RawRecords.sealed(content, rowID: 3)])
            try store.close()
        }
        let store = try Store(path: directory.path, configuration: configuration)
        try store.register(Song.self)
        // The forger, without the key, could only replace the sealed page with one of their own.
        #expect(throws: StoreError.corruptRecord(class: "Song", rowID: 3)) { _ = try store.object(of: Song.self, rowID: 3) }
        #expect(try RawRecords(store, "Playlist").pages().values.allSatisfy { $0[0] == PageSeal.format })
        try store.backend.forEachRecord(in: Store.namesTable) { _, value in
            #expect(value[0] == RecordEnvelope.encryptedFormat)
            return true
        }
    }

    // "Checking. store.verify() reads every record ... It changes nothing."

    @Test func verifyChangesNoByteOfTheStoreEvenWhenItFindsDamage() throws {
        let directory = TemporaryDirectory("readme")
        let store = try makeIndexedStore(directory)
        try store.register(Song.self)
        try store.register(Playlist.self)
        try insertLibrary(into: store, songs: 10, perPlaylist: 5)
        try RawRecords(store, "Song").write([4: [RecordEnvelope.checkedFormat, 1, 0, 0]])
        let before = try files(of: directory)
        let report = try store.verify()
        #expect(report.problems.contains(.corruptRecord(class: "Song", rowID: 4)), "\(report.problems)")
        #expect(!store.hasUnsavedChanges)
        let after = try files(of: directory)
        #expect(after.filter { before[$0.key] != nil } == before)
        // No file appears either: reads of a table without a file (here `_names`, in a store
        // without named buffers) do not create it.
        #expect(after.keys.sorted() == before.keys.sorted())
    }
}
