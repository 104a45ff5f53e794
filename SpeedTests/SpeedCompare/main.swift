// SpeedCompare: runs every speed-test workload for every engine, each run in its own child
// process (this file), and reports medians as Markdown tables (stdout and <out>/RESULTS.md:
// MarkdownReport), an SVG bar chart (<out>/results.svg: SVGChart), the README's table
// (ReadmeSummary, with --readme) and machine-readable MEDIAN lines (stdout).
//
//   SpeedCompare [--scale S] [--repeat N] [--dir PATH] [--engines Larder,SQLite,GRDB,TokyoCabinet]
//                [--durability full,nosync] [--out SpeedTests] [--workloads FullText,...] [--readme README.md]
//
// The engine executables (<Engine>SpeedTest) sit beside this one; a missing one is skipped with
// a note. Order: for each durability, for each repetition, for each engine (the engine order is
// rotated every repetition), the workloads in dependency order in a fresh directory:
// ComplexInsert, ComplexFetch, SimpleUpdate (complex store), then SimpleInsert, SimpleFetch,
// SimpleFetchStreaming, PointRead (simple store); FullText (Larder and SQLite FTS5 only);
// Documents (LarderDocuments against SQLite's JSON functions; Larder and SQLite only); Queries
// (Larder's object queries and LarderDocuments against SQLite's indexes; Larder and SQLite only);
// Encryption and Changes (Larder only: its encrypted store, its change feed and history);
// Concurrency (Larder's StorePool against GRDB's DatabasePool; Larder and GRDB only).
// Progress goes to stderr.

import Foundation
import SpeedSupport

let options = parseOptions()
let manager = FileManager.default
let binDirectory = executableDirectory()

var engines: [String] = []
var notes: [String] = []
for engine in options.engines {
    let path = binDirectory.appendingPathComponent("\(engine)SpeedTest").path
    if manager.isExecutableFile(atPath: path) {
        engines.append(engine)
    } else {
        notes.append("\(engine): skipped, no executable at \(path)")
        stderrLine("SpeedCompare: skipping \(engine): no executable at \(path)")
    }
}
guard !engines.isEmpty else {
    stderrLine("SpeedCompare: no engine executable found beside \(binDirectory.path)")
    exit(1)
}

let ownsBaseDirectory = options.directory == nil
let baseDirectory = options.directory
    ?? (NSTemporaryDirectory() as NSString).appendingPathComponent("SpeedCompare-\(getpid())-\(UInt32.random(in: 0 ... .max))")
do {
    try manager.createDirectory(atPath: baseDirectory, withIntermediateDirectories: true)
} catch {
    stderrLine("SpeedCompare: cannot create \(baseDirectory): \(error)")
    exit(1)
}
let fileSystem = commandOutput("/usr/bin/stat", ["-f", "-c", "%T", baseDirectory]) ?? "unknown"

var results: [Result] = []
var failures: [Failure] = []
let started = Date()

for durability in options.durabilities {
    for repetition in 0 ..< options.repetitions {
        let shift = repetition % engines.count
        let order = Array(engines[shift...] + engines[..<shift])
        for engine in order {
            let executable = binDirectory.appendingPathComponent("\(engine)SpeedTest")
            let runDirectory = (baseDirectory as NSString).appendingPathComponent("\(durability)-r\(repetition + 1)-\(engine)")
            try? manager.removeItem(atPath: runDirectory)
            let supported = workloads(of: engine)
            for chain in chains {
                var brokenBy: Workload?
                for workload in chain where supported.contains(workload) && options.workloads.contains(workload) {
                    let label = "[\(durability) r\(repetition + 1)/\(options.repetitions)] \(engine) \(workload.rawValue)"
                    if let brokenBy {
                        failures.append(Failure(durability: durability, repetition: repetition + 1, engine: engine,
                                                workload: workload.rawValue,
                                                reason: "not run: \(brokenBy.rawValue) failed"))
                        stderrLine("\(label): not run, \(brokenBy.rawValue) failed")
                        continue
                    }
                    let arguments = [workload.rawValue, "--dir", runDirectory, "--scale", options.scale,
                                     "--durability", durability]
                    let start = Date()
                    let (output, error) = runChild(executable, arguments, logDirectory: baseDirectory)
                    var parsed: [Result] = []
                    for line in output.split(separator: "\n") {
                        if let result = parseResult(line) { parsed.append(result) }
                    }
                    // Only lines that belong to this run count.
                    parsed = parsed.filter { $0.engine == engine && $0.workload == workload.rawValue && $0.durability == durability }
                    var reason = error
                    if reason == nil && parsed.isEmpty { reason = "no RESULT line" }
                    if let reason {
                        failures.append(Failure(durability: durability, repetition: repetition + 1, engine: engine,
                                                workload: workload.rawValue, reason: reason))
                        stderrLine("\(label): FAILED (\(reason))")
                        // A write that failed leaves no store for the rest of its chain.
                        if workload == chain.first { brokenBy = workload }
                        continue
                    }
                    results += parsed
                    let summary = parsed.map { "\($0.phase) \(formatTime($0.wall))" }.suffix(3).joined(separator: ", ")
                    stderrLine("\(label): \(summary) (\(String(format: "%.1f", Date().timeIntervalSince(start))) s)")
                }
            }
            do {
                if manager.fileExists(atPath: runDirectory) { try manager.removeItem(atPath: runDirectory) }
            } catch {
                stderrLine("SpeedCompare: cannot remove \(runDirectory): \(error)")
            }
        }
    }
}
if ownsBaseDirectory { try? manager.removeItem(atPath: baseDirectory) }

// MARK: - Reports

let summaries = Summaries(results: results, failures: failures, engines: engines, options: options)
let setting = MarkdownReport.Setting(started: started, notes: notes,
                                     storeLocation: ownsBaseDirectory ? "a temporary directory" : "`\(baseDirectory)`",
                                     fileSystem: fileSystem)
let markdown = MarkdownReport(summaries: summaries, setting: setting).text
print(markdown, terminator: "")
for key in summaries.groups {
    for engine in engines {
        guard let s = summaries.summary(key, engine) else { continue }
        print("MEDIAN engine=\(engine) workload=\(key.workload) phase=\(key.phase) durability=\(key.durability) wall=\(String(format: "%.9f", s.wall)) cpu=\(String(format: "%.9f", s.cpu))")
    }
}

do {
    try manager.createDirectory(atPath: options.out, withIntermediateDirectories: true)
    try markdown.write(toFile: (options.out as NSString).appendingPathComponent("RESULTS.md"), atomically: true, encoding: .utf8)
    try SVGChart(summaries: summaries).text
        .write(toFile: (options.out as NSString).appendingPathComponent("results.svg"), atomically: true, encoding: .utf8)
    stderrLine("SpeedCompare: wrote \(options.out)/RESULTS.md and \(options.out)/results.svg")
    if let readme = options.readme {
        let text = try String(contentsOfFile: readme, encoding: .utf8)
        guard let updated = ReadmeSummary(summaries: summaries).replacingBlock(in: text) else {
            stderrLine("SpeedCompare: \(readme) has no \(ReadmeSummary.beginMarker) ... \(ReadmeSummary.endMarker) block")
            exit(1)
        }
        try updated.write(toFile: readme, atomically: true, encoding: .utf8)
        stderrLine("SpeedCompare: updated the speed summary in \(readme)")
    }
} catch {
    stderrLine("SpeedCompare: cannot write the reports: \(error)")
    exit(1)
}
exit(failures.isEmpty ? 0 : 1)
