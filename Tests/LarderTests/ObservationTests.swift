// Observation (Store.observe) and refresh(_:): a fetch's value is sent at once, then after each
// committed save that touched a class or named buffer the fetch read (through the store, or
// from objects already in memory), never after a save of something else, a save that threw, or
// a save that left an Equatable value as it was; a throwing fetch ends its stream with the
// error, a fetch cannot save, a reader that goes away stops the fetch, closing ends the streams.
// refresh(_:) turns an object back into a fault that reads its saved state.

import Foundation
import LarderTestSupport
import Testing
@testable import Larder

/// How many times a fetch ran (the fetch runs on the test's thread, inside saveChanges).
private final class Runs {
    var count = 0
}

/// A value that is not Equatable: every run that the store makes is sent.
private struct Titles: Sendable {
    var titles: [String]
}

@Suite struct ObservationTests {
    private let model: [StoredObject.Type] = [Song.self, Playlist.self, FeedItem.self, IndexedSong.self]

    @Test(arguments: BackendKind.allCases) func aValueIsSentAtOnceThenAfterEachSaveOfWhatItRead(_ backend: BackendKind) async throws {
        let directory = TemporaryDirectory("observe", backend: backend)
        let store = try directory.openStore(model)
        let runs = Runs()
        let titles = ObservedValues(store.observe { store -> [String] in
            runs.count += 1
            return try store.allObjects(of: Song.self).map(\.title).sorted()
        })
        #expect(runs.count == 1)
        #expect(await titles.waitFor(count: 1))

        let song = Song(title: "So What", seconds: 545)
        try store.insert(song)
        try store.saveChanges()
        #expect(runs.count == 2)
        #expect(await titles.waitFor(count: 2))

        // Another class, a named buffer, an empty save: the fetch does not run.
        try store.insert(FeedItem(code: 1))
        try store.saveChanges()
        try store.setDataBuffer(DataBuffer(), forName: "note")
        try store.saveChanges()
        #expect(runs.count == 2)

        // The class, with the value unchanged: the fetch runs and sends nothing (Equatable).
        song.seconds = 546
        try store.saveChanges()
        #expect(runs.count == 3)

        // A save that throws (a unique index violation) runs nothing.
        try store.insert(FeedItem(code: 7))
        try store.saveChanges()
        try store.insert(Song(title: "Blue in Green", seconds: 337))
        try store.insert(FeedItem(code: 7))
        #expect(throws: StoreError.uniqueIndexViolation(class: "FeedItem", index: "code")) { try store.saveChanges() }
        #expect(runs.count == 3)
        store.discardChanges()

        try store.delete(song)
        try store.saveChanges()
        #expect(runs.count == 4)
        #expect(await titles.waitFor(count: 3))

        // Closing ends the stream; the run that found the same value sent nothing.
        try store.close()
        #expect(await titles.waitForEnd())
        #expect(titles.values == [[], ["So What"], []])
        #expect(titles.error == nil)
    }

    @Test func everyRunIsSentWhenTheValueIsNotEquatable() async throws {
        let directory = TemporaryDirectory("observe-all", backend: .memory)
        let store = try directory.openStore(model)
        let song = Song(title: "Freddie Freeloader", seconds: 589)
        try store.insert(song)
        try store.saveChanges()
        let titles = ObservedValues(store.observe { store in Titles(titles: try store.allObjects(of: Song.self).map(\.title)) })
        #expect(await titles.waitFor(count: 1))
        song.seconds = 590
        try store.saveChanges()
        #expect(await titles.waitFor(count: 2))
        try store.close()
        #expect(await titles.waitForEnd())
        #expect(titles.values.map(\.titles) == [["Freddie Freeloader"], ["Freddie Freeloader"]])
    }

    @Test(arguments: BackendKind.allCases) func queriesTextSearchNamedBuffersAndObjectsInMemoryAreDependencies(_ backend: BackendKind) async throws {
        let directory = TemporaryDirectory("observe-reads", backend: backend)
        let store = try directory.openStore(model)
        let (songs, playlists) = try insertLibrary(into: store, songs: 6, perPlaylist: 3)
        try store.insert(IndexedSong("Kind of Blue"))
        try store.saveChanges()

        let long = ObservedValues(store.observe { try $0.count(of: FeedItem.self, where: \.code > 10) })
        let found = ObservedValues(store.observe { try $0.countOfObjects(of: IndexedSong.self, matchingText: "blue", forAttribute: "title") })
        let note = ObservedValues(store.observe { try $0.dataBuffer(forName: "note").map { var buffer = $0; return try buffer.readString() } })
        let names = ObservedValues(store.observe { try $0.dataBufferNames() })
        // The playlist is in memory, its songs too: no store call reaches Song, yet the fetch
        // reads songs' titles.
        let playlist = playlists[0]
        let runs = Runs()
        let inPlaylist = ObservedValues(store.observe { _ -> [String] in
            runs.count += 1
            return playlist.songs.map(\.title)
        })
        // A reader behind gets the newest value only: each first value is read before saving.
        #expect(await long.waitFor(count: 1))
        #expect(await found.waitFor(count: 1))
        #expect(await note.waitFor(count: 1))
        #expect(await names.waitFor(count: 1))
        #expect(await inPlaylist.waitFor(count: 1))

        try store.insert(FeedItem(code: 11))
        try store.insert(IndexedSong("Blue in Green"))
        try store.saveChanges()
        var buffer = DataBuffer()
        buffer.write("hello")
        try store.setDataBuffer(buffer, forName: "note")
        #expect(await names.waitFor(count: 2))
        try store.setDataBuffer(buffer, forName: "other")
        #expect(runs.count == 1)
        songs[1].title = "Changed"
        try store.saveChanges()
        #expect(runs.count == 2)
        #expect(await long.waitFor(count: 2))
        #expect(await found.waitFor(count: 2))
        #expect(await note.waitFor(count: 2))
        #expect(await names.waitFor(count: 3))
        #expect(await inPlaylist.waitFor(count: 2))

        try store.close()
        #expect(await long.waitForEnd())
        #expect(await found.waitForEnd())
        #expect(await note.waitForEnd())
        #expect(await names.waitForEnd())
        #expect(await inPlaylist.waitForEnd())
        #expect(long.values == [0, 1])
        #expect(found.values == [1, 2])
        #expect(note.values == [nil, "hello"])
        #expect(names.values == [[], ["note"], ["note", "other"]])
        #expect(inPlaylist.values == [["Song 1", "Song 2", "Song 3"], ["Song 1", "Changed", "Song 3"]])
    }

    @Test func aFetchThatThrowsEndsItsStreamAndAFetchCannotSave() async throws {
        let directory = TemporaryDirectory("observe-errors", backend: .memory)
        let store = try directory.openStore(model)
        struct Refused: Error {}
        var shouldThrow = false
        let failing = ObservedValues(store.observe { store -> Int in
            if shouldThrow { throw Refused() }
            return try store.count(of: Song.self)
        })
        #expect(await failing.waitFor(count: 1))
        shouldThrow = true
        try store.insert(Song(title: "All Blues", seconds: 693))
        try store.saveChanges()
        #expect(await failing.waitForEnd())
        #expect(failing.values == [0])
        #expect(failing.error is Refused)

        let saving = ObservedValues(store.observe { store -> Int in
            try store.saveChanges()
            return 0
        })
        let writing = ObservedValues(store.observe { store -> Int in
            try store.setDataBuffer(DataBuffer(), forName: "x")
            return 0
        })
        #expect(await saving.waitForEnd())
        #expect(await writing.waitForEnd())
        #expect(saving.error as? StoreError == .saveDuringObservation)
        #expect(writing.error as? StoreError == .saveDuringObservation)
        // Saving outside a fetch still works, and the ended observations are gone.
        try store.insert(Song(title: "Flamenco Sketches", seconds: 566))
        try store.saveChanges()
        #expect(store.observations.isEmpty)

        try store.close()
        let closed = ObservedValues(store.observe { try $0.count(of: Song.self) })
        #expect(await closed.waitForEnd())
        #expect(closed.error as? StoreError == .closed)
    }

    @Test func aReaderThatGoesAwayStopsTheFetch() async throws {
        let directory = TemporaryDirectory("observe-cancel", backend: .memory)
        let store = try directory.openStore(model)
        let runs = Runs()
        let stream = store.observe { store -> Int in
            runs.count += 1
            return try store.count(of: Song.self)
        }
        let reader = Task {
            var seen = 0
            for try await _ in stream { seen += 1 }
            return seen
        }
        reader.cancel()
        _ = try? await reader.value
        try store.insert(Song(title: "Milestones", seconds: 340))
        try store.saveChanges()
        #expect(runs.count == 1)
        #expect(store.observations.isEmpty)
    }

    @Test func refreshReadsTheSavedStateAgain() throws {
        let directory = TemporaryDirectory("refresh", backend: .memory)
        let store = try directory.openStore(model)
        let song = Song(title: "Round Midnight", seconds: 356)
        try store.insert(song)
        try store.saveChanges()
        // A second store on the same data changes the record.
        let other = try directory.openStore(model)
        let copy = try #require(try other.object(of: Song.self, rowID: song.rowID))
        copy.title = "'Round Midnight"
        try other.saveChanges()

        #expect(song.title == "Round Midnight")
        try store.refresh(song)
        #expect(!song.hasContent)
        #expect(song.title == "'Round Midnight")

        song.seconds = 357
        #expect(throws: StoreError.objectHasUnsavedChanges(class: "Song", rowID: song.rowID)) { try store.refresh(song) }
        #expect(throws: StoreError.objectNotInStore(class: "Song")) { try store.refresh(Song(title: "New", seconds: 1)) }
        #expect(throws: StoreError.objectNotInStore(class: "Song")) { try other.refresh(song) }
    }
}
