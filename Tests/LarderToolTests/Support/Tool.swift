// Runs the built `larder` binary as a user would: a child process with its own arguments and
// environment, no terminal, and its standard output, standard error and exit status captured.

import Foundation
import Testing

/// What one run of `larder` did.
struct ToolRun {
    var status: Int32
    var output: String
    var error: String

    /// The standard output parsed as JSON (a dictionary).
    func json() throws -> [String: Any] {
        let value = try JSONSerialization.jsonObject(with: Data(output.utf8))
        return try #require(value as? [String: Any], "not a JSON object: \(output)")
    }

    /// The standard output parsed as a JSON array.
    func jsonArray() throws -> [Any] {
        let value = try JSONSerialization.jsonObject(with: Data(output.utf8))
        return try #require(value as? [Any], "not a JSON array: \(output)")
    }
}

enum Tool {
    /// The `larder` executable, built beside the test bundle.
    static var url: URL {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let beside = directory.appendingPathComponent("larder")
        if FileManager.default.isExecutableFile(atPath: beside.path) { return beside }
        // Inside an .xctest bundle directory (other platforms): look one level up.
        return directory.deletingLastPathComponent().appendingPathComponent("larder")
    }

    /// `setsid`, which runs a program in a session of its own: without a controlling terminal,
    /// so that `larder` cannot prompt even when the tests run on one.
    private static let setsid = "/usr/bin/setsid"

    /// Runs `larder arguments…` to its end, with `environment` added to a copy of this
    /// process's environment from which any passphrase variable is removed; standard input is
    /// empty, and there is no terminal to prompt on.
    static func run(_ arguments: [String], environment: [String: String] = [:], timeout: TimeInterval = 120) throws -> ToolRun {
        if FileManager.default.isExecutableFile(atPath: setsid) {
            return try runProgram(setsid, ["--wait", url.path] + arguments, environment: environment, timeout: timeout)
        }
        return try runProgram(url.path, arguments, environment: environment, timeout: timeout)
    }

    /// Runs `larder arguments…` on a pseudo-terminal (through `script`), as a user at a
    /// terminal would; nil when the machine has no `script`. What the tool wrote to the
    /// terminal, standard error included, is the run's output.
    static func runOnTerminal(_ arguments: [String]) throws -> ToolRun? {
        let script = "/usr/bin/script"
        guard FileManager.default.isExecutableFile(atPath: script) else { return nil }
        let command = ([url.path] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        return try runProgram(script, ["--quiet", "--return", "--command", command.joined(separator: " "), "/dev/null"],
                              environment: [:], timeout: 120)
    }

    /// Runs `larder arguments…` on a pseudo-terminal (through `script`) and types each reply
    /// once its prompt has appeared, as a user would; nil when the machine has no `script`.
    static func runOnTerminal(_ arguments: [String], answering prompts: [(prompt: String, reply: String)],
                              timeout: TimeInterval = 60) throws -> ToolRun? {
        let script = "/usr/bin/script"
        guard FileManager.default.isExecutableFile(atPath: script) else { return nil }
        let command = ([url.path] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: script)
        process.arguments = ["--quiet", "--return", "--command", command.joined(separator: " "), "/dev/null"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let screen = Screen(output.fileHandleForReading)
        let deadline = Date(timeIntervalSinceNow: timeout)
        var answered = 0
        // Each prompt is looked for after the previous one.
        var seen = 0
        while process.isRunning, Date() < deadline {
            let text = Array(screen.text().utf8)
            if answered < prompts.count, seen <= text.count,
               let found = text[seen...].firstRange(of: Array(prompts[answered].prompt.utf8)) {
                seen = found.upperBound
                input.fileHandleForWriting.write(Data((prompts[answered].reply + "\n").utf8))
                answered += 1
            }
            usleep(5_000)
        }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        try? input.fileHandleForWriting.close()
        screen.waitForEnd()
        return ToolRun(status: process.terminationStatus, output: screen.text(), error: "")
    }

    private static func runProgram(_ program: String, _ arguments: [String], environment: [String: String],
                                   timeout: TimeInterval) throws -> ToolRun {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        var inherited = ProcessInfo.processInfo.environment
        inherited["LARDER_PASSPHRASE"] = nil
        inherited["LARDER_NEW_PASSPHRASE"] = nil
        process.environment = inherited.merging(environment) { $1 }
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Read both pipes while the process runs, so that a large output cannot block it.
        let readOutput = Reader(output.fileHandleForReading)
        let readError = Reader(error.fileHandleForReading)
        let deadline = Date(timeIntervalSinceNow: timeout)
        while process.isRunning {
            if Date() > deadline {
                kill(process.processIdentifier, SIGKILL)
                break
            }
            usleep(2_000)
        }
        process.waitUntilExit()
        return ToolRun(status: process.terminationStatus, output: readOutput.text(), error: readError.text())
    }
}

/// Reads a pipe to its end on a thread of its own.
private final class Reader: @unchecked Sendable {
    // @unchecked: `data` is written by the thread before `done` is signalled, read after.
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }
    }

    func text() -> String {
        done.wait()
        return String(decoding: data, as: UTF8.self)
    }
}

/// What a pseudo-terminal shows, read as it comes.
private final class Screen: @unchecked Sendable {
    // @unchecked: `data` is guarded by `lock`.
    private var data = Data()
    private let lock = NSLock()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                lock.lock()
                data.append(chunk)
                lock.unlock()
            }
            done.signal()
        }
    }

    func text() -> String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: data, as: UTF8.self)
    }

    func waitForEnd() {
        done.wait()
    }
}
