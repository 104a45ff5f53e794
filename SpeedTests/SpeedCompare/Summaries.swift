// Summaries: the results of a run grouped by durability, workload and phase (in report order),
// with each engine's median, its ratio to Larder, and its failures: what every report reads.

import Foundation
import SpeedSupport

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

/// A run's results, grouped.
struct Summaries {
    let options: Options
    /// The engines that ran, in the order asked for.
    let engines: [String]
    let failures: [Failure]
    /// Groups in report order: durability, workload (dependency order), phase (first seen).
    private(set) var groups: [GroupKey] = []
    private(set) var byGroup: [GroupKey: [String: [Result]]] = [:]

    init(results: [Result], failures: [Failure], engines: [String], options: Options) {
        self.options = options
        self.engines = engines
        self.failures = failures
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
    }

    func summary(_ key: GroupKey, _ engine: String) -> Summary? {
        guard let runs = byGroup[key]?[engine], !runs.isEmpty else { return nil }
        let walls = runs.map(\.wall)
        return Summary(runs: runs.count, wall: median(walls), cpu: median(runs.map(\.cpu)),
                       minWall: walls.min() ?? .nan, maxWall: walls.max() ?? .nan,
                       rssKB: median(runs.map { Double($0.rssKB) }), sizeBytes: median(runs.map { Double($0.sizeBytes) }),
                       count: distinct(runs.map(\.count)), check: distinct(runs.map(\.check)))
    }

    /// The ratio shown for an engine: SQLite/Larder, GRDB/Larder (>1: Larder is faster),
    /// Larder/TokyoCabinet (the Swift layer's overhead over raw Tokyo Cabinet).
    func ratio(_ key: GroupKey, _ engine: String) -> (label: String, value: Double)? {
        guard engine != "Larder", let larder = summary(key, "Larder"), let other = summary(key, engine) else { return nil }
        if engine == "TokyoCabinet" { return ("Larder/TokyoCabinet", larder.wall / other.wall) }
        return ("\(engine)/Larder", other.wall / larder.wall)
    }

    func failureCount(_ key: GroupKey, _ engine: String) -> Int {
        failures.filter { $0.durability == key.durability && $0.workload == key.workload && $0.engine == engine }.count
    }
}
