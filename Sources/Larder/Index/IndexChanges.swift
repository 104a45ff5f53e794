// IndexChanges: what one write does to one index table, gathered while the write is staged
// and applied to the table's runs (IndexTable) when it commits. Part of the index engine that
// object indexes and document collections share.

/// The entries one write adds to and removes from one index table.
package struct IndexChanges {
    /// Entries of new objects or documents: no earlier stage of the write can have named them.
    package var appended: [[UInt8]] = []
    /// Entries of stored objects or documents: true when the write adds the entry, false when
    /// it removes it; a later stage of the write overrides an earlier one.
    package var changed: [[UInt8]: Bool] = [:]
    /// The table's entries are all replaced (an index rebuilt): its runs are dropped first.
    package var replacesAll = false

    package init(appended: [[UInt8]] = [], changed: [[UInt8]: Bool] = [:], replacesAll: Bool = false) {
        self.appended = appended
        self.changed = changed
        self.replacesAll = replacesAll
    }

    /// Every entry the write adds or removes, in key order.
    package func sorted() -> [(entry: [UInt8], isAdded: Bool)] {
        var touched = appended.map { (entry: $0, isAdded: true) }
        touched.reserveCapacity(appended.count + changed.count)
        for (entry, isAdded) in changed { touched.append((entry, isAdded)) }
        // Comparing arrays retains and releases them at every step: sort the entries' first
        // 16 bytes as two integers instead, comparing the rest only on a tie.
        var sortKeys: [SortKey] = []
        sortKeys.reserveCapacity(touched.count)
        for (position, (entry, _)) in touched.enumerated() {
            sortKeys.append(SortKey(entry, position: position))
        }
        touched.withUnsafeBufferPointer { touched in
            sortKeys.sort { left, right in
                if left.high != right.high { return left.high < right.high }
                if left.low != right.low { return left.low < right.low }
                return ByteOrder.less(touched[left.position].entry, touched[right.position].entry)
            }
        }
        return sortKeys.map { touched[$0.position] }
    }

    /// An entry's first 16 bytes, big-endian, zero-padded, and its position.
    private struct SortKey {
        var high: UInt64 = 0
        var low: UInt64 = 0
        var position: Int

        init(_ entry: [UInt8], position: Int) {
            self.position = position
            entry.withUnsafeBytes { bytes in
                if bytes.count >= 16 {
                    high = bytes.loadBigEndian(UInt64.self)
                    low = bytes.loadBigEndian(UInt64.self, at: 8)
                    return
                }
                for (index, byte) in bytes.enumerated() {
                    if index < 8 {
                        high |= UInt64(byte) << (56 - 8 * UInt64(index))
                    } else {
                        low |= UInt64(byte) << (56 - 8 * UInt64(index - 8))
                    }
                }
            }
        }
    }
}
