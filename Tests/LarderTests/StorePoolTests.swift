// StorePool: reads run beside a writer and see whole saves only, each the state one save
// produced, and keep it for their whole closure; writes from many tasks are serialized in call
// order and nothing is lost; a write that throws saves nothing; read contexts are read-only and
// forget what they changed; a task cancelled while it waits for a context or its turn to write
// leaves holding nothing; observation and the change feed work through the pool; an encrypted
// store opens its contexts without deriving the key again; a closed pool refuses work.

import Foundation
import LarderTestSupport
import Synchronization
import Testing
@testable import Larder

/// Blocks a closure running inside the pool until the test lets it go on (a DispatchSemaphore,
/// so that a read or a write can be held mid-closure while the test goes on in another task).
private final class Latch: Sendable {
    private let entered = DispatchSemaphore(value: 0)
    private let released = DispatchSemaphore(value: 0)

    /// Called by the held closure: says it is inside, then waits to be released.
    func hold() {
        entered.signal()
        released.wait()
    }

    /// Waits (off the task threads) until the held closure is inside.
    func waitUntilHeld() async {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                self.entered.wait()
                continuation.resume()
            }
        }
    }

    func release() { released.signal() }
}

// Serialized: a test that holds a read mid-closure blocks one of the task threads (a read runs
// on the calling task's thread), and two such tests at once would block both.
@Suite(.serialized) struct StorePoolTests {
    private let model: [StoredObject.Type] = [Counter.self, CounterLog.self, Song.self]

    @Test(arguments: BackendKind.allCases) func readersNeverSeePartOfASaveWhileAWriterSaves(_ backend: BackendKind) async throws {
        let directory = TemporaryDirectory("pool-readers", backend: backend)
        let pool = try directory.openPool(model)
        let saves = 1_000
        let done = Shared(false)
        let reads = Shared(0)
        try await withThrowingTaskGroup(of: [String].self) { group in
            for _ in 0 ..< 8 {
                group.addTask {
                    var problems: [String] = []
                    var previous = 0
                    while !done.current || previous < saves {
                        let (first, second) = try await pool.read { store in
                            (try CounterState.read(from: store), try CounterState.read(from: store))
                        }
                        reads.update { $0 += 1 }
                        let expected = CounterState(value: first.value, logCount: first.value,
                                                    lastLogNumber: first.value > 0 ? first.value : nil,
                                                    sequence: UInt64(first.value))
                        if first != expected { problems.append("out of step: \(first)") }
                        if second != first { problems.append("changed within a read: \(first) then \(second)") }
                        if first.value < previous { problems.append("went back from \(previous) to \(first.value)") }
                        previous = first.value
                        if problems.count > 10 { break }
                        // A read that finds a context free never suspends: let the writer's
                        // task have a thread too (there are 2 on this machine, and 9 tasks).
                        await Task.yield()
                    }
                    return problems
                }
            }
            group.addTask {
                defer { done.update { $0 = true } }
                for save in 1 ... saves {
                    let value = try await pool.write { try CounterState.increment(in: $0) }
                    if value != save { return ["save \(save) set \(value)"] }
                }
                return []
            }
            var problems: [String] = []
            for try await found in group { problems += found }
            #expect(problems.isEmpty, "\(problems.prefix(10))")
        }
        #expect(reads.current >= 8)
        let final = try await pool.read { try CounterState.read(from: $0) }
        #expect(final == CounterState(value: saves, logCount: saves, lastLogNumber: saves, sequence: UInt64(saves)))
        // No read runs: no commit's undo is kept.
        #expect(pool.keptUndoCount == 0)
    }

    @Test(arguments: BackendKind.allCases) func writesFromEightTasksAreSerializedWithNothingLost(_ backend: BackendKind) async throws {
        let directory = TemporaryDirectory("pool-writers", backend: backend)
        let pool = try directory.openPool(model)
        let values = try await withThrowingTaskGroup(of: [Int].self) { group in
            for _ in 0 ..< 8 {
                group.addTask {
                    var mine: [Int] = []
                    for _ in 0 ..< 50 { mine.append(try await pool.write { try CounterState.increment(in: $0) }) }
                    return mine
                }
            }
            var all: [Int] = []
            for try await mine in group {
                #expect(mine == mine.sorted())
                all += mine
            }
            return all
        }
        // Each write read the value the one before it saved: 400 distinct values, 1 to 400.
        #expect(values.sorted() == Array(1 ... 400))
        let state = try await pool.read { try CounterState.read(from: $0) }
        #expect(state == CounterState(value: 400, logCount: 400, lastLogNumber: 400, sequence: 400))
        // Reopened as a plain store, the saves are on disk.
        try await pool.close()
        let store = try directory.openStore(model)
        #expect(try store.count(of: CounterLog.self) == 400)
    }

    @Test func writesRunInTheOrderTheyWereCalled() async throws {
        let directory = TemporaryDirectory("pool-order")
        let pool = try directory.openPool(model)
        let latch = Latch()
        let order = Shared<[Int]>([])
        let held = Task { try await pool.write { _ in latch.hold() } }
        await latch.waitUntilHeld()
        var waiting: [Task<Void, any Error>] = []
        for number in 1 ... 5 {
            waiting.append(Task { try await pool.write { _ in order.update { $0.append(number) } } })
            // Each joins the queue before the next is called.
            #expect(await eventually { pool.gateCounts.writes.waiting == number })
        }
        latch.release()
        try await held.value
        for task in waiting { try await task.value }
        #expect(order.current == [1, 2, 3, 4, 5])
    }

    @Test(arguments: BackendKind.allCases) func aWriteThatThrowsSavesNothing(_ backend: BackendKind) async throws {
        let directory = TemporaryDirectory("pool-throw", backend: backend)
        let pool = try directory.openPool(model)
        _ = try await pool.write { try CounterState.increment(in: $0) }
        struct Refused: Error {}
        await #expect(throws: Refused.self) {
            try await pool.write { store in
                _ = try CounterState.increment(in: store)
                try store.insert(Song(title: "Never saved", seconds: 1))
                throw Refused()
            }
        }
        let (state, songs) = try await pool.read { (try CounterState.read(from: $0), try $0.count(of: Song.self)) }
        #expect(state == CounterState(value: 1, logCount: 1, lastLogNumber: 1, sequence: 1))
        #expect(songs == 0)
        // The writer forgot the changes: the next write starts from the saved state.
        #expect(try await pool.write { try CounterState.increment(in: $0) } == 2)
        #expect(try await pool.write { $0.hasUnsavedChanges } == false)
    }

    @Test(arguments: BackendKind.allCases) func aReadKeepsTheStateItBeganWithForItsWholeClosure(_ backend: BackendKind) async throws {
        let directory = TemporaryDirectory("pool-snapshot", backend: backend)
        let pool = try directory.openPool(model)
        try await pool.write { store in
            try store.insert(Song(title: "So What", seconds: 545))
            try store.setDataBuffer(DataBuffer(), forName: "first")
        }
        let latch = Latch()
        let read = Task {
            try await pool.read { store -> [String] in
                // A fault taken before the write, filled after it.
                let fault = try store.object(of: Song.self, rowID: 1)
                latch.hold()
                let song = try #require(fault)
                return [song.title, "\(try store.count(of: Song.self))", "\(try store.allObjects(of: Song.self).count)",
                        "\(try store.dataBufferNames())", "\(store.changeSequence)"]
            }
        }
        await latch.waitUntilHeld()
        try await pool.write { store in
            try #require(try store.object(of: Song.self, rowID: 1)).title = "Blue in Green"
            try store.insert(Song(title: "Freddie Freeloader", seconds: 589))
            try store.deleteDataBuffer(forName: "first")
            try store.setDataBuffer(DataBuffer(), forName: "second")
        }
        // Three commits: each named-buffer change commits on its own, then the save.
        #expect(pool.keptUndoCount == 3)
        latch.release()
        let seen = try await read.value
        // Sequence 2: the first write's save, then its named buffer (a commit of its own).
        #expect(seen == ["So What", "1", "1", "[\"first\"]", "2"])
        #expect(pool.keptUndoCount == 0)
        // A read that begins now sees the write.
        let now = try await pool.read { store in
            [try store.object(of: Song.self, rowID: 1)?.title ?? "", "\(try store.count(of: Song.self))",
             "\(try store.dataBufferNames())"]
        }
        #expect(now == ["Blue in Green", "2", "[\"second\"]"])
    }

    @Test func aReadOfAnOrderedIndexKeepsItsStateToo() async throws {
        let directory = TemporaryDirectory("pool-index")
        let pool = try directory.openPool([TimedSong.self])
        try await pool.write { store in
            for seconds in [100, 200, 300] { try store.insert(TimedSong(title: "S\(seconds)", seconds: UInt32(seconds))) }
        }
        let latch = Latch()
        let read = Task {
            try await pool.read { store -> [String] in
                let before = try store.objects(of: TimedSong.self, where: \.seconds >= 150).map(\.title)
                latch.hold()
                let after = try store.objects(of: TimedSong.self, where: \.seconds >= 150, orderBy: [.descending(\.seconds)]).map(\.title)
                return before + ["|"] + after + ["\(try store.count(of: TimedSong.self, where: \.seconds < 1_000))"]
            }
        }
        await latch.waitUntilHeld()
        try await pool.write { store in
            try store.insert(TimedSong(title: "S250", seconds: 250))
            try store.delete(try #require(try store.object(of: TimedSong.self, rowID: 3)))
            try #require(try store.object(of: TimedSong.self, rowID: 1)).seconds = 400
        }
        latch.release()
        let seen = try await read.value
        #expect(seen == ["S200", "S300", "|", "S300", "S200", "3"])
        let now = try await pool.read { try $0.objects(of: TimedSong.self, where: \.seconds >= 150).map(\.title) }
        #expect(now == ["S100", "S200", "S250"])
    }

    @Test(arguments: BackendKind.allCases) func readContextsAreReadOnlyAndForgetWhatTheyChange(_ backend: BackendKind) async throws {
        let directory = TemporaryDirectory("pool-readonly", backend: backend)
        let pool = try directory.openPool(model)
        try await pool.write { try $0.insert(Song(title: "So What", seconds: 545)) }
        try await pool.read { store in
            #expect(throws: StoreError.readOnly) { try store.insert(Song(title: "Nope", seconds: 1)) }
            let song = try #require(try store.object(of: Song.self, rowID: 1))
            #expect(throws: StoreError.readOnly) { try store.delete(song) }
            song.title = "Changed in a read"
            #expect(throws: StoreError.readOnly) { try store.saveChanges() }
            #expect(throws: StoreError.readOnly) { try store.setDataBuffer(DataBuffer(), forName: "x") }
            #expect(throws: StoreError.unavailableInPool(operation: "close()")) { try store.close() }
        }
        // The same context, or another: the title is the saved one.
        for _ in 0 ..< 3 {
            #expect(try await pool.read { try $0.object(of: Song.self, rowID: 1)?.title } == "So What")
        }
        await #expect(throws: StoreError.unavailableInPool(operation: "rekey(to:)")) {
            try await pool.write { try $0.rekey(to: "a key") }
        }
        await #expect(throws: StoreError.unavailableInPool(operation: "close()")) {
            try await pool.write { try $0.close() }
        }
        #expect(try await pool.write { try $0.object(of: Song.self, rowID: 1)?.title } == "So What")
    }

    @Test func aTaskCancelledWhileItWaitsToWriteLeavesHoldingNothing() async throws {
        let directory = TemporaryDirectory("pool-cancel-write")
        let pool = try directory.openPool(model)
        let latch = Latch()
        let ran = Shared(false)
        let held = Task { try await pool.write { _ in latch.hold() } }
        await latch.waitUntilHeld()
        let waiting = Task { try await pool.write { _ in ran.update { $0 = true } } }
        #expect(await eventually { pool.gateCounts.writes.waiting == 1 })
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        #expect(pool.gateCounts.writes.waiting == 0)
        // Cancelled before it asked: refused at once.
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await pool.write { _ in ran.update { $0 = true } }
        }
        await #expect(throws: CancellationError.self) { try await early.value }
        latch.release()
        try await held.value
        #expect(ran.current == false)
        #expect(pool.gateCounts.writes.free == 1 && pool.gateCounts.writes.waiting == 0)
        #expect(try await pool.write { try CounterState.increment(in: $0) } == 1)
    }

    @Test func aTaskCancelledWhileItWaitsForAReadContextLeavesHoldingNothing() async throws {
        let directory = TemporaryDirectory("pool-cancel-read")
        let pool = try directory.openPool(model, maximumReaderCount: 1)
        let latch = Latch()
        let held = Task { try await pool.read { _ in latch.hold() } }
        await latch.waitUntilHeld()
        let waiting = Task { try await pool.read { try $0.count(of: Song.self) } }
        #expect(await eventually { pool.gateCounts.reads.waiting == 1 })
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        #expect(pool.gateCounts.reads.waiting == 0)
        latch.release()
        try await held.value
        #expect(pool.gateCounts.reads.free == 1)
        #expect(try await pool.read { try $0.count(of: Song.self) } == 0)
        #expect(pool.keptUndoCount == 0)
    }

    @Test(arguments: BackendKind.allCases) func observationAndTheChangeFeedGoThroughThePool(_ backend: BackendKind) async throws {
        let directory = TemporaryDirectory("pool-observe", backend: backend)
        let pool = try directory.openPool(model)
        let feed = ObservedValues(pool.changes)
        let counts = ObservedValues(pool.observe { try $0.count(of: Song.self) })
        #expect(await counts.waitFor(count: 1))
        try await pool.write { try $0.insert(Song(title: "So What", seconds: 545)) }
        #expect(await counts.waitFor(count: 2))
        // Another class: the observation's value is not sent again.
        _ = try await pool.write { try CounterState.increment(in: $0) }
        try await pool.write { try $0.insert(Song(title: "Blue in Green", seconds: 337)) }
        #expect(await counts.waitFor(count: 3))
        #expect(counts.values == [0, 1, 2])
        #expect(await feed.waitFor(count: 3))
        #expect(feed.values.map(\.sequence) == [1, 2, 3])
        #expect(feed.values.map { $0.inserted(of: Song.self) } == [[1], [], [2]])
        #expect(feed.values[1].inserted(of: CounterLog.self) == [1])
        try await pool.close()
        #expect(await counts.waitForEnd())
        #expect(await feed.waitForEnd())
    }

    @Test func aReadBegunOnHearingOfAChangeSeesIt() async throws {
        let directory = TemporaryDirectory("pool-heard")
        let pool = try directory.openPool(model)
        let feed = pool.changes
        // The writer waits until the reader has read after each change, so each read must see
        // exactly the save it heard of (a read begun at an older state would count one fewer).
        let (acknowledgements, acknowledge) = AsyncStream.makeStream(of: Void.self)
        let heard = Task {
            var counts: [Int] = []
            for await change in feed {
                counts.append(try await pool.read { try $0.count(of: Song.self) })
                acknowledge.yield()
                if change.sequence == 3 { break }
            }
            return counts
        }
        var acknowledged = acknowledgements.makeAsyncIterator()
        for number in 1 ... 3 {
            try await pool.write { try $0.insert(Song(title: "Song \(number)", seconds: 1)) }
            _ = await acknowledged.next()
        }
        #expect(try await heard.value == [1, 2, 3])
    }

    @Test func aReadBegunOnHearingOfAChangeSeesAtLeastIt() async throws {
        let directory = TemporaryDirectory("pool-heard-racing")
        let pool = try directory.openPool(model)
        let feed = pool.changes
        // Writes do not wait for the reader here: a read may see later saves, never an earlier state.
        let heard = Task {
            var seen: [(sequence: UInt64, count: Int)] = []
            for await change in feed {
                seen.append((change.sequence, try await pool.read { try $0.count(of: Song.self) }))
                if change.sequence == 20 { break }
            }
            return seen
        }
        for number in 1 ... 20 { try await pool.write { try $0.insert(Song(title: "Song \(number)", seconds: 1)) } }
        let seen = try await heard.value
        #expect(seen.map(\.sequence) == Array(1 ... 20))
        #expect(seen.allSatisfy { UInt64($0.count) >= $0.sequence })
        #expect(seen.map(\.count) == seen.map(\.count).sorted())
        #expect(seen.last?.count == 20)
    }

    @Test(arguments: BackendKind.allCases) func aReadOfWhatTheLastCommitWroteDoesNotWaitForTheFiles(_ backend: BackendKind) async throws {
        let directory = TemporaryDirectory("pool-after-images", backend: backend)
        let pool = try directory.openPool(model)
        try await pool.write { store in
            for number in 1 ... 100 { try store.insert(Song(title: "Song \(number)", seconds: UInt32(number))) }
        }
        // A read first, as a running application has made: what registering the classes reads
        // (their text and index settings) is known from then on.
        #expect(try await pool.read { try $0.object(of: Song.self, rowID: 1)?.title } == "Song 1")
        try await pool.write { store in try store.object(of: Song.self, rowID: 7)?.title = "Retitled" }
        // The files' lock held, as the next commit holds it while it writes (with `.full`, through
        // a dozen fsyncs): a read of what the last commit wrote must not wait for it.
        let latch = Latch()
        DispatchQueue.global().async { pool.holdingTheFiles { latch.hold() } }
        await latch.waitUntilHeld()
        let title = Shared<String?>(nil)
        let read = Task {
            let found = try await pool.read { store in
                [7, 8, 100].map { try? store.object(of: Song.self, rowID: $0)?.title }
            }
            title.update { $0 = found.compactMap { $0 ?? nil }.joined(separator: ", ") }
        }
        _ = await eventually(within: .seconds(10)) { title.current != nil }
        let readWhileHeld = title.current
        latch.release()
        try await read.value
        #expect(readWhileHeld == "Retitled, Song 8, Song 100")
        try await pool.close()
    }

    @Test func anEncryptedStoreOpensItsContextsWithTheWritersKey() async throws {
        let directory = TemporaryDirectory("pool-encrypted")
        let configuration = Store.Configuration.quickKey("correct horse")
        let pool = try directory.openPool(model, configuration: configuration)
        try await pool.write { try $0.insert(Song(title: "So What", seconds: 545)) }
        let titles = try await withThrowingTaskGroup(of: String?.self) { group in
            for _ in 0 ..< 4 { group.addTask { try await pool.read { try $0.object(of: Song.self, rowID: 1)?.title } } }
            var titles: [String?] = []
            for try await title in group { titles.append(title) }
            return titles
        }
        #expect(titles == Array(repeating: "So What", count: 4))
        try await pool.close()
        #expect(throws: StoreError.wrongEncryptionKey) {
            _ = try directory.openStore(model, configuration: .quickKey("wrong"))
        }
    }

    @Test func aContextOpenedFromTheWritersMetadataEqualsOneOpenedFromTheFiles() async throws {
        let directory = TemporaryDirectory("pool-seed")
        let pool = try directory.openPool(model + [Note.self])
        for _ in 1 ... 5 { _ = try await pool.write { try CounterState.increment(in: $0) } }
        try await pool.write { store in
            try store.insert(Song(title: "So What", seconds: 545))
            try store.insert(Song(title: "Blue in Green", seconds: 337))
            try store.setDataBuffer(DataBuffer(), forName: "note")
            let note = Note()
            note.text = "first"
            try store.insert(note)
        }
        try await pool.write { store in
            try store.delete(try #require(try store.object(of: Song.self, rowID: 1)))
            try #require(try store.object(of: Note.self, rowID: 1)).text = "second"
        }
        let seeded = try pool.newReadContext(seeded: true)
        let read = try pool.newReadContext(seeded: false)
        #expect(seeded.records == read.records)
        #expect(seeded.records.count == 4)
        #expect(seeded.namedBufferCount == read.namedBufferCount)
        #expect(seeded.changeLog == read.changeLog)
        #expect(seeded.changeLog.sequence == 8)
        #expect(seeded.historyCounts == read.historyCounts)
        #expect(seeded.historyCounts["Note"] == 2)
        for type in model + [Note.self] {
            #expect(try seeded.count(of: type) == read.count(of: type))
        }
        #expect(try seeded.count(of: Song.self) == 1)
    }

    @Test func closingWaitsForTheRunningReads() async throws {
        let directory = TemporaryDirectory("pool-close-read")
        let pool = try directory.openPool(model)
        try await pool.write { try $0.insert(Song(title: "So What", seconds: 545)) }
        let latch = Latch()
        let read = Task {
            try await pool.read { store -> String? in
                latch.hold()
                return try store.object(of: Song.self, rowID: 1)?.title
            }
        }
        await latch.waitUntilHeld()
        let closing = Task { try await pool.close() }
        // close() takes the read places the running read does not hold, then waits for it.
        #expect(await eventually { pool.gateCounts.reads.waiting == 1 })
        latch.release()
        #expect(try await read.value == "So What")
        try await closing.value
        await #expect(throws: StoreError.closed) { try await pool.read { try $0.count(of: Song.self) } }
    }

    @Test func aClosedPoolRefusesWork() async throws {
        let directory = TemporaryDirectory("pool-closed")
        let pool = try directory.openPool(model)
        _ = try await pool.write { try CounterState.increment(in: $0) }
        try await pool.close()
        await #expect(throws: StoreError.closed) { try await pool.read { try $0.count(of: Song.self) } }
        await #expect(throws: StoreError.closed) { try await pool.write { try $0.count(of: Song.self) } }
        try await pool.close()
        // The directory is free again for a store.
        let store = try directory.openStore(model)
        #expect(try store.count(of: CounterLog.self) == 1)
    }
}
