// EtcdTable: the etcd section of RESULTS.md (issue 26): Larder on an EtcdBackend beside the raw
// etcd client moving the same bytes (the Larder layer's cost, at most 1.5×), and Larder's point
// reads of cached pages on etcd beside the same reads on the Tokyo Cabinet backend at the same
// scale (at most 2×); medians over the repetitions, with each phase's etcd requests.

import SpeedSupport

/// The etcd section of a run's report.
struct EtcdTable {
    /// The etcd engines' results (EtcdRuns).
    let summaries: Summaries

    static let layerTarget = 1.5
    static let pointReadTarget = 2.0
    private static let baselinePrefix = "tokyocabinet_"

    /// The section's lines; empty when the run has no etcd result.
    var lines: [String] {
        var lines: [String] = []
        for durability in summaries.options.durabilities {
            let keys = summaries.groups.filter { $0.durability == durability }
            guard !keys.isEmpty else { continue }
            let scale = summaries.options.etcdScale ?? "–"
            lines += ["## etcd (scale \(scale))", "",
                      "Larder on an `EtcdBackend` (LarderEtcd) and the raw etcd client (Etcd) on a 3-member etcd 3.4 cluster on "
                          + "loopback, on the BNR workloads at scale \(scale) (median wall time). The raw client makes, for each "
                          + "phase, the backend calls Larder made in it, recorded on a memory backend: each batch's records put in "
                          + "unconditional transactions of up to 128 operations, each point read a range read of its key, each "
                          + "scan range reads of up to 512 keys, all serializable; no cache, no pinned revision, no staged commit. "
                          + "Requests are the cluster's range reads / transactions in the phase (its members' gRPC counters). "
                          + "Targets (issue 26): Larder within \(formatRatio(Self.layerTarget)) of the raw client; point reads "
                          + "of cached pages within \(formatRatio(Self.pointReadTarget)) of the Tokyo Cabinet backend. "
                          + "✓ a target met, ✗ missed.", "",
                      "| workload | phase | raw client | Larder on etcd | ratio | target | requests raw | requests Larder |",
                      "|---|---|---:|---:|---:|---:|---:|---:|"]
            for key in keys where !key.phase.hasPrefix(Self.baselinePrefix) {
                let raw = summaries.summary(key, "Etcd"), larder = summaries.summary(key, "LarderEtcd")
                lines.append("| \(key.workload) | \(key.phase) | \(time(raw)) | \(time(larder)) | "
                             + "\(ratio(larder, raw, Self.layerTarget)) | ≤ \(formatRatio(Self.layerTarget)) | "
                             + "\(requests(key, "Etcd")) | \(requests(key, "LarderEtcd")) |")
            }
            let pointReads = keys.filter { $0.workload == Workload.pointRead.rawValue && !$0.phase.hasPrefix(Self.baselinePrefix) }
            if !pointReads.isEmpty {
                lines += ["", "Point reads (PointRead, the same lookups twice; Tokyo Cabinet: a store of the same songs in a "
                              + "file, written before the clock starts). The first pass reads each page from etcd; the second "
                              + "finds every page cached, and is the one the target is for:", "",
                          "| phase | Larder on Tokyo Cabinet | Larder on etcd | ratio | target |",
                          "|---|---:|---:|---:|---:|"]
                for key in pointReads {
                    var baselineKey = key
                    baselineKey.phase = Self.baselinePrefix + key.phase
                    let baseline = summaries.summary(baselineKey, "LarderEtcd"), measured = summaries.summary(key, "LarderEtcd")
                    // The first pass ("autocommit") fetches the pages: no target.
                    let cached = key.phase != "autocommit"
                    let label = cached ? "\(key.phase) (pages cached)" : "\(key.phase) (pages read from etcd)"
                    let shown = cached ? ratio(measured, baseline, Self.pointReadTarget)
                        : measured.flatMap { m in baseline.map { formatRatio(m.wall / $0.wall) } } ?? "–"
                    lines.append("| \(label) | \(time(baseline)) | \(time(measured)) | \(shown) | "
                                 + (cached ? "≤ \(formatRatio(Self.pointReadTarget))" : "–") + " |")
                }
            }
            lines.append("")
        }
        return lines
    }

    private func time(_ summary: Summary?) -> String { summary.map { formatTime($0.wall) } ?? "–" }

    private func ratio(_ measured: Summary?, _ baseline: Summary?, _ target: Double) -> String {
        guard let measured, let baseline, baseline.wall > 0 else { return "–" }
        let value = measured.wall / baseline.wall
        return formatRatio(value) + (value <= target ? " ✓" : " ✗")
    }

    /// The median range reads / transactions of the phase, or – when not counted.
    private func requests(_ key: GroupKey, _ engine: String) -> String {
        let runs = summaries.byGroup[key]?[engine] ?? []
        let ranges = runs.compactMap(\.ranges), transactions = runs.compactMap(\.transactions)
        guard !ranges.isEmpty, !transactions.isEmpty else { return "–" }
        return "\(Int(median(ranges.map(Double.init)))) / \(Int(median(transactions.map(Double.init))))"
    }
}
