// ChangeKind: what a change in a feed is: a commit, or a gap marker naming the sequence numbers
// a reader that fell behind missed. The store's changes (StoreChange.Kind) and a document
// collection's (DocumentChange.Kind) are this one type.

/// Whether a change a feed delivers is a commit or a gap marker.
///
/// ```swift
/// for await change in store.changes {
///     if case let .gap(missed) = change.kind { print("missed \(missed.count) saves") }
/// }
/// ```
public enum ChangeKind: Sendable, Hashable {
    /// A committed save (a named-buffer write or removal too), or a committed write to a
    /// document collection.
    case commit
    /// Not a commit: the subscriber fell behind (its buffer was full) and the changes with these
    /// sequence numbers were dropped for it. ``Store/changes(since:)`` gives a store's while the
    /// store keeps them.
    case gap(missed: ClosedRange<UInt64>)

    /// The sequence numbers a gap marker says were missed; nil for a commit.
    ///
    /// ```swift
    /// if let missed = change.kind.missed { print(missed) }
    /// ```
    public var missed: ClosedRange<UInt64>? {
        guard case let .gap(missed) = self else { return nil }
        return missed
    }
}
