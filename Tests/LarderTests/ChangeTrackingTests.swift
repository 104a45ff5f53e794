// Updates through @Stored and through explicit willUpdate, discarding, and failed saves.

import Foundation
import LarderTestSupport
import Testing
@testable import Larder

@Suite struct ChangeTrackingTests {
    @Test(arguments: BackendKind.withEtcd) func writingAStoredPropertyMarksTheObjectUpdated(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory(backend: backend)
        do {
            let store = try directory.openStore()
            try insertLibrary(into: store, songs: 30, perPlaylist: 10)
            try store.close()
        }
        do {
            let store = try directory.openStore()
            let song = try #require(try store.object(of: Song.self, rowID: 12))
            #expect(!store.hasUnsavedChanges)
            song.title = "Retitled"
            #expect(store.hasUnsavedChanges)
            try store.saveChanges()
            #expect(!store.hasUnsavedChanges)
            try store.close()
        }
        let store = try directory.openStore()
        #expect(try store.object(of: Song.self, rowID: 12)?.title == "Retitled")
        #expect(try store.object(of: Song.self, rowID: 12)?.seconds == 12)
        #expect(try store.object(of: Song.self, rowID: 13)?.title == "Song 13")
    }

    @Test(arguments: BackendKind.withEtcd) func writingToAFaultLoadsItFirstSoOtherFieldsAreKept(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory(backend: backend)
        do {
            let store = try directory.openStore()
            try insertLibrary(into: store, songs: 10, perPlaylist: 10)
            try store.close()
        }
        do {
            let store = try directory.openStore()
            let playlist = try #require(try store.object(of: Playlist.self, rowID: 1))
            let fault = playlist.songs[5]
            #expect(!fault.hasContent)
            fault.title = "Only the title changes"
            #expect(fault.hasContent)
            try store.saveChanges()
            try store.close()
        }
        let store = try directory.openStore()
        let song = try #require(try store.object(of: Song.self, rowID: 6))
        #expect(song.title == "Only the title changes")
        #expect(song.seconds == 6)
    }

    @Test(arguments: BackendKind.withEtcd) func readingContentDoesNotMarkObjectsUpdated(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory(backend: backend)
        let store = try directory.openStore()
        try insertLibrary(into: store, songs: 100, perPlaylist: 10)
        try store.close()
        let reopened = try directory.openStore()
        let playlists = try reopened.allObjects(of: Playlist.self)
        _ = playlists.flatMap(\.songs).map(\.title)
        #expect(!reopened.hasUnsavedChanges)
    }

    @Test(arguments: BackendKind.withEtcd) func explicitWillUpdateWorksForPlainProperties(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory(backend: backend)
        let types: [StoredObject.Type] = [Song.self, Artist.self]
        do {
            let store = try directory.openStore(types)
            let artist = Artist()
            artist.name = "Miles"
            try store.insert(artist)
            try store.saveChanges()
            try store.close()
        }
        do {
            let store = try directory.openStore(types)
            let artist = try #require(try store.object(of: Artist.self, rowID: 1))
            artist.name = "not tracked"
            #expect(!store.hasUnsavedChanges)
            try store.willUpdate(artist)
            artist.name = "Miles Davis"
            artist.favorite = Song(title: "So What", seconds: 545)
            try store.saveChanges()
            try store.close()
        }
        let store = try directory.openStore(types)
        let artist = try #require(try store.object(of: Artist.self, rowID: 1))
        #expect(artist.name == "Miles Davis")
        let favorite = try #require(artist.favorite)
        #expect(!favorite.hasContent)
        try favorite.fetchContent()
        #expect(favorite.hasContent)
        #expect(favorite.title == "So What")
    }

    @Test(arguments: BackendKind.withEtcd) func discardChangesForgetsInsertsAndRefaultsUpdatesAndDeletes(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory(backend: backend)
        let store = try directory.openStore()
        try insertLibrary(into: store, songs: 20, perPlaylist: 10)
        let song = try #require(try store.object(of: Song.self, rowID: 3))
        let doomed = try #require(try store.object(of: Song.self, rowID: 4))
        song.title = "changed"
        try store.delete(doomed)
        let newcomer = Song(title: "new", seconds: 0)
        try store.insert(newcomer)
        #expect(newcomer.rowID == 21)
        store.discardChanges()
        #expect(!store.hasUnsavedChanges)
        #expect(song.title == "Song 3")
        #expect(try store.object(of: Song.self, rowID: 4)?.title == "Song 4")
        #expect(newcomer.store == nil)
        #expect(newcomer.rowID == 0)
        #expect(try store.count(of: Song.self) == 20)
        // The discarded rowID is not handed out again.
        let next = Song(title: "next", seconds: 0)
        try store.insert(next)
        #expect(next.rowID == 22)
        try store.saveChanges()
        #expect(try store.object(of: Song.self, rowID: 21) == nil)
    }

    @Test(arguments: BackendKind.withEtcd) func aFailedSaveLeavesTheStoreDirtyAndRetryable(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory(backend: backend)
        let store = try directory.openStore([Song.self, Playlist.self, Bookmark.self])
        let playlist = Playlist()
        playlist.title = "P"
        playlist.songs = [Song(title: "new", seconds: 1)]
        try store.insert(playlist)
        let bookmark = Bookmark()
        bookmark.target = Artist()   // Artist is not registered: the save must fail
        try store.insert(bookmark)
        #expect(throws: StoreError.classNotRegistered("Artist")) { try store.saveChanges() }
        #expect(store.hasUnsavedChanges)
        #expect(playlist.songs[0].rowID == 0)
        #expect(try store.count(of: Song.self) == 0)
        #expect(try store.count(of: Playlist.self) == 1)
        bookmark.target = nil
        try store.saveChanges()
        #expect(!store.hasUnsavedChanges)
        #expect(playlist.songs[0].store === store)
        #expect(try store.count(of: Song.self) == 1)
    }

    @Test func insertingTwiceOrIntoAnotherStoreIsHandled() throws {
        let one = TemporaryDirectory("one"), two = TemporaryDirectory("two")
        let first = try one.openStore()
        let second = try two.openStore()
        let song = Song(title: "s", seconds: 1)
        try first.insert(song)
        try first.insert(song)
        #expect(song.rowID == 1)
        #expect(throws: StoreError.objectInAnotherStore(class: "Song", rowID: 1)) { try second.insert(song) }
        #expect(throws: StoreError.objectNotInStore(class: "Song")) { try second.willUpdate(Song()) }
        #expect(throws: StoreError.classNotRegistered("Artist")) { try first.insert(Artist()) }
    }
}
