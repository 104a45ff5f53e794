// Shadow copies (ShadowCopy): with `.full` durability a save that rewrites a large share of a
// class file is written into a copy renamed over the file, not through Tokyo Cabinet's synced
// undo log; a small save still changes the file in place. Either way the save is all or nothing
// when any of its file operations fails (the crash and power-loss tests put the copy under
// kills and cuts too).

import Foundation
import Testing
@testable import Larder

@Suite struct ShadowCopyTests {
    private func inode(_ path: String) throws -> UInt64 {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? UInt64)
    }

    @Test func aLargeSaveReplacesTheClassFileAndASmallOneChangesItInPlace() throws {
        let directory = TemporaryDirectory("shadow")
        let store = try directory.store()
        try store.register(Song.self)
        try store.insert(Song(title: "first", seconds: 1))
        try store.saveChanges()
        let songFile = directory.file("Song.tch")
        let before = try inode(songFile)

        for number in 2 ... 3_000 { try store.insert(Song(title: "Song \(number)", seconds: UInt32(number))) }
        try store.saveChanges()   // 94 pages of a 0.5 MB file: copied, written, renamed
        let afterLarge = try inode(songFile)
        #expect(afterLarge != before)

        try store.object(of: Song.self, rowID: 7)?.title = "seven"
        try store.saveChanges()   // one page: in place, through the undo log
        #expect(try inode(songFile) == afterLarge)

        #expect(try store.count(of: Song.self) == 3_000)
        #expect(try store.object(of: Song.self, rowID: 2_999)?.title == "Song 2999")
        try store.close()
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(!names.contains { $0.contains(TokyoCabinetBackend.creatingMarker) }, "\(names)")

        let reopened = try directory.store()
        try reopened.register(Song.self)
        #expect(try reopened.object(of: Song.self, rowID: 7)?.title == "seven")
        #expect(try reopened.allObjects(of: Song.self).map(\.seconds) == (1 ... 3_000).map(UInt32.init))
        #expect(try reopened.verify().isHealthy)
    }

    @Test func aNoSyncStoreNeverCopies() throws {
        let directory = TemporaryDirectory("shadow")
        var configuration = Store.Configuration()
        configuration.durability = .noSync
        let store = try directory.store(configuration: configuration)
        try store.register(Song.self)
        try store.insert(Song(title: "first", seconds: 1))
        try store.saveChanges()
        let before = try inode(directory.file("Song.tch"))
        for number in 2 ... 3_000 { try store.insert(Song(title: "Song \(number)", seconds: UInt32(number))) }
        try store.saveChanges()
        #expect(try inode(directory.file("Song.tch")) == before)
    }

    /// Titles and a verify() of the store in `directory`, as a fresh reader finds them.
    private func state(of directory: TemporaryDirectory) throws -> [String] {
        let store = try Store(path: directory.path, configuration: .init(readOnly: true))
        defer { try? store.close() }
        try store.register(Song.self)
        try store.register(Playlist.self)
        let titles = try store.allObjects(of: Song.self).map { "\($0.rowID) \($0.title)" }
        let playlists = try store.allObjects(of: Playlist.self).map { "\($0.title): \($0.songs.map(\.rowID))" }
        return titles + playlists + (try store.verify().problems.map { "problem \($0)" })
    }

    @Test func aFailureAtAnyFileOperationOfACopiedSaveLeavesTheOldStateOrTheNew() throws {
        let sweep = try FaultSweep(
            prepare: {
                let directory = TemporaryDirectory("shadow")
                let store = try directory.store()
                try store.register(Song.self)
                try store.register(Playlist.self)
                try insertLibrary(into: store, songs: 40, perPlaylist: 10)
                try store.close()
                return directory
            },
            write: { directory, injector in
                let backend = try TokyoCabinetBackend(path: directory.path, configuration: BackendConfiguration())
                backend.shadowCopyPolicy = .always
                let store = try Store(backend: backend, configuration: .init())
                defer { try? store.close() }
                try store.register(Song.self)
                try store.register(Playlist.self)
                for song in try store.allObjects(of: Song.self) where song.rowID % 3 == 0 { song.title = "retitled \(song.rowID)" }
                try store.insert(Song(title: "new", seconds: 9))
                try store.delete(try #require(try store.object(of: Song.self, rowID: 40)))
                backend.faultInjector = injector
                defer { backend.faultInjector = nil }
                try store.saveChanges()
            },
            state: { try state(of: $0) }
        ).run()
        sweep.expectAllOrNothing(moreOperationsThan: 10)
    }
}
