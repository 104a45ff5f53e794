// Ordered relationships, uniquing, faults and references of any class.

import Foundation
import LarderTestSupport
import Testing
@testable import Larder

@Suite struct RelationshipTests {
    @Test(arguments: BackendKind.withEtcd) func orderedRelationshipsSurviveReopeningInOrder(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory(backend: backend)
        do {
            let store = try directory.openStore()
            try insertLibrary(into: store, songs: 3_000, perPlaylist: 100)
            try store.close()
        }
        let store = try directory.openStore()
        let playlists = try store.allObjects(of: Playlist.self)
        #expect(playlists.count == 30)
        for (index, playlist) in playlists.enumerated() {
            #expect(playlist.title == "Playlist \(index + 1)")
            #expect(playlist.songs.count == 100)
            #expect(playlist.songs.map(\.rowID) == Array(UInt64(index * 100 + 1) ... UInt64(index * 100 + 100)))
        }
        let first = playlists[7].songs[0]
        #expect(!first.hasContent)
        #expect(first.title == "Song 701")
        #expect(first.hasContent)
    }

    @Test(arguments: BackendKind.withEtcd) func referencesAreFaultsUntilTouched(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory(backend: backend)
        do {
            let store = try directory.openStore()
            try insertLibrary(into: store, songs: 500, perPlaylist: 50)
            try store.close()
        }
        let store = try directory.openStore()
        let playlist = try #require(try store.object(of: Playlist.self, rowID: 2))
        #expect(playlist.songs.count == 50)
        #expect(playlist.songs.allSatisfy { !$0.hasContent })
        #expect(playlist.songs[3].seconds == 54)
        #expect(playlist.songs.filter(\.hasContent).count == 1)
        try playlist.songs[4].fetchContent()
        #expect(playlist.songs[4].hasContent)
    }

    @Test(arguments: BackendKind.withEtcd) func aSongInTwoPlaylistsIsOneObject(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory(backend: backend)
        do {
            let store = try directory.openStore()
            let shared = Song(title: "Shared", seconds: 10)
            let a = Playlist(), b = Playlist()
            a.title = "A"
            b.title = "B"
            a.songs = [shared, Song(title: "Only A", seconds: 1)]
            b.songs = [Song(title: "Only B", seconds: 2), shared]
            try store.insert(a)
            try store.insert(b)
            try store.saveChanges()
            #expect(try store.count(of: Song.self) == 3)
            try store.close()
        }
        let store = try directory.openStore()
        let a = try #require(try store.object(of: Playlist.self, rowID: 1))
        let b = try #require(try store.object(of: Playlist.self, rowID: 2))
        #expect(a.songs[0] === b.songs[1])
        #expect(a.songs[0].title == "Shared")
        let fetched = try #require(try store.object(of: Song.self, rowID: a.songs[0].rowID))
        #expect(fetched === a.songs[0])
        #expect(try store.allObjects(of: Song.self).contains { $0 === b.songs[1] })
    }

    @Test(arguments: BackendKind.withEtcd) func newObjectsReachableFromASavedObjectAreInsertedByTheSave(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory(backend: backend)
        let store = try directory.openStore()
        let playlist = Playlist()
        try store.insert(playlist)
        try store.saveChanges()
        let newSong = Song(title: "Reached", seconds: 5)
        playlist.songs.append(newSong)
        #expect(newSong.rowID == 0)
        try store.saveChanges()
        #expect(newSong.rowID == 1)
        #expect(newSong.store === store)
        try store.close()
        let reopened = try directory.openStore()
        #expect(try reopened.object(of: Playlist.self, rowID: 1)?.songs.map(\.title) == ["Reached"])
    }

    @Test(arguments: BackendKind.withEtcd) func referencesOfAnyClassResolveToTheRightClass(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory(backend: backend)
        let types: [StoredObject.Type] = [Song.self, Playlist.self, Bookmark.self]
        do {
            let store = try directory.openStore(types)
            let song = Song(title: "Target", seconds: 7)
            let playlist = Playlist()
            playlist.title = "Extra"
            let bookmark = Bookmark()
            bookmark.label = "here"
            bookmark.target = song
            bookmark.extras = [playlist, song]
            try store.insert(bookmark)
            let empty = Bookmark()
            try store.insert(empty)
            try store.saveChanges()
            try store.close()
        }
        let store = try directory.openStore(types.reversed())
        let bookmark = try #require(try store.object(of: Bookmark.self, rowID: 1))
        let target = try #require(bookmark.target as? Song)
        #expect(target.title == "Target")
        #expect(bookmark.extras.count == 2)
        #expect((bookmark.extras[0] as? Playlist)?.title == "Extra")
        #expect(bookmark.extras[1] === target)
        let empty = try #require(try store.object(of: Bookmark.self, rowID: 2))
        #expect(empty.target == nil)
        #expect(empty.extras.isEmpty)
    }

    @Test(arguments: BackendKind.withEtcd) func readingAReferenceToAnUnregisteredClassIsAClearError(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory(backend: backend)
        do {
            let store = try directory.openStore([Song.self, Bookmark.self])
            let bookmark = Bookmark()
            bookmark.target = Song(title: "t", seconds: 1)
            try store.insert(bookmark)
            try store.saveChanges()
            try store.close()
        }
        let store = try directory.openStore([Bookmark.self])
        #expect(throws: StoreError.classNotRegistered("Song")) {
            _ = try store.object(of: Bookmark.self, rowID: 1)
        }
    }

    @Test func referencingAnObjectOfAnotherStoreFailsTheSave() throws {
        let one = TemporaryDirectory("one"), two = TemporaryDirectory("two")
        let first = try one.openStore()
        let second = try two.openStore()
        let foreign = Song(title: "foreign", seconds: 1)
        try second.insert(foreign)
        try second.saveChanges()
        let playlist = Playlist()
        playlist.songs = [foreign]
        try first.insert(playlist)
        #expect(throws: StoreError.objectInAnotherStore(class: "Song", rowID: 1)) { try first.saveChanges() }
        #expect(first.hasUnsavedChanges)
    }

    @Test(arguments: BackendKind.withEtcd) func dissolvingRelationshipsEmptiesThemWithoutMarkingChanges(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory(backend: backend)
        let store = try directory.openStore()
        let (_, playlists) = try insertLibrary(into: store, songs: 20, perPlaylist: 10)
        store.dissolveAllRelationships()
        #expect(playlists.allSatisfy { $0.songs.isEmpty })
        #expect(!store.hasUnsavedChanges)
    }
}
