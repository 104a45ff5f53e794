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
    private static let rows: [RatioTargetTable.Row] = [
        .init(label: "subscriber, ComplexInsert rounds", phase: "insert_subscribed", baseline: "insert", target: 1.05),
        .init(label: "subscriber, SimpleUpdate", phase: "update_subscribed", baseline: "update", target: 1.05),
        .init(label: "keepsHistory, SimpleUpdate", phase: "update_history", baseline: "update", target: 1.5),
    ]

    /// The section's lines; empty when the run has no Changes result.
    var lines: [String] {
        RatioTargetTable(summaries: summaries, workload: .changes, heading: "Change feed and history (Larder)",
                         intro: "The same songs in a plain store, in one with a subscriber reading `store.changes` on another "
                             + "thread, and in one whose songs keep history (median wall time; the insert is the sum of the "
                             + "rounds). Targets (issue 23): subscriber at most 1.05× the plain store, history at most 1.5×.",
                         columns: ("cost of", "plain", "with it"), rows: Self.rows).lines
    }
}
