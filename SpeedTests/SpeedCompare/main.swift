// SpeedCompare: runs every speed-test workload for every engine, each run in its own child
// process (this file), and reports medians as Markdown tables (stdout and <out>/RESULTS.md:
// MarkdownReport), an SVG bar chart (<out>/results.svg: SVGChart), the README's table
// (ReadmeSummary, with --readme) and machine-readable MEDIAN lines (stdout).
//
//   SpeedCompare [--scale S] [--repeat N] [--dir PATH] [--engines Larder,SQLite,GRDB,TokyoCabinet,LarderEtcd,Etcd]
//                [--durability full,nosync] [--out SpeedTests] [--workloads FullText,...] [--readme README.md]
//                [--etcd-scale 0.1]
//
// The engine executables (<Engine>SpeedTest) sit beside this one; a missing one is skipped with
// a note. Order: for each durability, for each repetition, for each chain of workloads, each
// engine in turn (the engine order is rotated every repetition), the chain's workloads in
// dependency order in a fresh directory:
// ComplexInsert, ComplexFetch, SimpleUpdate (complex store), then SimpleInsert, SimpleFetch,
// SimpleFetchStreaming, PointRead (simple store); FullText (Larder and SQLite FTS5 only);
// Documents (LarderDocuments against SQLite's JSON functions; Larder and SQLite only); Queries
// (Larder's object queries and LarderDocuments against SQLite's indexes; Larder and SQLite only);
// Encryption and Changes (Larder only: its encrypted store, its change feed and history);
// Concurrency (Larder's StorePool against GRDB's DatabasePool; Larder and GRDB only).
// Then the etcd engines (EtcdRuns): Larder on an EtcdBackend and the raw etcd client, on the BNR
// workloads at --etcd-scale, on a 3-member cluster started for them and stopped after.
// Progress goes to stderr.

import Foundation
import SpeedSupport

let options = parseOptions()
let manager = FileManager.default
let binDirectory = executableDirectory()

var engines: [String] = []
var etcdEngines: [String] = []
var notes: [String] = []
for engine in options.engines {
    let path = binDirectory.appendingPathComponent(executableName(of: engine)).path
    if !manager.isExecutableFile(atPath: path) {
        notes.append("\(engine): skipped, no executable at \(path)")
        stderrLine("SpeedCompare: skipping \(engine): no executable at \(path)")
    } else if !isEtcdEngine(engine) {
        engines.append(engine)
    } else if options.etcdScale != nil {
        etcdEngines.append(engine)
    }
}
guard !engines.isEmpty || !etcdEngines.isEmpty else {
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

// Chain by chain, every engine in turn: the engines' runs of one workload lie minutes apart at
// most, so a slow spell of the machine (a host's neighbours, say) weighs on all of them rather
// than on whichever engine's whole suite it fell in.
for durability in options.durabilities where !engines.isEmpty {
    for repetition in 0 ..< options.repetitions {
        let shift = repetition % engines.count
        let order = Array(engines[shift...] + engines[..<shift])
        for chain in chains {
            for engine in order {
                let wanted = workloads(of: engine).intersection(options.workloads)
                guard chain.contains(where: wanted.contains) else { continue }
                let run = EngineRun(engine: engine, executable: binDirectory.appendingPathComponent(executableName(of: engine)),
                                    durability: durability, repetition: repetition + 1, of: options.repetitions,
                                    scale: options.scale, baseDirectory: baseDirectory)
                let outcome = run.runChains(wanted, only: [chain])
                results += outcome.results
                failures += outcome.failures
            }
        }
    }
}

// The etcd engines, at their own scale, on a cluster of their own.
let etcd = EtcdRuns(engines: etcdEngines, options: options, binDirectory: binDirectory, baseDirectory: baseDirectory).run()
failures += etcd.failures
notes += etcd.notes
if ownsBaseDirectory { try? manager.removeItem(atPath: baseDirectory) }

// MARK: - Reports

let summaries = Summaries(results: results, failures: failures, engines: engines, options: options)
let etcdSummaries = etcdEngines.isEmpty ? nil
    : Summaries(results: etcd.results, failures: etcd.failures, engines: etcdEngines, options: options)
let setting = MarkdownReport.Setting(started: started, notes: notes,
                                     storeLocation: ownsBaseDirectory ? "a temporary directory" : "`\(baseDirectory)`",
                                     fileSystem: fileSystem)
let markdown = MarkdownReport(summaries: summaries, etcd: etcdSummaries, setting: setting).text
print(markdown, terminator: "")
for reported in [summaries] + (etcdSummaries.map { [$0] } ?? []) {
    for key in reported.groups {
        for engine in reported.engines {
            guard let s = reported.summary(key, engine) else { continue }
            print("MEDIAN engine=\(engine) workload=\(key.workload) phase=\(key.phase) durability=\(key.durability) wall=\(String(format: "%.9f", s.wall)) cpu=\(String(format: "%.9f", s.cpu))")
        }
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
