// ChangedRowIDs: the rowIDs of one class that one save inserted, updated and deleted, each kept
// as ascending ranges (RowIDRanges), so that a save of 100,000 new objects holds, sends and
// logs three ranges, not 100,000 numbers.

/// The rowIDs of one class a save inserted, updated and deleted (disjoint sets).
internal struct ChangedRowIDs: Hashable, Sendable {
    var inserted = RowIDRanges()
    var updated = RowIDRanges()
    var deleted = RowIDRanges()

    init() {}

    init(inserted: RowIDRanges, updated: RowIDRanges, deleted: RowIDRanges) {
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
    }

    var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }

    /// The largest rowID of the three sets, or 0 when they are empty.
    var largestRowID: UInt64 {
        [inserted, updated, deleted].compactMap { $0.ranges.last?.upperBound }.max() ?? 0
    }

    /// The smallest rowID of the three sets, or `UInt64.max` when they are empty.
    var smallestRowID: UInt64 {
        [inserted, updated, deleted].compactMap { $0.ranges.first?.lowerBound }.min() ?? .max
    }
}
