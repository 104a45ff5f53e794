// Executable: runs one of the package's executables (built beside the test bundle) to
// completion, for the smoke tests; and the scratch directories they run in.

import Foundation

enum Executable {
    /// Runs the executable `name` with `arguments` (and `environment` added to this process's);
    /// its exit status and everything it printed.
    static func run(_ name: String, _ arguments: [String],
                    environment: [String: String] = [:]) throws -> (status: Int32, text: String) {
        let process = Process()
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let beside = directory.appendingPathComponent(name)
        // Inside an .xctest bundle directory (other platforms): one level up.
        process.executableURL = FileManager.default.isExecutableFile(atPath: beside.path)
            ? beside : directory.deletingLastPathComponent().appendingPathComponent(name)
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// A fresh directory path under the system temporary directory (not created).
    static func scratchDirectory(_ label: String) -> String {
        NSTemporaryDirectory() + "larder-speed-\(label)-\(UUID().uuidString)"
    }
}
