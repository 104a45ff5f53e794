// Per-instance versions and the class registry.

import Foundation
import LarderTestSupport
import Testing
@testable import Larder

@Suite struct VersionAndRegistrationTests {
    @Test(arguments: BackendKind.withEtcd) func oldRecordsKeepTheirVersionUntilSavedAgain(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory(backend: backend)
        do {
            let store = try directory.openStore([TrackV1.self])
            for title in ["one", "two", "three"] {
                let track = TrackV1()
                track.title = title
                try store.insert(track)
            }
            try store.saveChanges()
            try store.close()
        }
        do {
            let store = try directory.openStore([TrackV2.self])
            let tracks = try store.allObjects(of: TrackV2.self)
            #expect(tracks.map(\.title) == ["one", "two", "three"])
            #expect(tracks.map(\.readVersion) == [1, 1, 1])
            #expect(tracks.map(\.rating) == [3, 3, 3])
            tracks[1].rating = 5
            let added = TrackV2()
            added.title = "four"
            added.rating = 4
            try store.insert(added)
            try store.saveChanges()
            try store.close()
        }
        let store = try directory.openStore([TrackV2.self])
        let tracks = try store.allObjects(of: TrackV2.self)
        #expect(tracks.map(\.readVersion) == [1, 2, 1, 2])
        #expect(tracks.map(\.rating) == [3, 5, 3, 4])
        #expect(tracks.map(\.title) == ["one", "two", "three", "four"])
    }

    @Test(arguments: BackendKind.withEtcd) func registrationOrderDoesNotMatterAcrossSessions(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory(backend: backend)
        do {
            let store = try directory.openStore([Song.self, Playlist.self, Bookmark.self])
            let bookmark = Bookmark()
            bookmark.target = Song(title: "target song", seconds: 1)
            let playlist = Playlist()
            playlist.title = "target playlist"
            bookmark.extras = [playlist]
            try store.insert(bookmark)
            try store.saveChanges()
            try store.close()
        }
        let store = try directory.openStore([Bookmark.self, Playlist.self, Song.self])
        let bookmark = try #require(try store.object(of: Bookmark.self, rowID: 1))
        #expect((bookmark.target as? Song)?.title == "target song")
        #expect((bookmark.extras.first as? Playlist)?.title == "target playlist")
        let song = Song(title: "later", seconds: 2)
        try store.insert(song)
        #expect(song.rowID == 2)
    }

    @Test(arguments: BackendKind.withEtcd) func registeringTwiceIsHarmlessAndNamesMustBeUnique(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory(backend: backend)
        let store = try directory.openStore([TrackV1.self])
        try store.register(TrackV1.self)
        #expect(throws: StoreError.storageNameTaken(name: "Track", byType: String(reflecting: TrackV1.self))) {
            try store.register(TrackV2.self)
        }
    }

    @Test(arguments: BackendKind.withEtcd) func invalidStorageNamesAreRefused(_ backend: BackendKind) throws {
        final class Slashed: StoredObject { override class var storageName: String { "a/b" } }
        final class Reserved: StoredObject { override class var storageName: String { "_store" } }
        final class Empty: StoredObject { override class var storageName: String { "" } }
        let directory = TemporaryDirectory(backend: backend)
        let store = try directory.openStore([])
        #expect(throws: StoreError.invalidStorageName("a/b")) { try store.register(Slashed.self) }
        #expect(throws: StoreError.invalidStorageName("_store")) { try store.register(Reserved.self) }
        #expect(throws: StoreError.invalidStorageName("")) { try store.register(Empty.self) }
    }

    @Test func eachRegisteredClassHasItsOwnFile() throws {
        let directory = TemporaryDirectory()
        let store = try directory.openStore()
        try insertLibrary(into: store, songs: 10, perPlaylist: 5)
        try store.close()
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(files.contains("Song.tch"))
        #expect(files.contains("Playlist.tch"))
        #expect(files.contains("_store.tch"))
    }

    @Test(arguments: BackendKind.withEtcd) func fetchingAnUnregisteredClassIsAClearError(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory(backend: backend)
        let store = try directory.openStore([Song.self])
        #expect(throws: StoreError.classNotRegistered("Playlist")) { try store.allObjects(of: Playlist.self) }
        #expect(throws: StoreError.classNotRegistered("Playlist")) { try store.count(of: Playlist.self) }
    }
}
