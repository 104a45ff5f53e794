// Client processes killed and racing (issue 26's faults): a client killed with SIGKILL in the
// middle of a large (staged) save leaves the store with all of that save or none of it for every
// other client, at every point of the staged commit, and the next client to open finishes it or
// cleans it up; client processes incrementing one counter concurrently each get the typed
// conflict when another saved first, retry, and lose no increment. The clients are
// LarderEtcdWorker processes on the shared cluster.

import Foundation
import Testing
@testable import LarderEtcd

@Suite struct EtcdClientProcessTests {
    /// The number of staging and commit-record keys under `prefix`.
    private func stagingAndCommitKeys(under prefix: String) throws -> Int64 {
        let layout = try EtcdKeyLayout(prefix: prefix)
        return try EtcdTestStore.client().range(from: layout.commitRoot, before: EtcdKeyLayout.end(ofPrefix: layout.stagingRoot),
                                                revision: nil, countOnly: true).count
    }

    /// Whether a commit record of `prefix` is published.
    private func commitIsPublished(under prefix: String) throws -> Bool {
        let layout = try EtcdKeyLayout(prefix: prefix)
        return try EtcdTestStore.client().range(from: layout.commitRoot, before: EtcdKeyLayout.end(ofPrefix: layout.commitRoot),
                                                revision: nil, countOnly: true).count > 0
    }

    /// After a killed save: what a fresh client sees, the same again from one that cleans up
    /// unpublished staging at once, and nothing left of the staged commit after that.
    private func checkAfterKill(prefix: String, count: Int) throws -> String {
        let endpoints = try EtcdTestStore.cluster().endpoints
        let seen = try EtcdWorker.run("check", endpoints: endpoints, prefix: prefix, [String(count), "600"])
        #expect(seen == ["all"] || seen == ["none"], "a fresh client saw \(seen)")
        let afterCleanUp = try EtcdWorker.run("check", endpoints: endpoints, prefix: prefix, [String(count), "0"])
        #expect(afterCleanUp == seen)
        #expect(try stagingAndCommitKeys(under: prefix) == 0)
        return seen.first ?? ""
    }

    @Test(arguments: [("staging", "none"), ("publishing", "all"), ("rolling:1", "all"), ("rolling:7", "all")])
    func aClientKilledAtAPointOfALargeSaveLeavesAllOfItOrNone(stop: String, expected: String) throws {
        let cluster = try EtcdTestStore.cluster()
        let prefix = EtcdTestStore.freshPrefix("killed")
        let count = 600
        let worker = try EtcdWorker("big-save", endpoints: cluster.endpoints, prefix: prefix, [String(count), stop])
        #expect(worker.readLine() == "saving")
        #expect(worker.readLine() == "stopped")
        worker.killNow()
        #expect(try commitIsPublished(under: prefix) == (expected == "all"))
        #expect(try checkAfterKill(prefix: prefix, count: count) == expected)
    }

    @Test(arguments: ["while staging", "while rolling forward"])
    func aClientKilledAtAnyMomentOfALargeSaveLeavesAllOfItOrNone(moment: String) throws {
        let cluster = try EtcdTestStore.cluster()
        let prefix = EtcdTestStore.freshPrefix("killed")
        let layout = try EtcdKeyLayout(prefix: prefix)
        let client = try EtcdTestStore.client()
        let count = 2000
        let worker = try EtcdWorker("big-save", endpoints: cluster.endpoints, prefix: prefix, [String(count), "none"])
        #expect(worker.readLine() == "saving")
        // Watches the keys of the staged commit until the moment comes, then kills the worker.
        let deadline = Date().addingTimeInterval(60)
        var sawPublished = false
        while worker.process.isRunning, Date() < deadline {
            let staged = try client.range(from: layout.stagingRoot, before: EtcdKeyLayout.end(ofPrefix: layout.stagingRoot),
                                          revision: nil, countOnly: true).count
            sawPublished = try commitIsPublished(under: prefix)
            if moment == "while staging" ? (staged >= 3 && !sawPublished) : sawPublished { break }
            usleep(2_000)
        }
        worker.killNow()
        #expect(Date() < deadline, "the moment never came")
        // Published before the kill (seen then, or still there now): every reader must see all
        // of it; never published: none of it.
        let published = try sawPublished || commitIsPublished(under: prefix)
        #expect(try checkAfterKill(prefix: prefix, count: count) == (published ? "all" : "none"))
        #expect(published == (moment == "while rolling forward"))
    }

    @Test func clientProcessesIncrementingOneCounterLoseNoIncrement() throws {
        let cluster = try EtcdTestStore.cluster()
        let prefix = EtcdTestStore.freshPrefix("counter")
        #expect(try EtcdWorker.run("seed-counter", endpoints: cluster.endpoints, prefix: prefix) == ["seeded"])
        let times = 50
        let workers = try (0 ..< 3).map { _ in
            // Each pauses up to 60 ms after a save, so that the three interleave rather than
            // one saving in a burst while the others' retries keep arriving after its next save.
            try EtcdWorker("increment", endpoints: cluster.endpoints, prefix: prefix, [String(times), "60"])
        }
        for worker in workers { #expect(worker.readLine() == "ready") }
        for worker in workers { worker.send("go") }   // all at once
        var acknowledged: [UInt64] = []
        for worker in workers {
            let lines = worker.remainingLines()
            #expect(worker.process.terminationStatus == 0, "worker: \(lines.suffix(3))")
            let acks = lines.compactMap { $0.hasPrefix("ack ") ? UInt64($0.dropFirst(4)) : nil }
            #expect(acks.count == times)
            #expect(acks == acks.sorted(), "one process's saves follow each other")
            acknowledged += acks
            // Each process met the others' saves, got the typed conflict and retried.
            let conflicts = lines.last.flatMap { $0.hasPrefix("conflicts ") ? Int($0.dropFirst(10)) : nil }
            #expect((conflicts ?? 0) > 0, "a worker saw no conflict: \(lines.suffix(2)); acks \(acks)")
        }
        // Every value was acknowledged to exactly one process: each conflict had one winner and
        // no increment was lost.
        #expect(acknowledged.sorted() == Array(1 ... UInt64(3 * times)))
        #expect(try EtcdWorker.run("read-counter", endpoints: cluster.endpoints, prefix: prefix) == ["counter \(3 * times)"])
    }
}
