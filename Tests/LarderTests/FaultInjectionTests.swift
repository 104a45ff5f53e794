// Fails the N-th file operation of a save, for every N the save performs, and checks that the
// save is all or nothing: either it throws and the files are as before (and the store can
// retry), or it was rolled forward and the files hold all of it.

import Foundation
import Testing
@testable import Larder

@Suite struct FaultInjectionTests {
    /// The titles of every song and playlist as stored on disk, read by a fresh store.
    private func snapshot(_ directory: TemporaryDirectory) throws -> [String] {
        let store = try directory.openStore()
        defer { try? store.close() }
        // By content, not rowID: a retried save may hand out new rowIDs to the objects it
        // inserts, since rowIDs handed out by a failed save are never reused.
        let songs = try store.allObjects(of: Song.self).map { "song \($0.title) \($0.seconds)" }.sorted()
        let playlists = try store.allObjects(of: Playlist.self).map {
            "playlist \($0.title) \($0.songs.map(\.title))"
        }.sorted()
        #expect(try store.verify().isHealthy)
        return songs + playlists
    }

    /// Makes the store's second save: updates, inserts (some reached through references) and
    /// deletes across both classes.
    private func makeChanges(in store: Store) throws {
        let playlists = try store.allObjects(of: Playlist.self)
        playlists[0].title = "Renamed"
        playlists[1].songs.append(Song(title: "Reached", seconds: 99))
        let doomed = try #require(try store.object(of: Song.self, rowID: 3))
        doomed.playlistsToLeave = [playlists[0]]
        try store.delete(doomed)
        let fresh = Playlist()
        fresh.title = "Fresh"
        fresh.songs = [Song(title: "Fresh song", seconds: 1)]
        try store.insert(fresh)
    }

    /// A store with 10 songs in 2 playlists, in `directory`.
    private func makeLibrary(in directory: TemporaryDirectory, durability: Store.Configuration.Durability) throws {
        let store = try open(directory, durability: durability)
        try insertLibrary(into: store, songs: 10, perPlaylist: 5)
        try store.close()
    }

    private func open(_ directory: TemporaryDirectory, durability: Store.Configuration.Durability) throws -> Store {
        let store = try Store(path: directory.path, configuration: .init(durability: durability))
        try store.register(Song.self)
        try store.register(Playlist.self)
        return store
    }

    @Test(arguments: [Store.Configuration.Durability.full, .noSync])
    func aFailureAtAnyFileOperationOfASaveLeavesItAllOrNothing(durability: Store.Configuration.Durability) throws {
        let clean = TemporaryDirectory("fault-clean")
        try makeLibrary(in: clean, durability: durability)
        let before = try snapshot(clean)
        do {
            let store = try open(clean, durability: durability)
            try makeChanges(in: store)
            try store.saveChanges()
            try store.close()
        }
        let expected = try snapshot(clean)
        #expect(expected != before)

        var failingOperation = 1
        var sawFailure = 0, sawRollForward = 0
        while true {
            let directory = TemporaryDirectory("fault")
            try makeLibrary(in: directory, durability: durability)
            let store = try open(directory, durability: durability)
            try makeChanges(in: store)
            let backend = try #require(store.backend as? TokyoCabinetBackend)
            let injector = FaultInjector(failingOperation: failingOperation)
            backend.faultInjector = injector
            var threw = false
            do {
                try store.saveChanges()
            } catch {
                threw = true
            }
            backend.faultInjector = nil
            guard injector.fired else {
                #expect(!threw)
                break
            }
            if threw {
                sawFailure += 1
                #expect(store.hasUnsavedChanges, "operation \(failingOperation)")
                // Nothing of the save reached the files: a fresh look at them shows the old state.
                store.discardChanges()
                try store.close()
                #expect(try snapshot(directory) == before, "operation \(failingOperation)")
                // The same save, retried, lands whole.
                let retry = try open(directory, durability: durability)
                try makeChanges(in: retry)
                try retry.saveChanges()
                try retry.close()
            } else {
                sawRollForward += 1
                try store.close()
            }
            #expect(try snapshot(directory) == expected, "operation \(failingOperation)")
            failingOperation += 1
        }
        #expect(failingOperation > 12, "the save performed too few operations to test")
        #expect(sawFailure > 0)
        print("fault injection (\(durability)): \(failingOperation - 1) operations, \(sawFailure) failed cleanly, \(sawRollForward) rolled forward")
    }

    @Test func aFailureBeforeTheCommitPointLeavesFilesUntouchedWithoutRetry() throws {
        let directory = TemporaryDirectory("fault")
        let store = try directory.openStore()
        try insertLibrary(into: store, songs: 10, perPlaylist: 5)
        let songs = try store.allObjects(of: Song.self)
        songs[0].title = "changed"
        let backend = try #require(store.backend as? TokyoCabinetBackend)
        backend.faultInjector = FaultInjector(failingOperation: 1)   // the journal write
        #expect(throws: BackendError.self) { try store.saveChanges() }
        backend.faultInjector = nil
        #expect(!FileManager.default.fileExists(atPath: backend.journalPath))
        store.discardChanges()
        try store.close()
        let reopened = try directory.openStore()
        #expect(try reopened.object(of: Song.self, rowID: 1)?.title == "Song 1")
    }
}
