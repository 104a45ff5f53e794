// The change feed (Store.changes): each committed save reaches every subscriber once, in commit
// order, with the rowIDs it inserted, updated and deleted and the named buffers it wrote; a save
// that throws or changes nothing sends nothing and takes no number; a subscriber that stalls gets
// a gap marker, never slows a save, and is removed when its reader goes; closing finishes the
// streams. The large randomized run is ChangeFeedRandomTests.

import Foundation
import LarderTestSupport
import Testing
@testable import Larder

@Suite struct ChangeFeedTests {
    private let model: [StoredObject.Type] = [Song.self, Playlist.self, FeedItem.self]

    @Test(arguments: BackendKind.withEtcd) func everySubscriberGetsEachCommitOnceInOrder(_ backend: BackendKind) async throws {
        let directory = TemporaryDirectory("feed", backend: backend)
        let store = try directory.openStore(model)
        let first = store.changes
        let second = store.changes(bufferSize: 3)
        let (songs, _) = try insertLibrary(into: store, songs: 5, perPlaylist: 5)   // 1: 5 songs, playlist 1
        songs[1].title = "Changed"
        songs[3].title = "Changed too"
        try store.delete(songs[4])
        try store.saveChanges()                                                      // 2
        try store.saveChanges()                                                      // nothing to save
        var bookmark = DataBuffer()
        bookmark.write("a note")
        try store.setDataBuffer(bookmark, forName: "note")                           // 3
        try store.deleteDataBuffer(forName: "absent")                                // nothing removed
        try store.deleteDataBuffer(forName: "note")                                  // 4
        // Inserted and deleted before a save, or inserted then changed: one change each at most.
        let gone = Song(title: "gone", seconds: 1)
        try store.insert(gone)
        try store.delete(gone)
        let kept = Song(title: "kept", seconds: 1)
        try store.insert(kept)
        kept.title = "kept, changed"
        try store.delete(songs[0])                                                   // in the playlist: updated too
        try #require(try store.object(of: Playlist.self, rowID: 1)).songs.removeFirst()
        try store.saveChanges()                                                      // 5
        #expect(store.changeSequence == 5)
        try store.close()

        let expected: [StoreChange] = [
            .expected(1, ["Song": ([1, 2, 3, 4, 5], [], []), "Playlist": ([1], [], [])]),
            .expected(2, ["Song": ([], [2, 4], [5])]),
            .expected(3, buffers: ["note"]),
            .expected(4, buffers: ["note"]),
            .expected(5, ["Song": ([7], [], [1]), "Playlist": ([], [1], [])]),
        ]
        #expect(await collect(first) == expected)
        #expect(await collect(second).prefix(3) == expected.prefix(3))
        #expect(expected[4].classNames == ["Song", "Playlist"])
        #expect(expected[4].inserted(of: Song.self) == [7] && expected[4].deleted(ofClassNamed: "Song") == [1])
        #expect(expected[4].updated(of: Playlist.self) == [1] && expected[4].inserted(of: FeedItem.self) == [])
    }

    @Test(arguments: BackendKind.withEtcd) func aSaveThatThrowsSendsNothingAndTakesNoNumber(_ backend: BackendKind) async throws {
        let directory = TemporaryDirectory("feed-failure", backend: backend)
        let store = try directory.openStore(model)
        let feed = store.changes
        try store.insert(FeedItem(code: 1))
        try store.saveChanges()
        let duplicate = FeedItem(code: 1)
        try store.insert(duplicate)
        try store.insert(Song(title: "with it", seconds: 1))
        #expect(throws: StoreError.uniqueIndexViolation(class: "FeedItem", index: "code")) { try store.saveChanges() }
        #expect(store.changeSequence == 1)
        duplicate.code = 2
        try store.saveChanges()
        try store.close()
        #expect(await collect(feed) == [.expected(1, ["FeedItem": ([1], [], [])]),
                                        .expected(2, ["FeedItem": ([2], [], []), "Song": ([1], [], [])])])
        let reopened = try directory.openStore(model)
        #expect(try reopened.changes(since: 0) == [.expected(1, ["FeedItem": ([1], [], [])]),
                                                 .expected(2, ["FeedItem": ([2], [], []), "Song": ([1], [], [])])])
    }

    @Test func aSaveTheBackendFailsSendsNothingAndTakesNoNumber() async throws {
        let directory = TemporaryDirectory("feed-fault")
        let backend = try TokyoCabinetBackend(path: directory.path)
        let store = try Store(backend: backend)
        try store.register(Song.self)
        let feed = store.changes
        try store.insert(Song(title: "one", seconds: 1))
        try store.saveChanges()
        try store.insert(Song(title: "two", seconds: 2))
        // The first file operation of the next commit fails: the save throws, nothing is written.
        backend.faultInjector = FaultInjector(failingOperation: 1)
        #expect(throws: BackendError.self) { try store.saveChanges() }
        backend.faultInjector = nil
        var buffer = DataBuffer()
        buffer.write("x")
        backend.faultInjector = FaultInjector(failingOperation: 1)
        #expect(throws: BackendError.self) { try store.setDataBuffer(buffer, forName: "x") }
        backend.faultInjector = nil
        #expect(store.changeSequence == 1)
        try store.saveChanges()
        try store.close()
        #expect(await collect(feed) == [.expected(1, ["Song": ([1], [], [])]), .expected(2, ["Song": ([2], [], [])])])
    }

    @Test(arguments: BackendKind.withEtcd) func aStalledSubscriberGetsOneGapMarkerThenTheNextChanges(_ backend: BackendKind) async throws {
        let directory = TemporaryDirectory("feed-gap", backend: backend)
        let store = try directory.openStore(model)
        let stalled = store.changes(bufferSize: 4)
        let reader = store.changes
        var iterator = stalled.makeAsyncIterator()
        for i in 1 ... 6 {
            try store.insert(Song(title: "\(i)", seconds: UInt32(i)))
            try store.saveChanges()
        }
        // Four changes kept, 5 and 6 dropped; reading one makes room for the next change, 7, which
        // comes after the marker.
        #expect(await iterator.next()?.sequence == 1)
        try store.insert(Song(title: "7", seconds: 7))
        try store.saveChanges()
        for i in 8 ... 20 {
            try store.insert(Song(title: "\(i)", seconds: UInt32(i)))
            try store.saveChanges()
        }
        var seen: [StoreChange] = []
        while seen.count < 5, let change = await iterator.next() { seen.append(change) }
        #expect(seen.map(\.sequence) == [2, 3, 4, 6, 7])
        #expect(seen.map(\.missed) == [nil, nil, nil, 5 ... 6, nil])
        #expect(seen[3].kind == .gap(missed: 5 ... 6) && seen[3].classNames.isEmpty)
        // 8 to 20 came while four changes waited: one marker for them.
        try store.close()
        var rest: [StoreChange] = []
        while let change = await iterator.next() { rest.append(change) }
        #expect(rest == [StoreChange(missed: 8 ... 20)])
        // What was missed is in the log; the other subscriber missed nothing.
        let reopened = try directory.openStore(model)
        #expect(try reopened.changes(since: 4).prefix(2).map { $0.inserted(of: Song.self) } == [[5], [6]])
        #expect(await collect(reader).map(\.sequence) == Array(1 ... 20))
    }

    @Test(arguments: BackendKind.withEtcd) func closingFinishesEveryStream(_ backend: BackendKind) async throws {
        let directory = TemporaryDirectory("feed-close", backend: backend)
        let store = try directory.openStore(model)
        let streams = (0 ..< 3).map { _ in store.changes }
        let readers = streams.map { stream in Task { await collect(stream) } }
        try store.insert(Song(title: "one", seconds: 1))
        try store.saveChanges()
        try store.close()
        for reader in readers { #expect(await reader.value.map(\.sequence) == [1]) }
        // A stream asked for after closing is finished at once.
        #expect(await collect(store.changes) == [])
    }

    @Test func aReaderThatGoesAwayIsRemoved() async throws {
        let directory = TemporaryDirectory("feed-remove", backend: .memory)
        let store = try directory.openStore(model)
        do {
            let released = store.changes
            _ = released
            #expect(store.changeFeed.hasSubscribers)
        }
        #expect(!store.changeFeed.hasSubscribers)
        let stream = store.changes
        let reader = Task { await collect(stream) }
        try store.insert(Song(title: "one", seconds: 1))
        try store.saveChanges()
        while store.changeFeed.hasSubscribers {
            reader.cancel()
            try await Task.sleep(nanoseconds: 1_000_000)
        }
        #expect(await reader.value.count <= 1)
        try store.insert(Song(title: "two", seconds: 2))
        try store.saveChanges()
        try store.close()
    }

    @Test(arguments: BackendKind.withEtcd) func savesDoNotWaitForReaders(_ backend: BackendKind) throws {
        // Nobody reads these streams: a save never blocks on them, and each keeps its bound.
        let directory = TemporaryDirectory("feed-unread", backend: backend)
        let store = try directory.openStore(model)
        let unread = (0 ..< 4).map { _ in store.changes(bufferSize: 2) }
        for i in 1 ... 50 {
            try store.insert(Song(title: "\(i)", seconds: UInt32(i)))
            try store.saveChanges()
        }
        #expect(store.changeSequence == 50)
        try store.close()
        _ = unread
    }
}
