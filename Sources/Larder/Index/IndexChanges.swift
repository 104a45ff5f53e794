// IndexChanges: what one write does to one index table, gathered while the write is staged
// and applied to the table's runs (IndexTable) when it commits. Part of the index engine that
// object indexes and document collections share.

/// The entries one write adds to and removes from one index table.
package struct IndexChanges {
    /// Entries of new objects or documents: no earlier stage of the write can have named them.
    package var appended: [[UInt8]] = []
    /// Entries of stored objects or documents, in the order the write staged them: true when
    /// it adds the entry, false when it removes it. Of two for the same entry, the later
    /// overrides the earlier (``sorted()`` keeps it alone). A list, not a dictionary: hashing
    /// every entry a byte at a time (and again as the dictionary grew) cost more than the
    /// sort that finds the repeated ones.
    package private(set) var changed: [(entry: [UInt8], isAdded: Bool)] = []
    /// The table's entries are all replaced (an index rebuilt): its runs are dropped first.
    package var replacesAll = false

    package init(appended: [[UInt8]] = [], replacesAll: Bool = false) {
        self.appended = appended
        self.replacesAll = replacesAll
    }

    /// Stages the addition (`isAdded`) or removal of `entry`, an entry of a stored object or
    /// document, overriding what an earlier stage did to it.
    package mutating func change(_ entry: [UInt8], isAdded: Bool) {
        changed.append((entry, isAdded))
    }

    /// Every entry the write adds or removes, in key order, each once: as its last stage left it.
    package func sorted() -> [(entry: [UInt8], isAdded: Bool)] {
        var touched = appended.map { (entry: $0, isAdded: true) }
        touched.reserveCapacity(appended.count + changed.count)
        touched.append(contentsOf: changed)
        // Comparing arrays retains and releases them at every step: sort the entries' first
        // 16 bytes as two integers instead, comparing the rest only on a tie, and the order
        // staged last (the same entry staged twice).
        var sortKeys: [SortKey] = []
        sortKeys.reserveCapacity(touched.count)
        for (position, (entry, _)) in touched.enumerated() {
            sortKeys.append(SortKey(entry, position: position))
        }
        return touched.withUnsafeBufferPointer { touched in
            /// The order of the entries of two keys: their first 16 bytes, then the rest.
            func order(_ left: SortKey, _ right: SortKey) -> Int {
                if left.high != right.high { return left.high < right.high ? -1 : 1 }
                if left.low != right.low { return left.low < right.low ? -1 : 1 }
                return touched[left.position].entry.withUnsafeBytes { left in
                    touched[right.position].entry.withUnsafeBytes { ByteOrder.compare(left, $0) }
                }
            }
            sortKeys.sort { left, right in
                let entries = order(left, right)
                return entries != 0 ? entries < 0 : left.position < right.position
            }
            var sorted: [(entry: [UInt8], isAdded: Bool)] = []
            sorted.reserveCapacity(sortKeys.count)
            for (index, key) in sortKeys.enumerated() {
                // Of the stages of one entry, now side by side, the last is kept.
                if index + 1 < sortKeys.count, order(key, sortKeys[index + 1]) == 0 { continue }
                sorted.append(touched[key.position])
            }
            return sorted
        }
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
