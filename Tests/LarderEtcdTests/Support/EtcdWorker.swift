// Runs LarderEtcdWorker, a client process of an etcd store (its commands: Tests/LarderEtcdWorker/main.swift).

import Foundation
import Testing

/// A running LarderEtcdWorker: its process, and its output read a line at a time.
final class EtcdWorker {
    let process: Process
    private let output: FileHandle
    private let input: Pipe

    /// The worker executable, built beside the test bundle.
    static var url: URL {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let beside = directory.appendingPathComponent("LarderEtcdWorker")
        if FileManager.default.isExecutableFile(atPath: beside.path) { return beside }
        return directory.deletingLastPathComponent().appendingPathComponent("LarderEtcdWorker")
    }

    /// Starts the worker with `command` on the cluster at `endpoints`, store `prefix`, and `arguments`.
    init(_ command: String, endpoints: [String], prefix: String, _ arguments: [String] = []) throws {
        process = Process()
        process.executableURL = Self.url
        process.arguments = [command, endpoints.joined(separator: ","), prefix] + arguments
        let output = Pipe()
        input = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = input
        self.output = output.fileHandleForReading
        try process.run()
    }

    /// The next line the worker prints (blocking); "" when it ended without one.
    func readLine() -> String {
        var bytes: [UInt8] = []
        while true {
            let byte = output.readData(ofLength: 1)
            guard let first = byte.first, first != UInt8(ascii: "\n") else { break }
            bytes.append(first)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Every line the worker prints until it ends.
    func remainingLines() -> [String] {
        let rest = output.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: rest, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// Sends the worker a line on its standard input.
    func send(_ line: String) {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    /// Kills the worker with SIGKILL and waits for it to end; records an issue unless that is
    /// what ended it.
    func killNow(sourceLocation: SourceLocation = #_sourceLocation) {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL,
                "the worker ended by itself (status \(process.terminationStatus)) before the kill",
                sourceLocation: sourceLocation)
    }

    /// Runs the worker to its end and returns its output lines.
    static func run(_ command: String, endpoints: [String], prefix: String, _ arguments: [String] = []) throws -> [String] {
        try EtcdWorker(command, endpoints: endpoints, prefix: prefix, arguments).remainingLines()
    }
}
