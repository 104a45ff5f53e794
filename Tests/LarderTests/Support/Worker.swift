// Runs LarderCrashWorker, the child process of the crash and multi-process tests.

import Foundation

enum Worker {
    /// The worker executable, built beside the test bundle.
    static var url: URL {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let beside = directory.appendingPathComponent("LarderCrashWorker")
        if FileManager.default.isExecutableFile(atPath: beside.path) { return beside }
        // Inside an .xctest bundle directory (other platforms): look one level up.
        return directory.deletingLastPathComponent().appendingPathComponent("LarderCrashWorker")
    }

    /// Starts the worker with `arguments`; its standard output goes to the returned pipe.
    static func start(_ arguments: [String], input: Pipe? = nil) throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        if let input { process.standardInput = input }
        try process.run()
        return (process, output)
    }

    /// Runs the worker to completion and returns its output, trimmed.
    static func run(_ arguments: [String]) throws -> String {
        let (process, output) = try start(arguments)
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs another executable of the package (built beside the test bundle) to completion.
    static func runExecutable(_ name: String, _ arguments: [String]) throws -> (status: Int32, text: String) {
        let process = Process()
        process.executableURL = url.deletingLastPathComponent().appendingPathComponent(name)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
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
