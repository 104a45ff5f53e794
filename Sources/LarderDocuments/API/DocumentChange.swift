// DocumentChange: what one committed write to a document collection changed, as a value: its
// number among the collection's writes since the store was opened, and the rowIDs it inserted,
// updated and removed. Or, for a subscriber that fell behind, a gap marker naming the writes it
// missed. Never a document: a change crosses tasks, and a reader asks for the documents it wants.

import Larder

/// What one committed write to a ``DocumentCollection`` changed: the value
/// ``DocumentCollection/changes`` delivers.
///
/// Every write that inserts, updates or removes a document (one call: `insert`, `insertBatch`,
/// `update`, `delete(where:)`, …) gets the next ``sequence`` number of its collection, counted
/// from 1 since the store was opened (it is not kept with the store).
///
/// ```swift
/// for await change in people.changes {
///     if change.missed != nil { reloadEverything(); continue }
///     print(change.inserted, change.updated, change.removed)
/// }
/// ```
public struct DocumentChange: Sendable, Hashable, CustomStringConvertible, FeedElement {
    /// Whether a change is a committed write or a gap marker.
    public typealias Kind = ChangeKind

    /// A commit, or a gap marker.
    public let kind: Kind
    /// The write's number in its collection since the store opened (1, 2, …); for a gap marker,
    /// the last number missed.
    public let sequence: UInt64
    /// The rowIDs of the documents the write inserted, ascending.
    public let inserted: [RowID]
    /// The rowIDs of the documents the write replaced, ascending.
    public let updated: [RowID]
    /// The rowIDs of the documents the write removed, ascending.
    public let removed: [RowID]

    init(sequence: UInt64, inserted: [RowID], updated: [RowID], removed: [RowID]) {
        kind = .commit
        self.sequence = sequence
        self.inserted = inserted
        self.updated = updated
        self.removed = removed
    }

    /// A gap marker for the writes `missed`.
    package init(missed: ClosedRange<UInt64>) {
        kind = .gap(missed: missed)
        sequence = missed.upperBound
        inserted = []
        updated = []
        removed = []
    }

    /// The write numbers a gap marker says were missed; nil for a commit.
    ///
    /// ```swift
    /// if let missed = change.missed { print("missed \(missed.count) writes") }
    /// ```
    public var missed: ClosedRange<UInt64>? { kind.missed }

    /// The number and what changed, in a line: "3: +2 ~1 -0", "gap 4...9".
    public var description: String {
        if let missed { return "gap \(missed)" }
        return "\(sequence): +\(inserted.count) ~\(updated.count) -\(removed.count)"
    }
}
