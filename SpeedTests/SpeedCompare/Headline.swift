// Headline: the phase of a workload that the README's table and the chart show, how they name
// it, and the phase of the other engines it is compared with.

import SpeedSupport

/// One row of the README's table and the chart.
struct Headline {
    var workload: String
    var phase: String
    var label: String
    /// The other engines' phase it is compared with, when not the same (Larder's `[Song]`
    /// fetch against the others' only fetch).
    var comparedWith: String?

    /// The other engines' phase.
    var otherPhase: String { comparedWith ?? phase }

    /// Every headline, in the order the README and the chart show them.
    static func all(_ sizes: WorkloadSizes) -> [Headline] {
        [Headline(workload: "ComplexInsert", phase: "total", label: "ComplexInsert (\(sizes.complexRounds) × \(count(sizes.complexSongs)) songs in playlists)", comparedWith: nil),
         Headline(workload: "ComplexFetch", phase: "fetch", label: "ComplexFetch (playlists as `ReferenceList`, first song of each)", comparedWith: nil),
         Headline(workload: "ComplexFetch", phase: "fetchArray", label: "ComplexFetch (playlists as `[Song]`, first song of each)", comparedWith: "fetch"),
         Headline(workload: "SimpleInsert", phase: "insert", label: "SimpleInsert (\(count(sizes.simpleSongs)) songs)", comparedWith: nil),
         Headline(workload: "SimpleFetch", phase: "fetch", label: "SimpleFetch (\(count(sizes.simpleSongs)) songs into objects)", comparedWith: nil),
         Headline(workload: "SimpleUpdate", phase: "update", label: "SimpleUpdate (every third song retitled)", comparedWith: nil),
         Headline(workload: "PointRead", phase: "autocommit", label: "PointRead (\(count(sizes.pointReads)) lookups, one call each)", comparedWith: nil),
         Headline(workload: "FullText", phase: "choice", label: "FullText `[[*choice*]]`, objects loaded (\(count(sizes.fullTextTitles)) titles)", comparedWith: nil),
         Headline(workload: "Documents", phase: "insertBatch", label: "Documents, insert (\(count(sizes.documents)) documents)", comparedWith: nil),
         Headline(workload: "Documents", phase: "findTag", label: "Documents, find `[tags] CONTAINS ?`", comparedWith: nil),
         Headline(workload: "Documents", phase: "count", label: "Documents, count `[address.country] = ?`", comparedWith: nil),
         Headline(workload: "Documents", phase: "update10pct", label: "Documents, update 10%", comparedWith: nil),
         Headline(workload: "Queries", phase: "equal", label: "Queries, 100 × find `seconds == ?` (\(count(sizes.querySongs)) songs, ~100 each)", comparedWith: nil),
         Headline(workload: "Queries", phase: "albumFirst20", label: "Queries, 100 × first 20 of an album by title", comparedWith: nil),
         Headline(workload: "Queries", phase: "count", label: "Queries, 100 × count of a 1% range", comparedWith: nil)]
    }

    /// `n` as the README writes sizes: 300k, 1M.
    static func count(_ n: Int) -> String {
        n >= 1_000_000 && n % 1_000_000 == 0 ? "\(n / 1_000_000)M" : n >= 1_000 && n % 1_000 == 0 ? "\(n / 1_000)k" : "\(n)"
    }
}
