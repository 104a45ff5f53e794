// Compaction: rekey leaves no byte of the old plaintext records in any file, compact() keeps
// every record and shrinks the files, and a failure at any step of a compaction leaves the
// store whole (finished or undone at the next open).

import Foundation
import Testing
@testable import Larder
import LarderTestSupport

@Suite struct CompactionTests {
    /// A word in every stored title, buffer and index entry: a byte scan of the files looks for it.
    private static let marker = "zqxplainmarker"

    /// A store with songs, text-indexed songs and a named buffer, all carrying the marker, as
    /// plaintext; some songs replaced and deleted, so that old records lie in freed space.
    private func makePlaintextStore(in directory: TemporaryDirectory) throws {
        let store = try directory.openStore([Song.self, Playlist.self, IndexedSong.self])
        try insertLibrary(into: store, songs: 40, perPlaylist: 10)
        for song in try store.allObjects(of: Song.self) { song.title = "\(Self.marker) \(song.title)" }
        try store.saveChanges()
        for index in 0 ..< 30 { try store.insert(IndexedSong("\(Self.marker) indexed \(index)")) }
        var buffer = DataBuffer()
        buffer.write("\(Self.marker) in a named buffer")
        try store.setDataBuffer(buffer, forName: "note")
        try store.saveChanges()
        try store.close()
    }

    /// The names of the files in `directory` holding `marker`.
    private func filesHoldingMarker(in directory: TemporaryDirectory) throws -> [String] {
        let needle = Array(Self.marker.utf8)
        return try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted().filter { name in
            let bytes = try Data(contentsOf: URL(fileURLWithPath: directory.file(name)))
            return bytes.firstRange(of: Data(needle)) != nil
        }
    }

    @Test func rekeyFromPlaintextLeavesNoOldByteInAnyFile() throws {
        let directory = TemporaryDirectory("compact-rekey")
        try makePlaintextStore(in: directory)
        #expect(try filesHoldingMarker(in: directory).count >= 3)
        let store = try Store(path: directory.path)
        try store.register(Song.self)
        try store.register(Playlist.self)
        try store.register(IndexedSong.self)
        try store.rekey(to: "secret", iterations: 1_000)
        try store.close()
        #expect(try filesHoldingMarker(in: directory) == [])

        let reopened = try Store(path: directory.path, configuration: .init(encryptionKey: "secret"))
        try reopened.register(Song.self)
        try reopened.register(Playlist.self)
        try reopened.register(IndexedSong.self)
        #expect(try reopened.verify().isHealthy)
        #expect(try reopened.allObjects(of: Song.self).filter { $0.title.hasPrefix(Self.marker) }.count == 40)
        #expect(try reopened.countOfObjects(of: IndexedSong.self, matchingText: Self.marker, forAttribute: "title") == 30)
        var buffer = try #require(try reopened.dataBuffer(forName: "note"))
        #expect(try buffer.readString() == "\(Self.marker) in a named buffer")
        try reopened.close()
    }

    @Test func rekeyWithoutCompactionLeavesTheOldBytes() throws {
        // The defect compaction removes: records rewritten in place leave the old ones in
        // Tokyo Cabinet's free space.
        let directory = TemporaryDirectory("compact-rekey-off")
        try makePlaintextStore(in: directory)
        let store = try directory.openStore([Song.self, Playlist.self, IndexedSong.self])
        try store.rekey(to: "secret", iterations: 1_000, compact: false)
        try store.close()
        #expect(try filesHoldingMarker(in: directory) != [])
    }

    @Test func compactKeepsEveryRecordAndShrinksTheFiles() throws {
        let directory = TemporaryDirectory("compact-shrink")
        let store = try directory.openStore()
        let (songs, _) = try insertLibrary(into: store, songs: 2_000, perPlaylist: 100)
        for song in songs { song.title = String(repeating: "long title ", count: 200) + song.title }
        try store.saveChanges()
        for playlist in try store.allObjects(of: Playlist.self) { playlist.songs = Array(playlist.songs.prefix(2)) }
        for song in songs.dropFirst(100) where song.seconds % 20 != 0 { try store.delete(song) }
        try store.saveChanges()
        let before = try directorySize(directory)
        try store.compact()
        let after = try directorySize(directory)
        #expect(after < before * 3 / 4, "\(before) bytes before, \(after) after")
        print("compaction: \(before) bytes before, \(after) after")
        #expect(try store.verify().isHealthy)
        let expected = try store.allObjects(of: Song.self).map(\.title).sorted()
        // The store goes on working on the new files, then they read back whole.
        try store.insert(Song(title: "after compaction", seconds: 1))
        try store.saveChanges()
        try store.close()
        let reopened = try directory.openStore()
        #expect(try reopened.verify().isHealthy)
        #expect(try reopened.allObjects(of: Song.self).map(\.title).sorted() == (expected + ["after compaction"]).sorted())
        try reopened.close()
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.contains(TokyoCabinetBackend.compactionCopySuffix) || $0 == "_compaction" } == [])
    }

    @Test func compactionKeepsTheStoreLocked() throws {
        let directory = TemporaryDirectory("compact-lock")
        let store = try directory.openStore()
        try insertLibrary(into: store, songs: 10, perPlaylist: 5)
        try store.compact()
        // The file now named _store.tch is the fresh one, and this process holds its lock:
        // another process cannot open the store, in this one a second opener is refused.
        #expect(try Worker.run(["write", directory.path]).hasPrefix("error "))
        #expect(throws: BackendError.self) { _ = try TokyoCabinetBackend(path: directory.path) }
        try store.compact()
        #expect(try Worker.run(["write", directory.path]).hasPrefix("error "))
        try store.insert(Song(title: "after two compactions", seconds: 2))
        try store.saveChanges()
        try store.close()
        let reopened = try directory.openStore()
        #expect(try reopened.allObjects(of: Song.self).count == 11)
        try reopened.close()
        #expect(try Worker.run(["write", directory.path]) == "opened")
    }

    @Test func anotherProcessIsLockedOutThroughoutCompactions() throws {
        let directory = TemporaryDirectory("compact-lockout")
        let store = try directory.openStore()
        try insertLibrary(into: store, songs: 200, perPlaylist: 10)
        try store.close()
        let (compactor, output) = try Worker.start(["compact", directory.path])
        defer {
            kill(compactor.processIdentifier, SIGKILL)
            compactor.waitUntilExit()
        }
        #expect(Worker.readLine(from: output) == "ready")
        // While the worker swaps fresh files in, again and again, every open is refused.
        var attempts = 0
        let deadline = Date().addingTimeInterval(1)
        while Date() < deadline {
            attempts += 1
            do {
                let backend = try TokyoCabinetBackend(path: directory.path)
                try backend.close()
                Issue.record("attempt \(attempts): the store opened while another process was compacting it")
                return
            } catch BackendError.locked {
                continue
            }
        }
        #expect(compactor.isRunning, "the compacting worker stopped")
        #expect(attempts > 50)
    }

    @Test func aKillAtAnyMomentOfACompactionLeavesTheStoreWhole() throws {
        let directory = TemporaryDirectory("compact-crash")
        try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true)
        let ackPath = directory.path + ".acks"
        _ = FileManager.default.createFile(atPath: ackPath, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: ackPath) }
        // Some saves first (the crash worker's model, with its text index).
        let (writer, _) = try Worker.start(["run", directory.path, "full", ackPath])
        usleep(400_000)
        kill(writer.processIdentifier, SIGKILL)
        writer.waitUntilExit()
        let first = try Worker.run(["check", directory.path])
        #expect(first.hasPrefix("ok "), "\(first)")

        let seed: UInt64 = 19
        var generator = SplitMix(seed: seed)
        var killsInsideACompaction = 0, killsPastTheCommitPoint = 0
        for round in 1 ... 25 {
            let (process, _) = try Worker.start(["compact", directory.path])
            usleep(UInt32.random(in: 20_000 ... 150_000, using: &generator))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL,
                    "seed \(seed) round \(round): the worker ended by itself (status \(process.terminationStatus))")
            let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            if names.contains(where: { $0.hasSuffix(TokyoCabinetBackend.compactionCopySuffix) || $0 == "_compaction" }) {
                killsInsideACompaction += 1
            }
            if names.contains("_compaction") { killsPastTheCommitPoint += 1 }
            // Every save is still there, no more, and the store is healthy.
            let result = try Worker.run(["check", directory.path])
            #expect(result == first, "seed \(seed) round \(round): \(result)")
        }
        #expect(killsInsideACompaction > 5, "seed \(seed): too few kills landed inside a compaction")
        print("compaction crash test (seed \(seed)): 25 kills, \(killsInsideACompaction) inside a compaction, \(killsPastTheCommitPoint) past its commit point")
    }

    @Test func aFailureAtAnyStepOfACompactionLeavesTheStoreWhole() throws {
        var failuresPastTheCommitPoint = 0
        let sweep = try FaultSweep(
            prepare: {
                let directory = TemporaryDirectory("compact-fault")
                let store = try directory.openStore()
                try insertLibrary(into: store, songs: 30, perPlaylist: 10)
                var buffer = DataBuffer()
                buffer.write("kept")
                try store.setDataBuffer(buffer, forName: "note")
                try store.delete(try #require(try store.object(of: Song.self, rowID: 3)))
                try store.saveChanges()
                try store.close()
                return directory
            },
            write: { directory, injector in
                let store = try directory.openStore()
                defer { try? store.close() }
                let backend = try #require(store.backend as? TokyoCabinetBackend)
                backend.faultInjector = injector
                do {
                    try store.compact()
                } catch {
                    if FileManager.default.fileExists(atPath: backend.compactionPlanPath) { failuresPastTheCommitPoint += 1 }
                    throw error
                }
            },
            state: { directory in
                // The next open finishes or undoes the compaction; the store is whole either way.
                let store = try directory.openStore()
                var lines = try store.allObjects(of: Song.self).map(\.title).sorted()
                var note = try #require(try store.dataBuffer(forName: "note"))
                lines.append("note \(try note.readString())")
                lines += try store.verify().problems.map { "problem \($0)" }
                try store.close()
                lines += try FileManager.default.contentsOfDirectory(atPath: directory.path)
                    .filter { $0.contains(TokyoCabinetBackend.compactionCopySuffix) || $0 == "_compaction" }
                    .map { "left behind: \($0)" }
                return lines
            }
        ).run()
        // A compaction changes no record: the state before is the state after.
        #expect(sweep.old == sweep.new)
        #expect(!sweep.new.contains { $0.hasPrefix("problem") || $0.hasPrefix("left behind") }, "\(sweep.new)")
        #expect(sweep.violations == [])
        let failures = sweep.outcomes.compactMap(\.failure)
        #expect(failures.count == sweep.outcomes.count, "a compaction that met a fault completed anyway")
        #expect(sweep.outcomes.count > 20)
        #expect(failuresPastTheCommitPoint > 0, "no fault landed after the commit point")
        print("compaction fault injection: \(sweep.outcomes.count) operations, \(failuresPastTheCommitPoint) finished on reopen")
    }

    @Test func aTornCompactionPlanIsDiscarded() throws {
        #expect(CompactionPlan.decode(CompactionPlan.encode(["Song", "_store"])) == ["Song", "_store"])
        var torn = CompactionPlan.encode(["Song", "_store"])
        torn.removeLast(3)
        #expect(CompactionPlan.decode(torn) == nil)
        var flipped = CompactionPlan.encode(["Song", "_store"])
        flipped[13] ^= 1
        #expect(CompactionPlan.decode(flipped) == nil)
        #expect(CompactionPlan.decode(CompactionPlan.encode(["../escape"])) == nil)
    }

    private func directorySize(_ directory: TemporaryDirectory) throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).reduce(0) { total, name in
            total + ((try FileManager.default.attributesOfItem(atPath: directory.file(name))[.size] as? Int) ?? 0)
        }
    }
}
