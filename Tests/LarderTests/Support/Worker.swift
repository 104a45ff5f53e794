// Runs LarderCrashWorker, the child process of the crash and multi-process tests.

import Foundation
import Testing

enum Worker {
    /// The worker executable, built beside the test bundle.
    static var url: URL {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let beside = directory.appendingPathComponent("LarderCrashWorker")
        if FileManager.default.isExecutableFile(atPath: beside.path) { return beside }
        // Inside an .xctest bundle directory (other platforms): look one level up.
        return directory.deletingLastPathComponent().appendingPathComponent("LarderCrashWorker")
    }

    /// Starts the worker with `arguments`; its standard output goes to the returned pipe, its
    /// standard error to another (see ``errorOutput(of:)``).
    static func start(_ arguments: [String], input: Pipe? = nil) throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = Pipe()
        if let input { process.standardInput = input }
        try process.run()
        return (process, output)
    }

    /// What an ended worker wrote to standard error (a trap's message), trimmed.
    static func errorOutput(of process: Process) -> String {
        guard let pipe = process.standardError as? Pipe else { return "" }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// How an ended worker ended, for a test's message: its exit status or signal, and the
    /// start of what it wrote to standard error (a trap's message, before its backtrace). Reads
    /// standard error: call it once.
    static func ending(of process: Process) -> String {
        let reason = process.terminationReason == .exit ? "exit status" : "signal"
        let message = errorOutput(of: process).split(separator: "\n").prefix(12).joined(separator: "\n")
        return "\(reason) \(process.terminationStatus): \(message)"
    }

    /// Records an issue unless the ended worker was killed by the test's SIGKILL (not by a
    /// trap of its own, whose message is shown).
    static func expectKilled(_ process: Process, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let killed = process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL
        #expect(killed, "\(what): the worker was not killed by SIGKILL but ended by \(ending(of: process))",
                sourceLocation: sourceLocation)
    }

    /// Runs the worker to completion and returns its output, trimmed; when it dies of a signal
    /// or runs past `timeout` seconds (it is then killed), what happened instead.
    static func run(_ arguments: [String], timeout: TimeInterval = 120) throws -> String {
        let (process, output) = try start(arguments)
        let deadline = Date(timeIntervalSinceNow: timeout)
        var timedOut = false
        while process.isRunning {
            if Date() > deadline {
                kill(process.processIdentifier, SIGKILL)
                timedOut = true
                break
            }
            usleep(2_000)
        }
        process.waitUntilExit()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if timedOut { return "timed out after \(timeout) s: \(text)" }
        if process.terminationReason != .exit { return "died of \(ending(of: process)); printed: \(text)" }
        return text
    }

    /// Reads one line of the worker's output (blocking).
    static func readLine(from pipe: Pipe) -> String {
        var bytes: [UInt8] = []
        while true {
            let byte = pipe.fileHandleForReading.readData(ofLength: 1)
            guard let first = byte.first, first != UInt8(ascii: "\n") else { break }
            bytes.append(first)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
