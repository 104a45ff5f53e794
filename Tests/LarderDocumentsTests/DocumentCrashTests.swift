// Kills a child process at random moments while it writes documents, and checks after each
// kill that documents and indexes agree and every acknowledged batch is there.

import Foundation
import Testing
@testable import LarderDocuments

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
        process.standardError = FileHandle.nullDevice
        try process.run()
        return (process, output)
    }

    @Test func documentsAndIndexesAgreeAfterSIGKILL() throws {
        let temporary = try TemporaryStore()
        try temporary.store.close()
        let ackPath = temporary.path + ".acks"
        _ = FileManager.default.createFile(atPath: ackPath, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: ackPath) }
        var lastAcknowledged = 0
        for round in 1 ... 50 {
            let (process, _) = try Self.start(["run", temporary.path, round % 2 == 0 ? "full" : "nosync", ackPath])
            usleep(UInt32.random(in: 2_000 ... 80_000))   // early kills hit file creation
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let acks = try String(contentsOfFile: ackPath, encoding: .utf8).split(separator: "\n")
            lastAcknowledged = max(lastAcknowledged, acks.last.flatMap { Int($0) } ?? 0)
            let (checker, output) = try Self.start(["check", temporary.path])
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            checker.waitUntilExit()
            let parts = text.split(separator: " ")
            guard parts.count == 2, parts[0] == "ok", let rounds = Int(parts[1]) else {
                Issue.record("kill \(round): \(text)")
                return
            }
            #expect(rounds >= lastAcknowledged && rounds <= lastAcknowledged + 1, "kill \(round): \(rounds) vs \(lastAcknowledged)")
            lastAcknowledged = rounds
        }
        #expect(lastAcknowledged > 50, "the workers wrote too little to test anything")
    }
}
