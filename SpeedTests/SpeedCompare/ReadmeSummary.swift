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

    /// The headline phase of each workload, and how the README names it.
    private func headlines(_ sizes: WorkloadSizes) -> [(workload: String, phase: String, label: String)] {
        [("ComplexInsert", "total", "ComplexInsert (\(sizes.complexRounds) × \(count(sizes.complexSongs)) songs in playlists)"),
         ("ComplexFetch", "fetch", "ComplexFetch (playlists, first song of each)"),
         ("SimpleInsert", "insert", "SimpleInsert (\(count(sizes.simpleSongs)) songs)"),
         ("SimpleFetch", "fetch", "SimpleFetch (\(count(sizes.simpleSongs)) songs into objects)"),
         ("SimpleUpdate", "update", "SimpleUpdate (every third song retitled)"),
         ("PointRead", "autocommit", "PointRead (\(count(sizes.pointReads)) lookups, one call each)"),
         ("FullText", "choice", "FullText `[[*choice*]]`, objects loaded (\(count(sizes.fullTextTitles)) titles)"),
         ("Documents", "insertBatch", "Documents, insert (\(count(sizes.documents)) documents)"),
         ("Documents", "findTag", "Documents, find `[tags] CONTAINS ?`"),
         ("Documents", "count", "Documents, count `[address.country] = ?`"),
         ("Documents", "update10pct", "Documents, update 10%")]
    }

    private func count(_ n: Int) -> String {
        n >= 1_000_000 && n % 1_000_000 == 0 ? "\(n / 1_000_000)M" : n >= 1_000 && n % 1_000 == 0 ? "\(n / 1_000)k" : "\(n)"
    }

    /// The table, between its markers.
    var block: String {
        let options = summaries.options
        let sizes = WorkloadSizes(scale: Double(options.scale) ?? 1)
        var lines = [Self.beginMarker,
                     "`make speed`, scale \(options.scale), median of \(options.repetitions) runs (SpeedTests/RESULTS.md has every phase, memory and sizes):",
                     "",
                     "| workload | Larder `.full` | vs SQLite | vs GRDB | Larder `.noSync` | vs SQLite |",
                     "|---|---:|---:|---:|---:|---:|"]
        for headline in headlines(sizes) {
            var row = "| \(headline.label) |"
            for (durability, ratios) in [("full", ["SQLite", "GRDB"]), ("nosync", ["SQLite"])] {
                let key = GroupKey(durability: durability, workload: headline.workload, phase: headline.phase)
                row += " \(summaries.summary(key, "Larder").map { formatTime($0.wall) } ?? "–") |"
                for engine in ratios {
                    row += " \(summaries.ratio(key, engine).map { formatRatio($0.value) } ?? "–") |"
                }
            }
            lines.append(row)
        }
        lines += ["", "A ratio is the other engine's time over Larder's: above 1, Larder is faster.", Self.endMarker]
        return lines.joined(separator: "\n")
    }

    /// `text` with the block between its markers replaced by this one; nil when the markers
    /// are missing.
    func replacingBlock(in text: String) -> String? {
        guard let begin = text.range(of: Self.beginMarker),
              let end = text.range(of: Self.endMarker, range: begin.upperBound ..< text.endIndex) else { return nil }
        return text.replacingCharacters(in: begin.lowerBound ..< end.upperBound, with: block)
    }
}
