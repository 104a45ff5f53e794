// IndexChanges: what one write does to one index table, gathered while the write is staged
// and applied to the table's runs (IndexTable) when it commits.

/// The entries one write adds to and removes from one index table.
struct IndexChanges {
    /// Entries of new documents: no earlier stage of the write can have named them.
    var appended: [[UInt8]] = []
    /// Entries of stored documents: true when the write adds the entry, false when it removes
    /// it; a later stage of the write overrides an earlier one.
    var changed: [[UInt8]: Bool] = [:]
    /// The table's entries are all replaced (an index rebuilt): its runs are dropped first.
    var replacesAll = false

    /// Every entry the write adds or removes, in key order.
    func sorted() -> [(entry: [UInt8], isAdded: Bool)] {
        var touched = appended.map { (entry: $0, isAdded: true) }
        touched.reserveCapacity(appended.count + changed.count)
        for (entry, isAdded) in changed { touched.append((entry, isAdded)) }
        touched.sort { ByteOrder.less($0.entry, $1.entry) }
        return touched
    }
}
