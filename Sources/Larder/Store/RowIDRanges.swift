// RowIDRanges: a compact sorted set of rowIDs kept as closed ranges. A class keeps the rowIDs
// it has deleted (or handed out and discarded) in one, so that a reference to such a row reads
// as nil without a lookup in the class file.

/// A sorted set of rowIDs stored as disjoint, non-adjacent closed ranges.
internal struct RowIDRanges: Equatable, Sendable {
    /// Disjoint, ascending, non-adjacent ranges.
    internal private(set) var ranges: [ClosedRange<UInt64>] = []

    init() {}

    /// Builds the set from ranges read from disk; nil when they are not ascending and disjoint.
    init?(validating ranges: [ClosedRange<UInt64>]) {
        for (previous, next) in zip(ranges, ranges.dropFirst()) where previous.upperBound >= next.lowerBound {
            return nil
        }
        self.ranges = ranges
    }

    var isEmpty: Bool { ranges.isEmpty }

    /// How many rowIDs the set holds (saturating at `Int.max`).
    var count: Int {
        var total = 0
        for range in ranges {
            let size = Int(clamping: range.upperBound - range.lowerBound).addingReportingOverflow(1)
            let sum = total.addingReportingOverflow(size.partialValue)
            if size.overflow || sum.overflow { return Int.max }
            total = sum.partialValue
        }
        return total
    }

    /// Whether `rowID` is in the set: a binary search over the ranges.
    func contains(_ rowID: UInt64) -> Bool {
        var low = 0
        var high = ranges.count
        while low < high {
            let middle = (low + high) / 2
            let range = ranges[middle]
            if rowID < range.lowerBound {
                high = middle
            } else if rowID > range.upperBound {
                low = middle + 1
            } else {
                return true
            }
        }
        return false
    }

    /// The union of this set and `rowIDs` (in any order), in one merge pass over both.
    func union(_ rowIDs: [UInt64]) -> RowIDRanges {
        guard !rowIDs.isEmpty else { return self }
        let added = rowIDs.sorted()
        var result = RowIDRanges()
        result.ranges.reserveCapacity(ranges.count + 1)
        var i = 0, j = 0
        while i < ranges.count || j < added.count {
            if j == added.count || (i < ranges.count && ranges[i].lowerBound <= added[j]) {
                result.appendMerging(ranges[i])
                i += 1
            } else {
                result.appendMerging(added[j] ... added[j])
                j += 1
            }
        }
        return result
    }

    /// Appends a range whose lower bound is at least that of the last range, merging it with
    /// the last range when they overlap or touch.
    private mutating func appendMerging(_ range: ClosedRange<UInt64>) {
        if let last = ranges.last, last.upperBound == .max || range.lowerBound <= last.upperBound + 1 {
            ranges[ranges.count - 1] = last.lowerBound ... max(last.upperBound, range.upperBound)
        } else {
            ranges.append(range)
        }
    }
}
