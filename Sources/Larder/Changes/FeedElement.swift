// FeedElement: what a ChangeFeed carries: a commit with its sequence number, or a gap marker
// naming the sequence numbers a reader that fell behind missed. The store's changes
// (StoreChange) and a document collection's (DocumentChange) are both.

/// A change a ``ChangeFeed`` delivers: a commit, or a gap marker.
package protocol FeedElement: Sendable {
    /// A commit's sequence number; for a gap marker, the last one missed.
    var sequence: UInt64 { get }
    /// The sequence numbers a gap marker says were missed; nil for a commit.
    var missed: ClosedRange<UInt64>? { get }
    /// A gap marker for the sequence numbers `missed`.
    init(missed: ClosedRange<UInt64>)
}
