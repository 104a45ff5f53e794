// StoreChange: what one committed save (or named-buffer write) changed, as a value: its sequence
// number, the rowIDs it inserted, updated and deleted by class storage name, and the named
// buffers it wrote or removed. Or, for a subscriber that fell behind, a gap marker naming the
// sequence numbers it missed. Never a live object: a change crosses tasks and outlives the save.

/// What one committed save of a ``Store`` changed: the value ``Store/changes`` delivers and
/// ``Store/changes(since:)`` returns.
///
/// Every save that changes something gets the next ``sequence`` number (1, 2, 3, …, kept with
/// the store). A change names classes by storage name and objects by rowID, never by live
/// object, so it can be sent to any task.
///
/// ```swift
/// for await change in store.changes {
///     if let missed = change.missed {
///         // Fell behind: ask store.changes(since: missed.lowerBound - 1), or refetch.
///         continue
///     }
///     print(change.sequence, change.inserted(of: Song.self), change.namedBuffers)
/// }
/// ```
public struct StoreChange: Sendable, Hashable, CustomStringConvertible, FeedElement {
    /// Whether a change is a committed save or a gap marker.
    public typealias Kind = ChangeKind

    /// A commit, or a gap marker.
    public let kind: Kind
    /// The save's sequence number: one more than the previous save's, starting at 1 in a new
    /// store. For a gap marker, the last sequence number missed.
    public let sequence: UInt64
    /// The names of the named buffers written or removed (``Store/setDataBuffer(_:forName:)``,
    /// ``Store/deleteDataBuffer(forName:)``); empty for a save of objects.
    public let namedBuffers: Set<String>
    /// The rowIDs changed, by class storage name: only classes with a change are present.
    internal let classes: [String: ChangedRowIDs]

    internal init(sequence: UInt64, classes: [String: ChangedRowIDs], namedBuffers: Set<String>) {
        kind = .commit
        self.sequence = sequence
        self.classes = classes
        self.namedBuffers = namedBuffers
    }

    /// A gap marker for the sequence numbers `missed`.
    package init(missed: ClosedRange<UInt64>) {
        kind = .gap(missed: missed)
        sequence = missed.upperBound
        classes = [:]
        namedBuffers = []
    }

    /// The sequence numbers a gap marker says were missed; nil for a commit.
    ///
    /// ```swift
    /// if let missed = change.missed { print("missed \(missed.count) saves") }
    /// ```
    public var missed: ClosedRange<UInt64>? { kind.missed }

    /// The storage names of the classes whose objects the save inserted, updated or deleted.
    ///
    /// ```swift
    /// if change.classNames.contains(Song.storageName) { reloadSongs() }
    /// ```
    public var classNames: Set<String> { Set(classes.keys) }

    /// The rowIDs of the objects of `type` the save inserted, ascending.
    ///
    /// ```swift
    /// let newSongs = change.inserted(of: Song.self)
    /// ```
    public func inserted(of type: StoredObject.Type) -> [UInt64] { inserted(ofClassNamed: type.storageName) }

    /// The rowIDs of the objects of `type` the save updated, ascending (objects inserted or
    /// deleted by the same save are listed there, not here).
    ///
    /// ```swift
    /// let changedSongs = change.updated(of: Song.self)
    /// ```
    public func updated(of type: StoredObject.Type) -> [UInt64] { updated(ofClassNamed: type.storageName) }

    /// The rowIDs of the objects of `type` the save deleted, ascending.
    ///
    /// ```swift
    /// let goneSongs = change.deleted(of: Song.self)
    /// ```
    public func deleted(of type: StoredObject.Type) -> [UInt64] { deleted(ofClassNamed: type.storageName) }

    /// The rowIDs of the objects the save inserted in the class stored as `name`, ascending:
    /// for tools that do not link the class.
    ///
    /// ```swift
    /// for name in change.classNames { print(name, change.inserted(ofClassNamed: name)) }
    /// ```
    public func inserted(ofClassNamed name: String) -> [UInt64] { classes[name]?.inserted.rowIDs ?? [] }

    /// The rowIDs of the objects the save updated in the class stored as `name`, ascending.
    ///
    /// ```swift
    /// let updated = change.updated(ofClassNamed: "Song")
    /// ```
    public func updated(ofClassNamed name: String) -> [UInt64] { classes[name]?.updated.rowIDs ?? [] }

    /// The rowIDs of the objects the save deleted in the class stored as `name`, ascending.
    ///
    /// ```swift
    /// let deleted = change.deleted(ofClassNamed: "Song")
    /// ```
    public func deleted(ofClassNamed name: String) -> [UInt64] { classes[name]?.deleted.rowIDs ?? [] }

    /// The sequence number and what changed, in a line: "3: Song +2 ~1 -0", "gap 4...9".
    public var description: String {
        if let missed { return "gap \(missed)" }
        let parts = classes.keys.sorted().map { name -> String in
            let rows = classes[name] ?? ChangedRowIDs()
            return "\(name) +\(rows.inserted.count) ~\(rows.updated.count) -\(rows.deleted.count)"
        } + namedBuffers.sorted().map { "buffer \($0)" }
        return "\(sequence): " + parts.joined(separator: ", ")
    }
}
