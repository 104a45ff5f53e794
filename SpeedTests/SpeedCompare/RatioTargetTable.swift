// RatioTargetTable: a section of RESULTS.md for a Larder-only workload whose phases are measured
// against a baseline phase of the same run, each ratio beside the largest one its issue allows
// (ChangesTable: a subscriber and history against the plain store; ModelTable: @StoredModel
// against hand-written classes).

import SpeedSupport

/// A section of ratios to a baseline, with their targets, for each durability.
struct RatioTargetTable {
    /// One line: what it measures, the phase measured, the baseline phase, the largest ratio allowed.
    struct Row {
        let label: String
        let phase: String
        let baseline: String
        let target: Double
    }

    let summaries: Summaries
    let workload: Workload
    /// The section's heading and the paragraph under it.
    let heading: String
    let intro: String
    /// The headers of the label, baseline and measured columns.
    let columns: (label: String, baseline: String, measured: String)
    let rows: [Row]

    /// The section's lines; empty when the run has no result of the workload.
    var lines: [String] {
        var lines: [String] = []
        for durability in summaries.options.durabilities {
            func summary(_ phase: String) -> Summary? {
                summaries.summary(GroupKey(durability: durability, workload: workload.rawValue, phase: phase), "Larder")
            }
            guard rows.contains(where: { summary($0.phase) != nil }) else { continue }
            if lines.isEmpty { lines += ["## \(heading)", "", intro + " ✓ a target met, ✗ missed.", ""] }
            lines += ["Durability \(durability):", "",
                      "| \(columns.label) | \(columns.baseline) | \(columns.measured) | ratio | target |",
                      "|---|---:|---:|---:|---:|"]
            for row in rows {
                let measured = summary(row.phase), baseline = summary(row.baseline)
                let time = { (s: Summary?) in s.map { formatTime($0.wall) } ?? "–" }
                var ratio = "–"
                if let measured, let baseline {
                    let value = measured.wall / baseline.wall
                    ratio = formatRatio(value) + (value <= row.target ? " ✓" : " ✗")
                }
                lines.append("| \(row.label) | \(time(baseline)) | \(time(measured)) | \(ratio) | ≤ \(formatRatio(row.target)) |")
            }
            lines.append("")
        }
        return lines
    }
}
