// ChangesTable: the Changes workload's section of RESULTS.md: what an active change-feed
// subscriber costs Larder on ComplexInsert rounds and on SimpleUpdate's save, and what
// `keepsHistory` costs on that save, as ratios to the plain store's time, with issue 23's
// targets (subscriber under 5%, history under 1.5×).

import SpeedSupport

/// The Changes section of a run's report.
struct ChangesTable {
    let summaries: Summaries

    /// Each row: what is measured, the phase measured, the plain phase it is compared with, and
    /// the largest ratio the issue allows.
    private static let rows: [(label: String, phase: String, plain: String, target: Double)] = [
        ("subscriber, ComplexInsert rounds", "insert_subscribed", "insert", 1.05),
        ("subscriber, SimpleUpdate", "update_subscribed", "update", 1.05),
        ("keepsHistory, SimpleUpdate", "update_history", "update", 1.5),
    ]

    /// The section's lines; empty when the run has no Changes result.
    var lines: [String] {
        var lines: [String] = []
        for durability in summaries.options.durabilities {
            func summary(_ phase: String) -> Summary? {
                summaries.summary(GroupKey(durability: durability, workload: Workload.changes.rawValue, phase: phase), "Larder")
            }
            guard Self.rows.contains(where: { summary($0.phase) != nil }) else { continue }
            if lines.isEmpty {
                lines += ["## Change feed and history (Larder)", "",
                          "The same songs in a plain store, in one with a subscriber reading `store.changes` on another "
                              + "thread, and in one whose songs keep history (median wall time; the insert is the sum of the "
                              + "rounds). Targets (issue 23): subscriber at most 1.05× the plain store, history at most 1.5×. "
                              + "✓ a target met, ✗ missed.", ""]
            }
            lines += ["Durability \(durability):", "",
                      "| cost of | plain | with it | ratio | target |",
                      "|---|---:|---:|---:|---:|"]
            for row in Self.rows {
                let measured = summary(row.phase), plain = summary(row.plain)
                let time = { (s: Summary?) in s.map { formatTime($0.wall) } ?? "–" }
                var ratio = "–"
                if let measured, let plain {
                    let value = measured.wall / plain.wall
                    ratio = formatRatio(value) + (value <= row.target ? " ✓" : " ✗")
                }
                lines.append("| \(row.label) | \(time(plain)) | \(time(measured)) | \(ratio) | ≤ \(formatRatio(row.target)) |")
            }
            lines.append("")
        }
        return lines
    }
}
