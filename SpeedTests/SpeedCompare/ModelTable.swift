// ModelTable: the Model workload's section of RESULTS.md: a @StoredModel Song's SimpleInsert and
// SimpleFetch times over the hand-written Song's, with issue 25's target (at most 1.10×).

import SpeedSupport

/// The Model section of a run's report.
struct ModelTable {
    let summaries: Summaries

    /// Each row: the workload it mirrors, the @StoredModel phase, the hand-written phase.
    private static let rows: [(label: String, phase: String, handwritten: String)] = [
        ("SimpleInsert", "insert_model", "insert_handwritten"),
        ("SimpleFetch", "fetch_model", "fetch_handwritten"),
    ]
    private static let target = 1.10

    /// The section's lines; empty when the run has no Model result.
    var lines: [String] {
        var lines: [String] = []
        for durability in summaries.options.durabilities {
            func summary(_ phase: String) -> Summary? {
                summaries.summary(GroupKey(durability: durability, workload: Workload.model.rawValue, phase: phase), "Larder")
            }
            guard Self.rows.contains(where: { summary($0.phase) != nil }) else { continue }
            if lines.isEmpty {
                lines += ["## @StoredModel (Larder)", "",
                          "SimpleInsert's songs as the hand-written `Song` and as its `@StoredModel` twin (tagged fields), "
                              + "each in a store of its own, then fetched whole as SimpleFetch does (median wall time). "
                              + "Target (issue 25): at most \(formatRatio(Self.target)) the hand-written time. "
                              + "✓ a target met, ✗ missed.", ""]
            }
            lines += ["Durability \(durability):", "",
                      "| workload | hand-written | @StoredModel | ratio | target |",
                      "|---|---:|---:|---:|---:|"]
            for row in Self.rows {
                let measured = summary(row.phase), handwritten = summary(row.handwritten)
                let time = { (s: Summary?) in s.map { formatTime($0.wall) } ?? "–" }
                var ratio = "–"
                if let measured, let handwritten {
                    let value = measured.wall / handwritten.wall
                    ratio = formatRatio(value) + (value <= Self.target ? " ✓" : " ✗")
                }
                lines.append("| \(row.label) | \(time(handwritten)) | \(time(measured)) | \(ratio) | ≤ \(formatRatio(Self.target)) |")
            }
            lines.append("")
        }
        return lines
    }
}
