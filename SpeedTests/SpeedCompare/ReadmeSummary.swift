// ReadmeSummary: the one speed table the README shows, generated from the same medians as
// RESULTS.md and written into both (README.md between its speed-summary markers), so that the
// README's figures cannot disagree with the results: a headline phase per workload, Larder's
// median with each durability and its ratio to SQLite (and GRDB) measured in the same run.

import Foundation
import SpeedSupport

/// The README's speed table.
struct ReadmeSummary {
    static let beginMarker = "<!-- speed-summary:begin -->"
    static let endMarker = "<!-- speed-summary:end -->"

    let summaries: Summaries

    /// The table, between its markers.
    var block: String {
        let options = summaries.options
        let sizes = WorkloadSizes(scale: Double(options.scale) ?? 1)
        var lines = [Self.beginMarker,
                     "`make speed`, scale \(options.scale), median of \(options.repetitions) runs (SpeedTests/RESULTS.md has every phase, memory and sizes):",
                     "",
                     "| workload | Larder `.full` | vs SQLite | vs GRDB | Larder `.noSync` | vs SQLite |",
                     "|---|---:|---:|---:|---:|---:|"]
        for headline in Headline.all(sizes) {
            var row = "| \(headline.label) |"
            for (durability, ratios) in [("full", ["SQLite", "GRDB"]), ("nosync", ["SQLite"])] {
                let key = GroupKey(durability: durability, workload: headline.workload, phase: headline.phase)
                let otherKey = GroupKey(durability: durability, workload: headline.workload, phase: headline.otherPhase)
                let larder = summaries.summary(key, "Larder")
                row += " \(larder.map { formatTime($0.wall) } ?? "–") |"
                for engine in ratios {
                    let ratio = larder.flatMap { larder in summaries.summary(otherKey, engine).map { $0.wall / larder.wall } }
                    row += " \(ratio.map(formatRatio) ?? "–") |"
                }
            }
            lines.append(row)
        }
        lines += ["", "A ratio is the other engine's time over Larder's: above 1, Larder is faster."]
        lines += encryptionTable(sizes)
        lines.append(Self.endMarker)
        return lines.joined(separator: "\n")
    }

    /// What encryption costs Larder: its encrypted store's time over its plaintext one's, on the
    /// same songs (key derivation excluded); empty when the run had no Encryption workload.
    private func encryptionTable(_ sizes: WorkloadSizes) -> [String] {
        let rows = ["insert", "fetch"].map { phase -> String in
            let cells = ["full", "nosync"].map { durability -> String in
                let key = { (kind: String) in GroupKey(durability: durability, workload: "Encryption", phase: "\(phase)_\(kind)") }
                guard let plain = summaries.summary(key("plain"), "Larder"),
                      let encrypted = summaries.summary(key("encrypted"), "Larder") else { return "–" }
                return formatRatio(encrypted.wall / plain.wall)
            }
            return "| \(phase) | \(cells[0]) | \(cells[1]) |"
        }
        guard rows.contains(where: { !$0.hasSuffix("| – | – |") }) else { return [] }
        return ["", "Encryption: Larder's encrypted store's time over its plaintext store's (\(Headline.count(sizes.encryptionSongs)) songs, "
                    + "key derivation excluded; 1 is free):", "",
                "| phase | `.full` | `.noSync` |", "|---|---:|---:|"] + rows
    }

    /// `text` with the block between its markers replaced by this one; nil when the markers
    /// are missing.
    func replacingBlock(in text: String) -> String? {
        guard let begin = text.range(of: Self.beginMarker),
              let end = text.range(of: Self.endMarker, range: begin.upperBound ..< text.endIndex) else { return nil }
        return text.replacingCharacters(in: begin.lowerBound ..< end.upperBound, with: block)
    }
}
