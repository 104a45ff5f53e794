// ModelTable: the Model workload's section of RESULTS.md: a @StoredModel Song's SimpleInsert and
// SimpleFetch times over the hand-written Song's, with issue 25's target (at most 1.10×).

import SpeedSupport

/// The Model section of a run's report.
struct ModelTable {
    let summaries: Summaries

    /// Each row: the workload it mirrors, the @StoredModel phase, the hand-written phase.
    private static let rows: [RatioTargetTable.Row] = [
        .init(label: "SimpleInsert", phase: "insert_model", baseline: "insert_handwritten", target: target),
        .init(label: "SimpleFetch", phase: "fetch_model", baseline: "fetch_handwritten", target: target),
    ]
    private static let target = 1.10

    /// The section's lines; empty when the run has no Model result.
    var lines: [String] {
        RatioTargetTable(summaries: summaries, workload: .model, heading: "@StoredModel (Larder)",
                         intro: "SimpleInsert's songs as the hand-written `Song` and as its `@StoredModel` twin (tagged fields), "
                             + "each in a store of its own, then fetched whole as SimpleFetch does (median wall time). "
                             + "Target (issue 25): at most \(formatRatio(Self.target)) the hand-written time.",
                         columns: ("workload", "hand-written", "@StoredModel"), rows: Self.rows).lines
    }
}
