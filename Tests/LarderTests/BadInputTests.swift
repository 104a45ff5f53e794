// Bad input gets a clear error and never a crash: paths, foreign files, damaged records,
// missing rows.

import Foundation
import Testing
@testable import Larder
import LarderTestSupport

@Suite struct BadInputTests {
    @Test func aStorePathThatIsARegularFileIsRefused() throws {
        let directory = TemporaryDirectory()
        _ = FileManager.default.createFile(atPath: directory.path, contents: Data("not a store".utf8))
        #expect(throws: BackendError.notADirectory(path: directory.path)) { _ = try Store(path: directory.path) }
        #expect(try String(contentsOfFile: directory.path, encoding: .utf8) == "not a store")
    }

    @Test func aClassFileThatIsNotATokyoCabinetFileIsRefusedAndLeftAlone() throws {
        let directory = TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true)
        let garbage = Data((0 ..< 4_096).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        _ = FileManager.default.createFile(atPath: directory.file("Song.tch"), contents: garbage)
        let store = try Store(path: directory.path)
        #expect(throws: BackendError.notAStoreFile(path: directory.file("Song.tch"))) { try store.register(Song.self) }
        #expect(FileManager.default.contents(atPath: directory.file("Song.tch")) == garbage)
        try store.register(Playlist.self)
    }

    @Test func aDamagedMetadataFileIsRefused() throws {
        let directory = TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: directory.file("_store.tch"), contents: Data(repeating: 0x41, count: 1_000))
        #expect(throws: BackendError.notAStoreFile(path: directory.file("_store.tch"))) { _ = try Store(path: directory.path) }
    }

    @Test func aFileWhereAClassFileShouldBeIsADirectory() throws {
        let directory = TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("Song.tch"), withIntermediateDirectories: true)
        let store = try Store(path: directory.path)
        #expect(throws: BackendError.self) { try store.register(Song.self) }
    }

    @Test func recordsThatDoNotDecodeThrowTypedErrors() throws {
        let directory = TemporaryDirectory()
        let store = try directory.openStore([Strict.self])
        try handOutRowIDs(4, of: Strict.self, in: store)   // then overwrite their records
        try RawRecords(store, "Strict").write([
            1: [0x01, 0x01, 0xff],               // content too short
            2: [0x7f, 0x01, 1, 2, 3, 4],         // unknown format
            3: [0x01],                           // no version byte
            4: [0x01, 0x01, 9, 0, 0, 0],         // fine
        ])
        #expect(throws: StoreError.undecodableRecord(class: "Strict", rowID: 1,
                                                      reason: "truncated data at offset 0: needed 4 bytes, 1 available")) {
            _ = try store.object(of: Strict.self, rowID: 1)
        }
        #expect(throws: StoreError.corruptRecord(class: "Strict", rowID: 2)) { _ = try store.object(of: Strict.self, rowID: 2) }
        #expect(throws: StoreError.corruptRecord(class: "Strict", rowID: 3)) { _ = try store.object(of: Strict.self, rowID: 3) }
        #expect(try store.object(of: Strict.self, rowID: 4)?.value == 9)
        #expect(throws: StoreError.self) { _ = try store.allObjects(of: Strict.self) }
    }

    @Test func randomRecordBytesNeverCrash() throws {
        var generator = SplitMix(seed: 42)
        let directory = TemporaryDirectory()
        let store = try directory.openStore([Song.self, Playlist.self, Bookmark.self])
        for type in [Song.self, Playlist.self, Bookmark.self] as [StoredObject.Type] {
            try handOutRowIDs(300, of: type, in: store)
        }
        var records: [UInt64: [UInt8]] = [:]
        for rowID in UInt64(1) ... 300 {
            let length = Int.random(in: 0 ... 40, using: &generator)
            var bytes = (0 ..< length).map { _ in UInt8.random(in: 0 ... 255, using: &generator) }
            if rowID % 2 == 0, bytes.count >= 2 { bytes[0] = 0x01 }   // half pass the envelope check
            records[rowID] = bytes
        }
        for table in ["Song", "Playlist", "Bookmark"] {
            try RawRecords(store, table).write(records)
        }
        var failures = 0
        for rowID in UInt64(1) ... 300 {
            do { _ = try store.object(of: Song.self, rowID: rowID) } catch { failures += 1 }
            do { _ = try store.object(of: Playlist.self, rowID: rowID)?.songs.map(\.title) } catch { failures += 1 }
            do { _ = try store.object(of: Bookmark.self, rowID: rowID)?.extras.count } catch { failures += 1 }
        }
        #expect(failures > 300)
    }

    @Test func aFaultWhoseRecordIsMissingThrowsOnFetchAndKeepsTheErrorForStoredReads() throws {
        let directory = TemporaryDirectory()
        let store = try directory.openStore()
        try insertLibrary(into: store, songs: 5, perPlaylist: 5)
        try store.close()
        let reopened = try directory.openStore()
        let playlist = try #require(try reopened.object(of: Playlist.self, rowID: 1))
        try RawRecords(reopened, "Song").write(deleting: [3])   // behind the store's back
        let fault = playlist.songs[2]
        #expect(throws: StoreError.missingRecord(class: "Song", rowID: 3)) { try fault.fetchContent() }
        #expect(fault.title == "")
        #expect(fault.faultError as? StoreError == .missingRecord(class: "Song", rowID: 3))
        fault.title = "lost write"   // not marked: saving would overwrite the record with partial fields
        #expect(!reopened.hasUnsavedChanges)
        #expect(try reopened.object(of: Song.self, rowID: 3) == nil)
    }

    @Test func theSameStoreCannotBeOpenedTwiceInOneProcess() throws {
        let directory = TemporaryDirectory()
        let store = try directory.openStore()
        #expect(throws: BackendError.alreadyOpenInThisProcess(path: directory.file("_store.tch"))) {
            _ = try Store(path: directory.path)
        }
        try store.close()
        _ = try Store(path: directory.path)
    }
}

@Suite struct DamagedKeyTests {
    @Test func aRecordUnderARowIDNeverHandedOutIsReportedNotLoaded() throws {
        let directory = TemporaryDirectory()
        let store = try directory.openStore()
        for i in 1 ... 3 { try store.insert(Song(title: "\(i)", seconds: 0)) }
        try store.saveChanges()
        // A record copied under a huge rowID, as a flipped bit in a key would leave it.
        let huge: UInt64 = 1 << 60
        var content = DataBuffer()
        content.write("ghost")
        content.write(UInt32(0))
        try RawRecords(store, "Song").write([huge: RawRecords.sealed(content, rowID: huge)])
        #expect(try store.object(of: Song.self, rowID: huge) == nil)
        #expect(throws: StoreError.corruptRecord(class: "Song", rowID: huge)) { _ = try store.allObjects(of: Song.self) }
        #expect(try store.verify().problems == [.unexpectedRowID(class: "Song", rowID: huge)])
    }
}

/// Inserts and saves `count` empty objects of `type` without keeping them, so that rowIDs
/// 1...count exist (and are not in memory) before a test writes records under them directly.
func handOutRowIDs(_ count: Int, of type: StoredObject.Type, in store: Store) throws {
    for _ in 0 ..< count { try store.insert(type.init()) }
    try store.saveChanges()
}
