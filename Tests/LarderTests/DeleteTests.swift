// Deletes: delete rules, rowIDs never reused, references to deleted rows reading as nil.

import Foundation
import LarderTestSupport
import Testing
@testable import Larder

@Suite struct DeleteTests {
    @Test(arguments: BackendKind.withEtcd) func deletedObjectsDisappearFromLookupsAndCounts(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory(backend: backend)
        do {
            let store = try directory.openStore()
            try insertLibrary(into: store, songs: 1_000, perPlaylist: 100)
            for rowID in stride(from: 2 as UInt64, through: 1_000, by: 2) {
                try store.delete(try #require(try store.object(of: Song.self, rowID: rowID)))
            }
            #expect(try store.count(of: Song.self) == 500)
            try store.saveChanges()
            #expect(try store.count(of: Song.self) == 500)
            try store.close()
        }
        let store = try directory.openStore()
        #expect(try store.count(of: Song.self) == 500)
        #expect(try store.object(of: Song.self, rowID: 2) == nil)
        #expect(try store.object(of: Song.self, rowID: 3)?.title == "Song 3")
        #expect(try store.allObjects(of: Song.self).map(\.rowID) == Array(stride(from: 1, through: 999, by: 2)))
        // References to deleted rows read as nil and are left out of ordered lists.
        let playlist = try #require(try store.object(of: Playlist.self, rowID: 1))
        #expect(playlist.songs.map(\.rowID) == Array(stride(from: 1, through: 99, by: 2)))
    }

    @Test(arguments: BackendKind.withEtcd) func aDeletedRowIDIsNeverHandedOutAgain(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory(backend: backend)
        do {
            let store = try directory.openStore()
            for i in 1 ... 5 { try store.insert(Song(title: "\(i)", seconds: 0)) }
            try store.saveChanges()
            try store.delete(try #require(try store.object(of: Song.self, rowID: 5)))
            try store.saveChanges()
            try store.close()
        }
        let store = try directory.openStore()
        let song = Song(title: "six", seconds: 0)
        try store.insert(song)
        #expect(song.rowID == 6)
    }

    @Test(arguments: BackendKind.withEtcd) func prepareForDeleteRunsTheDeleteRules(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory(backend: backend)
        do {
            let store = try directory.openStore()
            let (songs, playlists) = try insertLibrary(into: store, songs: 10, perPlaylist: 5)
            songs[2].playlistsToLeave = [playlists[0]]
            try store.delete(songs[2])
            #expect(playlists[0].songs.count == 4)
            try store.saveChanges()
            try store.close()
        }
        let store = try directory.openStore()
        let playlist = try #require(try store.object(of: Playlist.self, rowID: 1))
        #expect(playlist.songs.map(\.title) == ["Song 1", "Song 2", "Song 4", "Song 5"])
    }

    @Test(arguments: BackendKind.withEtcd) func deletingAnUnsavedInsertForgetsIt(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory(backend: backend)
        let store = try directory.openStore()
        let song = Song(title: "brief", seconds: 0)
        try store.insert(song)
        try store.delete(song)
        #expect(!store.hasUnsavedChanges)
        #expect(song.isDeleted)
        #expect(song.store == nil)
        #expect(try store.count(of: Song.self) == 0)
        #expect(throws: StoreError.objectDeleted(class: "Song", rowID: 1)) { try store.insert(song) }
        let next = Song(title: "next", seconds: 0)
        try store.insert(next)
        #expect(next.rowID == 2)
    }

    @Test(arguments: BackendKind.withEtcd) func aSavedDeleteDetachesTheObject(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory(backend: backend)
        let store = try directory.openStore()
        let song = Song(title: "gone", seconds: 0)
        try store.insert(song)
        try store.saveChanges()
        try store.delete(song)
        #expect(throws: StoreError.objectDeleted(class: "Song", rowID: 1)) { try store.willUpdate(song) }
        try store.saveChanges()
        #expect(song.isDeleted)
        #expect(song.store == nil)
        #expect(throws: StoreError.objectDeleted(class: "Song", rowID: 1)) { try store.delete(song) }
    }

    @Test(arguments: BackendKind.withEtcd) func aDanglingSingleReferenceReadsAsNil(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory(backend: backend)
        let types: [StoredObject.Type] = [Song.self, Artist.self]
        do {
            let store = try directory.openStore(types)
            let artist = Artist()
            artist.favorite = Song(title: "fav", seconds: 1)
            try store.insert(artist)
            try store.saveChanges()
            try store.delete(try #require(artist.favorite))   // no delete rule clears artist.favorite
            try store.saveChanges()
            try store.close()
        }
        let store = try directory.openStore(types)
        let artist = try #require(try store.object(of: Artist.self, rowID: 1))
        #expect(artist.favorite == nil)
    }
}

@Suite struct RowIDReuseTests {
    @Test(arguments: BackendKind.withEtcd) func rowIDsDroppedBeforeCloseAreNotReusedByTheNextSession(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory(backend: backend)
        do {
            let store = try directory.openStore()
            try store.insert(Song(title: "kept", seconds: 1))
            try store.saveChanges()
            let dropped = Song(title: "dropped", seconds: 2)
            try store.insert(dropped)
            var bookmark = DataBuffer()
            bookmark.writeReference(dropped)
            try store.setDataBuffer(bookmark, forName: "bookmark")
            store.discardChanges()
            try store.close()
        }
        let store = try directory.openStore()
        let newcomer = Song(title: "new", seconds: 3)
        try store.insert(newcomer)
        #expect(newcomer.rowID == 3)
        try store.saveChanges()
        var bookmark = try #require(try store.dataBuffer(forName: "bookmark"))
        #expect(try bookmark.readReference(to: Song.self, in: store) == nil)
    }

    @Test(arguments: BackendKind.withEtcd) func aDeleteRuleThatDeletesTheObjectAgainDoesNothingMore(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory(backend: backend)
        do {
            let store = try directory.openStore([Partner.self])
            let saved = Partner(name: "saved")
            try store.insert(saved)
            try store.saveChanges()
            saved.deletesItselfAgain = true
            try store.delete(saved)
            #expect(saved.deleteRuleRuns == 1)
            let unsaved = Partner(name: "unsaved")
            unsaved.deletesItselfAgain = true
            try store.insert(unsaved)
            try store.delete(unsaved)
            #expect(unsaved.deleteRuleRuns == 1)
            #expect(unsaved.isDeleted)
            try store.saveChanges()
            #expect(saved.isDeleted)
            try store.close()
        }
        let store = try directory.openStore([Partner.self])
        #expect(try store.count(of: Partner.self) == 0)
    }

    @Test(arguments: BackendKind.withEtcd) func deleteRulesThatDeleteEachOtherRunOnceEach(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory(backend: backend)
        do {
            let store = try directory.openStore([Partner.self])
            let (left, right) = (Partner(name: "left"), Partner(name: "right"))
            left.partner = right
            right.partner = left
            try store.insert(left)
            try store.insert(right)
            let kept = Partner(name: "kept")
            try store.insert(kept)
            try store.saveChanges()
            try store.delete(left)
            #expect(left.deleteRuleRuns == 1)
            #expect(right.deleteRuleRuns == 1)
            // The same cascade between objects never saved.
            let (first, second) = (Partner(name: "first"), Partner(name: "second"))
            first.partner = second
            second.partner = first
            try store.insert(first)
            try store.insert(second)
            try store.delete(second)
            #expect(first.isDeleted && second.isDeleted)
            #expect(first.deleteRuleRuns == 1 && second.deleteRuleRuns == 1)
            try store.saveChanges()
            try store.close()
        }
        let store = try directory.openStore([Partner.self])
        #expect(try store.allObjects(of: Partner.self).map(\.name) == ["kept"])
    }
}
