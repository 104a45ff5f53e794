// ChildRun: one workload run in a child process, and the RESULT lines and failures it gives.

import Foundation
import SpeedSupport

struct Result {
    var engine: String
    var workload: String
    var phase: String
    var durability: String
    var wall: Double
    var cpu: Double
    var rssKB: Int
    var sizeBytes: Int
    var count: String
    var check: String
    /// The etcd requests of the phase (the etcd engines' `ranges=` and `txns=`), when reported.
    var ranges: Int?
    var transactions: Int?
}

/// Parses `RESULT key=value ...`; nil for other lines or a line missing a field.
func parseResult(_ line: Substring) -> Result? {
    let tokens = line.split(separator: " ")
    guard tokens.first == "RESULT" else { return nil }
    var fields: [String: String] = [:]
    for token in tokens.dropFirst() {
        guard let equals = token.firstIndex(of: "=") else { continue }
        fields[String(token[..<equals])] = String(token[token.index(after: equals)...])
    }
    guard let engine = fields["engine"], let workload = fields["workload"], let phase = fields["phase"],
          let durability = fields["durability"], let wall = fields["wall"].flatMap(Double.init),
          let cpu = fields["cpu"].flatMap(Double.init) else { return nil }
    return Result(engine: engine, workload: workload, phase: phase, durability: durability, wall: wall, cpu: cpu,
                  rssKB: fields["rss_kb"].flatMap { Int($0) } ?? 0,
                  sizeBytes: fields["size_bytes"].flatMap { Int($0) } ?? 0,
                  count: fields["count"] ?? "", check: fields["check"] ?? "",
                  ranges: fields["ranges"].flatMap { Int($0) }, transactions: fields["txns"].flatMap { Int($0) })
}

struct Failure {
    var durability: String
    var repetition: Int
    var engine: String
    var workload: String
    var reason: String
}

func stderrLine(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

/// Runs a child to completion with stdout and stderr in files (no pipe can fill up), with
/// `environment` added to this process's. Returns nil and a reason if it could not run or failed.
func runChild(_ executable: URL, _ arguments: [String], environment: [String: String] = [:],
              logDirectory: String) -> (output: String, error: String?) {
    let outPath = (logDirectory as NSString).appendingPathComponent("child.stdout")
    let errPath = (logDirectory as NSString).appendingPathComponent("child.stderr")
    let manager = FileManager.default
    guard manager.createFile(atPath: outPath, contents: nil), manager.createFile(atPath: errPath, contents: nil),
          let outHandle = FileHandle(forWritingAtPath: outPath), let errHandle = FileHandle(forWritingAtPath: errPath)
    else { return ("", "cannot create log files in \(logDirectory)") }
    defer {
        try? outHandle.close()
        try? errHandle.close()
        try? manager.removeItem(atPath: outPath)
        try? manager.removeItem(atPath: errPath)
    }
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if !environment.isEmpty {
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    }
    process.standardOutput = outHandle
    process.standardError = errHandle
    process.standardInput = FileHandle.nullDevice
    do {
        try process.run()
    } catch {
        return ("", "cannot start \(executable.path): \(error)")
    }
    process.waitUntilExit()
    let output = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
    let errorText = ((try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "")
        .split(separator: "\n").suffix(5).joined(separator: " / ")
    switch (process.terminationReason, process.terminationStatus) {
    case (.exit, 0): return (output, nil)
    case (.exit, let status): return (output, "exit status \(status)" + (errorText.isEmpty ? "" : ": \(errorText)"))
    case (_, let signal): return (output, "killed by signal \(signal)" + (errorText.isEmpty ? "" : ": \(errorText)"))
    }
}
