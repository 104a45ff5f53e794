// The proof of the change feed: 10,000 random saves (inserts, updates, deletes of two
// classes, named-buffer writes and removals, empty saves, saves that fail on a unique index and
// are then fixed or discarded) with four subscribers reading as the saves go: each sees exactly
// the committed saves, in order, with exactly the rowIDs the test changed; a fifth with a small
// buffer sees the same saves or gap markers that name exactly the ones it missed; the log gives
// the same changes after a reopen. FEED_RANDOM_SAVES and FEED_RANDOM_SEED change the run.

import Foundation
import LarderTestSupport
import Testing
@testable import Larder

@Suite struct ChangeFeedRandomTests {
    static let environment = ProcessInfo.processInfo.environment
    static let saves = environment["FEED_RANDOM_SAVES"].flatMap { Int($0) } ?? 10_000
    static let seed = environment["FEED_RANDOM_SEED"].flatMap { UInt64($0) } ?? 0xFEED_0023

    /// What the test has changed since the last commit, by class, as the store must report it.
    private struct Pending {
        var classes: [String: (inserted: Set<UInt64>, updated: Set<UInt64>, deleted: Set<UInt64>)] = [:]

        mutating func insert(_ name: String, _ rowID: UInt64) { classes[name, default: ([], [], [])].inserted.insert(rowID) }

        mutating func update(_ name: String, _ rowID: UInt64) {
            guard classes[name]?.inserted.contains(rowID) != true else { return }
            classes[name, default: ([], [], [])].updated.insert(rowID)
        }

        mutating func delete(_ name: String, _ rowID: UInt64) {
            if classes[name]?.inserted.remove(rowID) != nil { return }
            classes[name, default: ([], [], [])].updated.remove(rowID)
            classes[name, default: ([], [], [])].deleted.insert(rowID)
        }

        func change(_ sequence: UInt64) -> StoreChange? {
            let changed = classes.filter { !$0.value.inserted.isEmpty || !$0.value.updated.isEmpty || !$0.value.deleted.isEmpty }
            guard !changed.isEmpty else { return nil }
            return .expected(sequence, changed.mapValues { (Array($0.inserted), Array($0.updated), Array($0.deleted)) })
        }
    }

    @Test(arguments: BackendKind.allCases)
    func everySubscriberSeesExactlyTheCommittedSavesInOrder(_ backend: BackendKind) async throws {
        var random = SplitMix(seed: Self.seed)
        let directory = TemporaryDirectory("feed-random", backend: backend)
        var configuration = Store.Configuration(durability: .noSync)
        configuration.changeLogLimit = 1_000
        let model: [StoredObject.Type] = [Song.self, FeedItem.self]
        let store = try directory.openStore(model, configuration: configuration)
        let readers = (0 ..< 4).map { _ in
            let stream = store.changes(bufferSize: Self.saves * 2)
            return Task { await collect(stream) }
        }
        let small = store.changes(bufferSize: 8)
        let slowReader = Task {
            var seen: [StoreChange] = []
            for await change in small {
                seen.append(change)
                if seen.count % 3 == 0 { await Task.yield() }
            }
            return seen
        }

        var expected: [StoreChange] = []
        var songs: [Song] = [], items: [FeedItem] = []               // saved and not being deleted
        var newSongs: [Song] = [], newItems: [FeedItem] = []
        var deletedSongs: [Song] = []
        var pending = Pending()
        var buffers: Set<String> = []
        var nextCode: UInt64 = 1
        var failures = 0, discards = 0, empty = 0
        func roll(_ bound: UInt64) -> UInt64 { random.next(below: bound) }
        func commitExpected() {
            if let change = pending.change(UInt64(expected.count + 1)) { expected.append(change) } else { empty += 1 }
            pending = Pending()
            songs += newSongs
            items += newItems
            newSongs = []
            newItems = []
            deletedSongs = []
        }

        for _ in 0 ..< Self.saves {
            for _ in 0 ... roll(4) {
                switch roll(100) {
                case 0 ..< 30:
                    let song = Song(title: "s", seconds: UInt32(roll(1_000)))
                    try store.insert(song)
                    newSongs.append(song)
                    pending.insert("Song", song.rowID)
                case 30 ..< 50 where !songs.isEmpty:
                    let song = songs[Int(roll(UInt64(songs.count)))]
                    song.title += "+"
                    pending.update("Song", song.rowID)
                case 50 ..< 55 where !newSongs.isEmpty:
                    newSongs[Int(roll(UInt64(newSongs.count)))].seconds += 1
                case 55 ..< 65 where !songs.isEmpty:
                    let song = songs.remove(at: Int(roll(UInt64(songs.count))))
                    try store.delete(song)
                    deletedSongs.append(song)
                    pending.delete("Song", song.rowID)
                case 65 ..< 70 where !newSongs.isEmpty:
                    let song = newSongs.remove(at: Int(roll(UInt64(newSongs.count))))
                    try store.delete(song)
                    pending.delete("Song", song.rowID)
                case 70 ..< 80:
                    let item = FeedItem(code: nextCode)
                    nextCode += 1
                    try store.insert(item)
                    newItems.append(item)
                    pending.insert("FeedItem", item.rowID)
                case 80 ..< 86 where !items.isEmpty:
                    let item = items[Int(roll(UInt64(items.count)))]
                    item.note += "+"
                    pending.update("FeedItem", item.rowID)
                case 86 ..< 89 where !items.isEmpty:
                    // Another item with a saved item's code: the save will fail.
                    let item = FeedItem(code: items[Int(roll(UInt64(items.count)))].code)
                    try store.insert(item)
                    newItems.append(item)
                    pending.insert("FeedItem", item.rowID)
                case 89 ..< 94:
                    // A named buffer commits at once, pending objects aside.
                    let name = "buffer \(roll(20))"
                    var buffer = DataBuffer()
                    buffer.write(roll(1_000))
                    try store.setDataBuffer(buffer, forName: name)
                    buffers.insert(name)
                    expected.append(.expected(UInt64(expected.count + 1), buffers: [name]))
                case 94 ..< 97:
                    let name = "buffer \(roll(20))"
                    try store.deleteDataBuffer(forName: name)
                    if buffers.remove(name) != nil { expected.append(.expected(UInt64(expected.count + 1), buffers: [name])) }
                default:
                    break
                }
            }
            guard roll(5) != 0 else { continue }   // sometimes the changes wait for a later save
            let duplicates = newItems.filter { item in items.contains { $0.code == item.code } }
            if duplicates.isEmpty {
                try store.saveChanges()
                commitExpected()
                continue
            }
            failures += 1
            #expect(throws: StoreError.uniqueIndexViolation(class: "FeedItem", index: "code")) { try store.saveChanges() }
            if roll(2) == 0 {
                for item in duplicates {
                    item.code = nextCode
                    nextCode += 1
                }
                try store.saveChanges()
                commitExpected()
            } else {
                discards += 1
                store.discardChanges()
                songs += deletedSongs
                pending = Pending()
                newSongs = []
                newItems = []
                deletedSongs = []
            }
        }
        #expect(store.changeSequence == UInt64(expected.count))
        try store.close()

        for reader in readers {
            let seen = await reader.value
            #expect(seen.count == expected.count)
            #expect(seen == expected, "first difference at \(seen.indices.first { seen[$0] != expected[$0] } ?? -1)")
        }
        // The small buffer: its commits are the expected ones, and its gap markers name exactly
        // the numbers it did not get, never two in a row.
        let slow = await slowReader.value
        var next: UInt64 = 1
        var gaps = 0
        for (position, change) in slow.enumerated() {
            if let missed = change.missed {
                gaps += 1
                #expect(missed.lowerBound == next)
                if position + 1 < slow.count { #expect(slow[position + 1].missed == nil) }
                next = missed.upperBound + 1
            } else {
                #expect(change == expected[Int(change.sequence) - 1] && change.sequence == next)
                next = change.sequence + 1
            }
        }
        #expect(next == UInt64(expected.count + 1))

        let reopened = try directory.openStore(model, configuration: configuration)
        let kept = min(expected.count, 1_000)
        #expect(try reopened.changes(since: UInt64(expected.count - kept)) == Array(expected.suffix(kept)))
        #expect(try reopened.verify().isHealthy)
        try reopened.close()
        print("feed random (\(backend), seed \(Self.seed)): \(Self.saves) rounds, \(expected.count) commits, \(failures) failed saves "
              + "(\(discards) discarded), \(empty) empty saves, small-buffer reader: \(gaps) gaps")
        #expect(failures > 0 && discards > 0 && empty > 0)
    }
}
