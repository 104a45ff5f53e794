// ConcurrencyTable: the Concurrency workload's section of RESULTS.md: reads per second of Larder's
// StorePool and GRDB's DatabasePool with 1 and 2 reader tasks, with and without a writer task
// saving in a loop, for point reads and reads of 20 songs; and the ratios the issue sets targets
// for: 2 readers at least 1.7× one reader, a running writer costing readers under 20%, Larder at
// least 2× GRDB in each scenario. A Concurrency phase's wall is the time per read (all readers
// together), so a rate is its inverse (ConcurrencyRun).

import SpeedSupport

/// The Concurrency section of a run's report.
struct ConcurrencyTable {
    let summaries: Summaries

    private static let engines = ["Larder", "GRDB"]
    /// The least 2-readers/1-reader throughput ratio the issue asks for.
    private static let scalingTarget = 1.7
    /// The most a running writer may take from the readers' throughput.
    private static let writerCostTarget = 0.2
    /// The least Larder/GRDB throughput ratio, in every scenario.
    private static let versusGRDBTarget = 2.0

    /// The section's lines; empty when the run has no Concurrency result.
    var lines: [String] {
        var lines: [String] = []
        for durability in summaries.options.durabilities {
            func rate(_ phase: String, _ engine: String) -> Double? {
                summaries.summary(GroupKey(durability: durability, workload: Workload.concurrency.rawValue, phase: phase), engine)
                    .map { 1 / $0.wall }
            }
            func scenario(_ operation: ConcurrencyRun.Operation, _ readers: Int, _ writer: Bool) -> ConcurrencyRun.Scenario {
                ConcurrencyRun.Scenario(operation: operation, readers: readers, writer: writer)
            }
            guard ConcurrencyRun.allScenarios.contains(where: { rate($0.phase, "Larder") != nil || rate($0.phase, "GRDB") != nil })
            else { continue }
            if lines.isEmpty {
                lines += ["## Concurrency: Larder's StorePool against GRDB's DatabasePool", "",
                          "Reads per second of all reader tasks together (median of the runs), each reader a task calling "
                              + "the async `read` in a loop for a fixed time, the writer a task calling `write` in a loop, "
                              + "each write retitling one random song (one save). `point`: one song by rowID; `fetch20`: 20 "
                              + "songs of consecutive rowIDs. Targets: 2 readers at least "
                              + "\(formatRatio(Self.scalingTarget)) one reader; a running writer costing readers under "
                              + "\(Int(Self.writerCostTarget * 100))% (1 − with/without); Larder at least "
                              + "\(formatRatio(Self.versusGRDBTarget)) GRDB in each scenario. ✓ a target met, ✗ missed.", ""]
            }
            lines += ["Durability \(durability):", "",
                      "| operation | readers | Larder reads/s | GRDB reads/s | Larder/GRDB | Larder writes/s | GRDB writes/s |",
                      "|---|---|---:|---:|---:|---:|---:|"]
            for scenario in ConcurrencyRun.allScenarios {
                let larder = rate(scenario.phase, "Larder"), grdb = rate(scenario.phase, "GRDB")
                var versus = "–"
                if let larder, let grdb { versus = formatRatio(larder / grdb) + mark(larder / grdb >= Self.versusGRDBTarget) }
                let writes = Self.engines.map { engine in
                    scenario.writer ? rate(scenario.writesPhase, engine).map(formatRate) ?? "–" : ""
                }
                let readers = "\(scenario.readers)" + (scenario.writer ? " + writer" : "")
                lines.append("| \(scenario.operation.rawValue) | \(readers) | \(larder.map(formatRate) ?? "–") | "
                                 + "\(grdb.map(formatRate) ?? "–") | \(versus) | \(writes[0]) | \(writes[1]) |")
            }
            lines += ["",
                      "| operation | engine | 2 readers / 1 (≥ \(formatRatio(Self.scalingTarget))) | 2 readers / 1, with writer | "
                          + "writer cost, 1 reader (< \(Int(Self.writerCostTarget * 100))%) | writer cost, 2 readers (< \(Int(Self.writerCostTarget * 100))%) |",
                      "|---|---|---:|---:|---:|---:|"]
            for operation in ConcurrencyRun.Operation.allCases {
                for engine in Self.engines {
                    func value(_ readers: Int, _ writer: Bool) -> Double? { rate(scenario(operation, readers, writer).phase, engine) }
                    guard value(1, false) != nil else { continue }
                    func scaling(_ writer: Bool, target: Bool) -> String {
                        guard let one = value(1, writer), let two = value(2, writer) else { return "–" }
                        return formatRatio(two / one) + (target ? mark(two / one >= Self.scalingTarget) : "")
                    }
                    func cost(_ readers: Int) -> String {
                        guard let without = value(readers, false), let with = value(readers, true) else { return "–" }
                        let cost = 1 - with / without
                        var text = String(format: "%.0f%%", cost * 100) + mark(cost < Self.writerCostTarget)
                        // A writer that hardly writes costs the readers little: say so when it
                        // wrote less than half as often as beside one reader.
                        let writes = { (readers: Int) in rate(scenario(operation, readers, true).writesPhase, engine) }
                        if readers > 1, let alone = writes(1), let here = writes(readers), here < alone / 2 {
                            text += " (writer starved: \(formatRate(here)) writes/s, \(formatRate(alone)) beside 1 reader)"
                        }
                        return text
                    }
                    lines.append("| \(operation.rawValue) | \(engine) | \(scaling(false, target: true)) | \(scaling(true, target: false)) | "
                                     + "\(cost(1)) | \(cost(2)) |")
                }
            }
            lines.append("")
        }
        return lines
    }

    private func mark(_ met: Bool) -> String { met ? " ✓" : " ✗" }

    /// A rate for people: "412k", "8,310", "95.2".
    private func formatRate(_ perSecond: Double) -> String {
        guard perSecond.isFinite else { return "–" }
        if perSecond >= 100_000 { return String(format: "%.0fk", perSecond / 1e3) }
        if perSecond >= 10_000 { return String(format: "%.1fk", perSecond / 1e3) }
        if perSecond >= 100 { return String(format: "%.0f", perSecond) }
        return String(format: "%.1f", perSecond)
    }
}
