// Kills a child process at random moments while it writes documents, and checks after each
// kill that documents and indexes agree and every acknowledged batch is there. Each worker must
// die of the test's SIGKILL (not of a trap of its own, whose message is shown), and some kills
// must land inside a commit (its journal left behind).

import Foundation
import Testing
@testable import Larder
@testable import LarderDocuments
import LarderTestSupport

@Suite struct DocumentCrashTests {
    private static var worker: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("LarderDocumentsCrashWorker")
    }

    private static func start(_ arguments: [String]) throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = worker
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = Pipe()
        try process.run()
        return (process, output)
    }

    /// How an ended worker ended: its status or signal and the start of its standard error.
    private static func ending(of process: Process) -> String {
        let data = (process.standardError as? Pipe)?.fileHandleForReading.readDataToEndOfFile() ?? Data()
        let message = String(decoding: data, as: UTF8.self).split(separator: "\n").prefix(12).joined(separator: "\n")
        return "\(process.terminationReason == .exit ? "exit status" : "signal") \(process.terminationStatus): \(message)"
    }

    @Test func documentsAndIndexesAgreeAfterSIGKILL() throws {
        let temporary = try TemporaryStore()
        try temporary.store.close()
        let ackPath = temporary.path + ".acks"
        _ = FileManager.default.createFile(atPath: ackPath, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: ackPath) }
        let seed: UInt64 = 50   // the kill times; the moments themselves vary with the machine
        var generator = SplitMix(seed: seed)
        var lastAcknowledged = 0
        var journalsSeen = 0
        let kills = 50
        for round in 1 ... kills {
            let (process, _) = try Self.start(["run", temporary.path, round % 2 == 0 ? "full" : "nosync", ackPath])
            usleep(UInt32.random(in: 2_000 ... 80_000, using: &generator))   // early kills hit file creation
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let killed = process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL
            #expect(killed, "seed \(seed) kill \(round): the worker ended by \(Self.ending(of: process))")
            // A save clears the journal's header (and reuses it); a kill inside a commit leaves
            // it uncleared.
            if let journal = try FileIO.read(temporary.path + "/_journal"), CommitJournal.isUncleared(journal) { journalsSeen += 1 }
            let acks = try String(contentsOfFile: ackPath, encoding: .utf8).split(separator: "\n")
            lastAcknowledged = max(lastAcknowledged, acks.last.flatMap { Int($0) } ?? 0)
            let (checker, output) = try Self.start(["check", temporary.path])
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            checker.waitUntilExit()
            let parts = text.split(separator: " ")
            guard parts.count == 2, parts[0] == "ok", let rounds = Int(parts[1]) else {
                // The store is kept for a post-mortem: the temporary one goes with the test.
                let kept = NSTemporaryDirectory() + "larder-documents-crash-seed\(seed)-kill\(round)-\(getpid())"
                try? FileManager.default.copyItem(atPath: temporary.path, toPath: kept)
                Issue.record("seed \(seed) kill \(round): \(text) (\(Self.ending(of: checker))); store kept in \(kept)")
                return
            }
            #expect(rounds >= lastAcknowledged && rounds <= lastAcknowledged + 1, "kill \(round): \(rounds) vs \(lastAcknowledged)")
            lastAcknowledged = rounds
        }
        #expect(lastAcknowledged > kills, "the workers wrote too little to test anything")
        // A quarter to a half of the kills land inside a commit (fewer on a loaded machine, where
        // more land while the worker starts).
        #expect(journalsSeen > 0, "none of \(kills) kills landed inside a commit")
        print("documents crash test: \(kills) kills, \(lastAcknowledged) batches, \(journalsSeen) interrupted commits recovered")
    }
}
