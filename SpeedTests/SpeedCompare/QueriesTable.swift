// QueriesTable: the Queries workload's section of RESULTS.md: for each phase, Larder's objects,
// LarderDocuments on the same data (Larder's `documents_<phase>` phases) and SQLite side by side,
// with the two ratios the object-query issue sets targets for: SQLite's time over the objects'
// (at least 1.5× on each find, 10× on the count) and the objects' time over the documents'
// (at most 1.3×).

import SpeedSupport

/// The Queries section of a run's report.
struct QueriesTable {
    let summaries: Summaries

    /// The phases, with the least SQLite/objects ratio the issue asks for (nil: no target).
    private static let phases: [(phase: String, sqliteTarget: Double?)] = [
        ("insert", nil), ("equal", 1.5), ("range1pct", 1.5), ("albumFirst20", 1.5), ("count", 10),
    ]
    /// The most objects/documents ratio the issue asks for, on every phase but the insert.
    private static let documentsTarget = 1.3

    /// The section's lines; empty when the run has no Queries result.
    var lines: [String] {
        var lines: [String] = []
        for durability in summaries.options.durabilities {
            func summary(_ phase: String, _ engine: String) -> Summary? {
                summaries.summary(GroupKey(durability: durability, workload: Workload.queries.rawValue, phase: phase), engine)
            }
            guard Self.phases.contains(where: { summary($0.phase, "Larder") != nil }) else { continue }
            if lines.isEmpty {
                lines += ["## Queries: Larder's objects against SQLite and LarderDocuments", "",
                          "The same songs, indexes and queries (median wall time of each phase's 100 finds or counts; 10 for "
                              + "`range1pct`). Targets: SQLite/objects at least 1.5× on each find and 10× on the count; "
                              + "objects/documents at most 1.3×. ✓ a target met, ✗ missed.", ""]
            }
            lines += ["Durability \(durability):", "",
                      "| phase | Larder objects | LarderDocuments | SQLite | SQLite/objects | objects/documents |",
                      "|---|---:|---:|---:|---:|---:|"]
            for (phase, sqliteTarget) in Self.phases {
                let objects = summary(phase, "Larder"), documents = summary("documents_" + phase, "Larder")
                let sqlite = summary(phase, "SQLite")
                func ratio(_ numerator: Summary?, _ denominator: Summary?, meets: (Double) -> Bool?) -> String {
                    guard let numerator, let denominator else { return "–" }
                    let value = numerator.wall / denominator.wall
                    return formatRatio(value) + (meets(value).map { $0 ? " ✓" : " ✗" } ?? "")
                }
                let time = { (s: Summary?) in s.map { formatTime($0.wall) } ?? "–" }
                let versusSQLite = ratio(sqlite, objects) { value in sqliteTarget.map { value >= $0 } }
                let versusDocuments = ratio(objects, documents) { value in sqliteTarget == nil ? nil : value <= Self.documentsTarget }
                lines.append("| \(phase) | \(time(objects)) | \(time(documents)) | \(time(sqlite)) | \(versusSQLite) | \(versusDocuments) |")
            }
            lines.append("")
        }
        return lines
    }
}
