// Kills a child process at random moments while it saves, hundreds of times, and checks after
// each kill that the store shows every acknowledged save and no partial one, that its
// full-text index agrees with its objects (the worker's check: verify, and searches compared
// with a filter over the objects), and that its sequence number counts exactly the saves whose
// effects are there, the newest change record being the newest save's. Each worker must die of the test's SIGKILL, not of a trap of
// its own, and enough kills must land inside a commit (its journal left behind) to test recovery.

import Foundation
import Testing
@testable import Larder
import LarderTestSupport

@Suite struct CrashTests {
    @Test func savesSurviveSIGKILLAtRandomMoments() throws {
        let directory = TemporaryDirectory("crash")
        try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true)
        let ackPath = directory.path + ".acks"
        _ = FileManager.default.createFile(atPath: ackPath, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: ackPath) }
        let seed: UInt64 = 2026   // the kill times; the moments themselves vary with the machine
        var generator = SplitMix(seed: seed)
        var lastAcknowledged: UInt64 = 0
        var journalsSeen = 0
        let kills = 200
        for round in 1 ... kills {
            let durability = round % 2 == 0 ? "full" : "nosync"
            // Every fourth round commits its class files through shadow copies (ShadowCopy).
            let shadow = round % 4 == 0 ? ["shadow"] : []
            let (process, _) = try Worker.start(["run", directory.path, durability, ackPath] + shadow)
            usleep(UInt32.random(in: 2_000 ... 60_000, using: &generator))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            Worker.expectKilled(process, "seed \(seed) round \(round)")

            let acks = try String(contentsOfFile: ackPath, encoding: .utf8).split(separator: "\n")
            // The last save the store had, or the last one acknowledged since, whichever is later.
            lastAcknowledged = max(lastAcknowledged, acks.last.flatMap { UInt64($0) } ?? 0)
            // A save clears the journal (and reuses it); a kill inside a commit leaves it uncleared.
            if let journal = try FileIO.read(directory.file("_journal")), CommitJournal.isUncleared(journal) { journalsSeen += 1 }

            let result = try Worker.run(["check", directory.path])
            let parts = result.split(separator: " ")
            guard parts.count == 2, parts[0] == "ok", let saves = UInt64(parts[1]) else {
                Issue.record("seed \(seed) round \(round): \(result)")
                return
            }
            // Every acknowledged save is there; at most the one in flight beyond it.
            #expect(saves >= lastAcknowledged, "round \(round): acknowledged \(lastAcknowledged), store has \(saves)")
            #expect(saves <= lastAcknowledged + 1, "round \(round): store has \(saves), acknowledged \(lastAcknowledged)")
            lastAcknowledged = saves
        }
        // A worker saves a few times between its start and its kill, none when a loaded machine
        // starts it slowly (a third of the rounds, seen under load).
        #expect(lastAcknowledged > UInt64(kills / 3), "the workers saved too little to test anything")
        // About a quarter of the kills land inside a commit (fewer on a loaded machine, where
        // more land while the worker starts); a fortieth is the least that tests recovery.
        #expect(journalsSeen >= kills / 40, "only \(journalsSeen) of \(kills) kills landed inside a commit")
        print("crash test: \(kills) kills, \(lastAcknowledged) saves, \(journalsSeen) interrupted commits recovered")
    }

    /// The check the test above makes of each worker can fail: a worker that trapped is not
    /// taken for one the test killed, and what it wrote to standard error is kept.
    @Test func aWorkerThatTrapsIsNotTakenForAKilledOne() throws {
        let (process, _) = try Worker.start(["trap", "unused"])
        process.waitUntilExit()
        #expect(Worker.ending(of: process).contains("Fatal error: trap on request"))
        withKnownIssue { Worker.expectKilled(process, "a trapping worker") }
    }

    /// A worker that hangs is killed at its deadline and said to have timed out, so that a
    /// damaged store that stalls its reader fails a test instead of stalling the suite.
    @Test func aWorkerThatHangsTimesOut() throws {
        #expect(try Worker.run(["hang", "unused"], timeout: 0.5).hasPrefix("timed out after"))
    }
}
