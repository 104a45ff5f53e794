// SpeedCompare: runs every speed-test workload for every engine, each run in its own child
// process, and reports medians as Markdown tables (stdout and <out>/RESULTS.md), an SVG bar
// chart (<out>/results.svg) and machine-readable MEDIAN lines (stdout).
//
//   SpeedCompare [--scale S] [--repeat N] [--dir PATH] [--engines Larder,SQLite,GRDB,TokyoCabinet]
//                [--durability full,nosync] [--out SpeedTests] [--workloads FullText,...]
//
// The engine executables (<Engine>SpeedTest) sit beside this one; a missing one is skipped with
// a note. Order: for each durability, for each repetition, for each engine (the engine order is
// rotated every repetition), the workloads in dependency order in a fresh directory:
// ComplexInsert, ComplexFetch, SimpleUpdate (complex store), then SimpleInsert, SimpleFetch,
// SimpleFetchStreaming, PointRead (simple store); FullText (Larder and SQLite FTS5 only);
// Documents (LarderDocuments against SQLite's JSON functions; Larder and SQLite only). Progress
// goes to stderr.

import Foundation
import SpeedSupport

// MARK: - Command line

struct Options {
    var scale = "1"
    var repetitions = 3
    var directory: String?
    var engines = ["Larder", "SQLite", "GRDB", "TokyoCabinet"]
    var durabilities = ["full", "nosync"]
    var out = "SpeedTests"
    var workloads = Set(Workload.allCases)
}

func usage(_ message: String? = nil) -> Never {
    if let message { FileHandle.standardError.write(Data("SpeedCompare: \(message)\n".utf8)) }
    FileHandle.standardError.write(Data("""
        usage: SpeedCompare [--scale S] [--repeat N] [--dir PATH] [--engines Larder,SQLite,GRDB,TokyoCabinet]
                            [--durability full,nosync] [--out SpeedTests] [--workloads FullText,...]

        """.utf8))
    exit(2)
}

func parseOptions() -> Options {
    var options = Options()
    var arguments = Array(CommandLine.arguments.dropFirst())
    func list(_ value: String) -> [String] {
        value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
    while !arguments.isEmpty {
        let flag = arguments.removeFirst()
        if flag == "--help" || flag == "-h" { usage() }
        guard !arguments.isEmpty else { usage("\(flag) needs a value") }
        let value = arguments.removeFirst()
        switch flag {
        case "--scale":
            guard let scale = Double(value), scale > 0 else { usage("bad --scale \(value)") }
            _ = scale
            options.scale = value
        case "--repeat":
            guard let n = Int(value), n > 0 else { usage("bad --repeat \(value)") }
            options.repetitions = n
        case "--dir": options.directory = value
        case "--engines":
            options.engines = list(value)
            guard !options.engines.isEmpty else { usage("no engines") }
        case "--durability":
            options.durabilities = list(value)
            guard !options.durabilities.isEmpty, options.durabilities.allSatisfy({ ["full", "nosync"].contains($0) })
            else { usage("bad --durability \(value)") }
        case "--out": options.out = value
        case "--workloads":
            let names = list(value)
            options.workloads = Set(names.compactMap { Workload(rawValue: $0) })
            guard options.workloads.count == names.count, !names.isEmpty else { usage("bad --workloads \(value)") }
        default: usage("unknown option \(flag)")
        }
    }
    return options
}

// MARK: - Workloads and engines

/// The two dependency chains: each workload needs the store written by the first of its chain.
let chains: [[Workload]] = [
    [.complexInsert, .complexFetch, .simpleUpdate],
    [.simpleInsert, .simpleFetch, .simpleFetchStreaming, .pointRead],
    [.fullText],
    [.documents],
]
let workloadOrder: [Workload] = chains.flatMap { $0 }

/// The workloads an engine runs (TokyoCabinet is the raw ceiling for the simple workloads only).
func workloads(of engine: String) -> Set<Workload> {
    if engine == "TokyoCabinet" { return [.simpleInsert, .simpleFetch, .pointRead] }
    // FullText compares with SQLite FTS5, Documents with SQLite's JSON functions: no GRDB side.
    return engine == "GRDB" ? Set(Workload.allCases).subtracting([.fullText, .documents]) : Set(Workload.allCases)
}

/// Where this executable lives: `dirname argv0`, or /proc/self/exe when argv0 has no slash.
func executableDirectory() -> URL {
    let argv0 = CommandLine.arguments.first ?? ""
    if argv0.contains("/") {
        return URL(fileURLWithPath: argv0).deletingLastPathComponent().standardizedFileURL
    }
    if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
        return URL(fileURLWithPath: path).deletingLastPathComponent()
    }
    return URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
}

// MARK: - Results

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
                  count: fields["count"] ?? "", check: fields["check"] ?? "")
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

/// Runs a child to completion with stdout and stderr in files (no pipe can fill up).
/// Returns nil and a reason if it could not run or failed.
func runChild(_ executable: URL, _ arguments: [String], logDirectory: String) -> (output: String, error: String?) {
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

// MARK: - Statistics and formatting

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/// A time for people: "1.23 s", "45.6 ms", "789 µs".
func formatTime(_ seconds: Double) -> String {
    guard seconds.isFinite else { return "–" }
    if seconds >= 100 { return String(format: "%.0f s", seconds) }
    if seconds >= 10 { return String(format: "%.1f s", seconds) }
    if seconds >= 1 { return String(format: "%.2f s", seconds) }
    if seconds >= 0.1 { return String(format: "%.0f ms", seconds * 1e3) }
    if seconds >= 0.01 { return String(format: "%.1f ms", seconds * 1e3) }
    if seconds >= 0.001 { return String(format: "%.2f ms", seconds * 1e3) }
    return String(format: "%.0f µs", seconds * 1e6)
}

func formatRatio(_ ratio: Double) -> String {
    ratio.isFinite ? String(format: "%.2f×", ratio) : "–"
}

func formatMB(_ bytes: Double) -> String {
    String(format: "%.1f", bytes / 1_048_576)
}

/// Distinct values in first-seen order, joined for a table cell.
func distinct(_ values: [String]) -> String {
    var seen: [String] = []
    for value in values where !seen.contains(value) { seen.append(value) }
    return seen.joined(separator: " / ")
}

/// Makes text safe inside a Markdown table cell.
func cell(_ text: String) -> String {
    text.replacingOccurrences(of: "|", with: "\\|")
}

func xml(_ text: String) -> String {
    text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
        .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
}

/// The trimmed output of a command, or nil.
func commandOutput(_ path: String, _ arguments: [String]) -> String? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    do { try process.run() } catch { return nil }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { return nil }
    return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
}

// MARK: - Run everything

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

// MARK: - Aggregate

struct GroupKey: Hashable {
    var durability: String
    var workload: String
    var phase: String
}

struct Summary {
    var runs: Int
    var wall: Double
    var cpu: Double
    var minWall: Double
    var maxWall: Double
    var rssKB: Double
    var sizeBytes: Double
    var count: String
    var check: String
}

/// Groups in report order: durability, workload (dependency order), phase (first seen).
var groups: [GroupKey] = []
var byGroup: [GroupKey: [String: [Result]]] = [:]
for result in results {
    let key = GroupKey(durability: result.durability, workload: result.workload, phase: result.phase)
    if byGroup[key] == nil { groups.append(key) }
    byGroup[key, default: [:]][result.engine, default: []].append(result)
}
let phaseOrder = Dictionary(groups.enumerated().map { ($0.element, $0.offset) }, uniquingKeysWith: { first, _ in first })
func rank(_ workload: String) -> Int {
    workloadOrder.firstIndex { $0.rawValue == workload } ?? workloadOrder.count
}
groups.sort {
    let d0 = options.durabilities.firstIndex(of: $0.durability) ?? 0, d1 = options.durabilities.firstIndex(of: $1.durability) ?? 0
    if d0 != d1 { return d0 < d1 }
    if $0.workload != $1.workload { return rank($0.workload) < rank($1.workload) }
    return (phaseOrder[$0] ?? 0) < (phaseOrder[$1] ?? 0)
}

@MainActor func summary(_ key: GroupKey, _ engine: String) -> Summary? {
    guard let runs = byGroup[key]?[engine], !runs.isEmpty else { return nil }
    let walls = runs.map(\.wall)
    return Summary(runs: runs.count, wall: median(walls), cpu: median(runs.map(\.cpu)),
                   minWall: walls.min() ?? .nan, maxWall: walls.max() ?? .nan,
                   rssKB: median(runs.map { Double($0.rssKB) }), sizeBytes: median(runs.map { Double($0.sizeBytes) }),
                   count: distinct(runs.map(\.count)), check: distinct(runs.map(\.check)))
}

/// The ratio shown for an engine: SQLite/Larder, GRDB/Larder (>1: Larder is faster),
/// Larder/TokyoCabinet (the Swift layer's overhead over raw Tokyo Cabinet).
@MainActor func ratio(_ key: GroupKey, _ engine: String) -> (label: String, value: Double)? {
    guard engine != "Larder", let larder = summary(key, "Larder"), let other = summary(key, engine) else { return nil }
    if engine == "TokyoCabinet" { return ("Larder/TokyoCabinet", larder.wall / other.wall) }
    return ("\(engine)/Larder", other.wall / larder.wall)
}

@MainActor func failureCount(_ key: GroupKey, _ engine: String) -> Int {
    failures.filter { $0.durability == key.durability && $0.workload == key.workload && $0.engine == engine }.count
}

// MARK: - Markdown

var markdown = ""
@MainActor func line(_ text: String = "") { markdown += text + "\n" }

let dateFormatter = ISO8601DateFormatter()
dateFormatter.formatOptions = [.withInternetDateTime]
let memTotal = ((try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8)) ?? "")
    .split(separator: "\n").first { $0.hasPrefix("MemTotal:") }
    .map { $0.dropFirst("MemTotal:".count).trimmingCharacters(in: .whitespaces) } ?? "unknown"
let memGiB = Double(memTotal.split(separator: " ").first.flatMap { Double($0) } ?? 0) / 1_048_576
let uname = commandOutput("/usr/bin/uname", ["-a"]) ?? commandOutput("/bin/uname", ["-a"]) ?? "unknown"
let nproc = commandOutput("/usr/bin/nproc", []) ?? String(ProcessInfo.processInfo.activeProcessorCount)
let sizes = WorkloadSizes(scale: Double(options.scale) ?? 1)

line("# Larder speed comparison")
line()
line("- Date: \(dateFormatter.string(from: started)) (run took \(formatTime(Date().timeIntervalSince(started))))")
line("- Scale: \(options.scale) (ComplexInsert: \(sizes.complexRounds) rounds of \(sizes.complexSongs) songs and \(sizes.complexPlaylists) playlists of \(sizes.songsPerPlaylist) songs; SimpleInsert: \(sizes.simpleSongs) songs; PointRead: \(sizes.pointReads) lookups; FullText: \(sizes.fullTextTitles) titles)")
line("- Repetitions: \(options.repetitions); every number is the median over the repetitions")
line("- Engines: \(engines.joined(separator: ", ")); durability: \(options.durabilities.joined(separator: ", "))")
line("- Machine: `\(uname)`; nproc \(nproc); MemTotal \(memTotal) (\(String(format: "%.1f", memGiB)) GiB)")
line("- Stores: \(ownsBaseDirectory ? "a temporary directory" : "`\(baseDirectory)`") on \(fileSystem)")
for note in notes { line("- Note: \(note)") }
line()
line("""
    Notes:

    - Each workload ran in its own process (`<Engine>SpeedTest <Workload> --dir … --scale … --durability …`), \
    in a fresh directory per engine and repetition, in dependency order (ComplexInsert → ComplexFetch → \
    SimpleUpdate; SimpleInsert → SimpleFetch → SimpleFetchStreaming → PointRead; FullText; Documents, Larder and \
    SQLite only: LarderDocuments against SQLite's JSON functions); the engine order was rotated \
    every repetition. Fetches therefore read a store just written (warm page cache) for every engine.
    - Durability `full`: each engine's durable commit (SQLite and GRDB: WAL + `synchronous=FULL`); \
    `nosync`: no fsync (WAL + `synchronous=OFF`).
    - Ratios compare median wall times: `SQLite/Larder` and `GRDB/Larder` > 1 means Larder is faster; \
    `Larder/TokyoCabinet` is the overhead of Larder's Swift layer over raw Tokyo Cabinet.
    - Debian's libtokyocabinet is built with `--enable-uyield`, which makes Tokyo Cabinet about 2× slower than \
    a default build; Larder (on the same library) and TokyoCabinet pay that cost, SQLite and GRDB do not.
    - Peak RSS is the process's peak resident set size; store size is the engine's store on disk after the \
    phase (MB = 2^20 bytes). count/check are values each run read back, to show the engines did the same work.
    """)
line()

if !failures.isEmpty {
    line("## Failures")
    line()
    line("| durability | rep | engine | workload | reason |")
    line("|---|---|---|---|---|")
    for failure in failures {
        line("| \(failure.durability) | \(failure.repetition) | \(failure.engine) | \(failure.workload) | \(cell(failure.reason)) |")
    }
    line()
}

// Summary: one table per durability, one row per workload phase.
let ratioEngines = engines.filter { $0 != "Larder" }
for durability in options.durabilities {
    let keys = groups.filter { $0.durability == durability }
    guard !keys.isEmpty else { continue }
    line("## Summary, durability \(durability) (median wall time)")
    line()
    var header = "| workload | phase |" + engines.map { " \($0) |" }.joined()
    var rule = "|---|---|" + engines.map { _ in "---:|" }.joined()
    if engines.contains("Larder") {
        for engine in ratioEngines {
            header += engine == "TokyoCabinet" ? " Larder/TokyoCabinet |" : " \(engine)/Larder |"
            rule += "---:|"
        }
    }
    line(header)
    line(rule)
    for key in keys {
        // A phase that takes no time reports a size (an index's bytes): show the size.
        let sizes = engines.compactMap { summary(key, $0) }.allSatisfy { $0.wall == 0 }
        var row = "| \(key.workload) | \(key.phase)\(sizes ? " (size)" : "") |"
        for engine in engines {
            let cell = summary(key, engine).map { sizes ? formatMB($0.sizeBytes) + " MB" : formatTime($0.wall) }
            row += " \(cell ?? (failureCount(key, engine) > 0 ? "failed" : "–")) |"
        }
        if engines.contains("Larder") {
            for engine in ratioEngines {
                let value = sizes
                    ? summary(key, "Larder").flatMap { larder in summary(key, engine).map { $0.sizeBytes / larder.sizeBytes } }
                    : ratio(key, engine).map(\.value)
                row += " \(value.map(formatRatio) ?? "–") |"
            }
        }
        line(row)
    }
    line()
}

// Compaction: Larder's store before and after `compact()` at the end of each chain of workloads.
let compactions = groups.filter { $0.phase == "compact" }.compactMap { key in summary(key, "Larder").map { (key, $0) } }
if !compactions.isEmpty {
    line("## Compaction (Larder)")
    line()
    line("`compact()` after the last phase of a chain of workloads (every update done): the store's size on disk before and after (median), and the time it took.")
    line()
    line("| workload | durability | before (MB) | after (MB) | after/before | time |")
    line("|---|---|---:|---:|---:|---:|")
    for (key, s) in compactions {
        let runs = byGroup[key]?["Larder"] ?? []
        let before = median(runs.map { $0.check.split(separator: "_").last.flatMap { Double($0) } ?? .nan })
        line("| \(key.workload) | \(key.durability) | \(formatMB(before)) | \(formatMB(s.sizeBytes)) | \(formatRatio(s.sizeBytes / before)) | \(formatTime(s.wall)) |")
    }
    line()
}

// Details: one table per durability and workload, rows per phase and engine.
for durability in options.durabilities {
    for workload in workloadOrder {
        let keys = groups.filter { $0.durability == durability && $0.workload == workload.rawValue }
        guard !keys.isEmpty else { continue }
        line("## \(workload.rawValue), durability \(durability)")
        line()
        line("| phase | engine | wall (median) | wall min–max | cpu (median) | ratio | peak RSS (MB) | store (MB) | runs | count | check |")
        line("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
        for key in keys {
            for engine in engines where workloads(of: engine).contains(workload) {
                guard let s = summary(key, engine) else {
                    let failed = failureCount(key, engine)
                    line("| \(key.phase) | \(engine) | \(failed > 0 ? "failed (\(failed)×)" : "no result") | | | | | | 0 | | |")
                    continue
                }
                let ratioText = ratio(key, engine).map { "\($0.label) \(formatRatio($0.value))" } ?? "–"
                line("| \(key.phase) | \(engine) | \(formatTime(s.wall)) | \(formatTime(s.minWall))–\(formatTime(s.maxWall)) | \(formatTime(s.cpu)) | \(ratioText) | \(formatMB(s.rssKB * 1024)) | \(formatMB(s.sizeBytes)) | \(s.runs) | \(cell(s.count)) | \(cell(s.check)) |")
            }
        }
        line()
    }
}

print(markdown, terminator: "")
for key in groups {
    for engine in engines {
        guard let s = summary(key, engine) else { continue }
        print("MEDIAN engine=\(engine) workload=\(key.workload) phase=\(key.phase) durability=\(key.durability) wall=\(String(format: "%.6f", s.wall)) cpu=\(String(format: "%.6f", s.cpu))")
    }
}

// MARK: - SVG chart

/// The chart leaves out ComplexInsert's middle rounds (they are in the tables).
let chartGroups = groups.filter { key in
    guard key.workload == Workload.complexInsert.rawValue, key.phase.hasPrefix("round") else { return true }
    return key.phase == "round1" || key.phase == "round\(sizes.complexRounds)"
}
let palette: [String: String] = ["Larder": "#1f77b4", "SQLite": "#ff7f0e", "GRDB": "#2ca02c", "TokyoCabinet": "#7f7f7f"]
let extraColors = ["#9467bd", "#8c564b", "#e377c2", "#17becf"]
@MainActor func color(_ engine: String) -> String {
    palette[engine] ?? extraColors[(engines.firstIndex(of: engine) ?? 0) % extraColors.count]
}

let width = 1000.0, labelRight = 200.0, barLeft = 210.0, barMax = 520.0
let barHeight = 14.0, barGap = 4.0, groupTitle = 20.0, groupGap = 14.0
var svgBody = ""
var y = 84.0
var lastDurability = ""
for key in chartGroups {
    let present = engines.compactMap { engine in summary(key, engine).map { (engine, $0) } }
    guard !present.isEmpty else { continue }
    if key.durability != lastDurability {
        lastDurability = key.durability
        svgBody += "<text x=\"10\" y=\"\(y + 4)\" font-size=\"16\" font-weight=\"bold\">Durability \(xml(key.durability))</text>\n"
        y += 26
    }
    let slowest = present.map { $0.1.wall }.max() ?? 1
    svgBody += "<text x=\"10\" y=\"\(y + 13)\" font-size=\"13\" font-weight=\"bold\">\(xml(key.workload)) · \(xml(key.phase))</text>\n"
    y += groupTitle
    for (engine, s) in present {
        let length = slowest > 0 ? max(1, s.wall / slowest * barMax) : 1
        var label = formatTime(s.wall)
        if let r = ratio(key, engine) { label += " (\(r.label) \(formatRatio(r.value)))" }
        svgBody += "<text x=\"\(labelRight)\" y=\"\(y + barHeight - 3)\" text-anchor=\"end\">\(xml(engine))</text>"
        svgBody += "<rect x=\"\(barLeft)\" y=\"\(y)\" width=\"\(String(format: "%.1f", length))\" height=\"\(barHeight)\" fill=\"\(color(engine))\"/>"
        svgBody += "<text x=\"\(String(format: "%.1f", barLeft + length + 6))\" y=\"\(y + barHeight - 3)\">\(xml(label))</text>\n"
        y += barHeight + barGap
    }
    y += groupGap
}
var legend = ""
var legendX = 10.0
for engine in engines {
    legend += "<rect x=\"\(legendX)\" y=\"52\" width=\"12\" height=\"12\" fill=\"\(color(engine))\"/><text x=\"\(legendX + 16)\" y=\"62\">\(xml(engine))</text>"
    legendX += 30 + Double(engine.count) * 8
}
let title = "Larder speed comparison: scale \(options.scale), median of \(options.repetitions) runs"
let subtitle = "Median wall time; each bar is relative to the slowest engine of its group (shorter is faster). ComplexInsert rounds 2–\(sizes.complexRounds - 1) are in RESULTS.md."
let svg = """
    <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(y + 10))" viewBox="0 0 \(Int(width)) \(Int(y + 10))" font-family="Helvetica, Arial, sans-serif" font-size="12">
    <rect width="100%" height="100%" fill="white"/>
    <text x="10" y="22" font-size="15" font-weight="bold">\(xml(title))</text>
    <text x="10" y="40">\(xml(subtitle))</text>
    \(legend)
    \(svgBody)</svg>

    """

do {
    try manager.createDirectory(atPath: options.out, withIntermediateDirectories: true)
    try markdown.write(toFile: (options.out as NSString).appendingPathComponent("RESULTS.md"), atomically: true, encoding: .utf8)
    try svg.write(toFile: (options.out as NSString).appendingPathComponent("results.svg"), atomically: true, encoding: .utf8)
    stderrLine("SpeedCompare: wrote \(options.out)/RESULTS.md and \(options.out)/results.svg")
} catch {
    stderrLine("SpeedCompare: cannot write to \(options.out): \(error)")
    exit(1)
}
exit(failures.isEmpty ? 0 : 1)
