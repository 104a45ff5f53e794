// RowIDRanges: a compact sorted set of rowIDs kept as closed ranges. A class keeps the rowIDs
// it has deleted (or handed out and discarded) in one, so that a reference to such a row reads
// as nil without a lookup in the class file; a change record keeps the rowIDs a save inserted,
// updated and deleted in three. Both write it the same way: a varint count of ranges, then each
// range as the varint gap from the previous range's end and the varint extent (FORMAT.md 8.2).

/// A sorted set of rowIDs stored as disjoint, non-adjacent closed ranges.
internal struct RowIDRanges: Hashable, Sendable {
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

    /// The set of `rowIDs`, in any order (a linear pass when they are ascending, as a class's
    /// inserts usually are; sorted first otherwise).
    init(sorting rowIDs: [UInt64]) {
        var isAscending = true
        for (previous, next) in zip(rowIDs, rowIDs.dropFirst()) where previous > next {
            isAscending = false
            break
        }
        let sorted = isAscending ? rowIDs : rowIDs.sorted()
        guard var start = sorted.first else { return }
        // The ranges counted first, then made in one allocation: every third song of a
        // million updated is 333,333 ranges, which doubling copied and faulted in again.
        var rangeCount = 1
        for (previous, next) in zip(sorted, sorted.dropFirst()) where next &- previous > 1 { rangeCount += 1 }
        ranges.reserveCapacity(rangeCount)
        var end = start
        for rowID in sorted.dropFirst() where rowID > end {
            if rowID == end + 1 {
                end = rowID
            } else {
                ranges.append(start ... end)
                start = rowID
                end = rowID
            }
        }
        ranges.append(start ... end)
    }

    var isEmpty: Bool { ranges.isEmpty }

    /// Every rowID of the set, ascending.
    var rowIDs: [UInt64] {
        var all: [UInt64] = []
        // Not more up front than a million: `count` saturates for ranges no store hands out.
        all.reserveCapacity(min(count, 1 << 20))
        for range in ranges { all.append(contentsOf: range) }
        return all
    }

    /// Appends the set: a varint count of ranges, then each range as the varint gap from the
    /// previous range's end (from 0 for the first) and the varint extent (end minus start).
    func write(to buffer: inout DataBuffer) {
        buffer.writeVarInt(UInt64(ranges.count))
        var previousEnd: UInt64 = 0
        for range in ranges {
            buffer.writeVarInt(range.lowerBound - previousEnd)
            buffer.writeVarInt(range.upperBound - range.lowerBound)
            previousEnd = range.upperBound
        }
    }

    /// Reads a set written by ``write(to:)``; throws `DataBufferError` when it is truncated,
    /// counts more ranges than its bytes can hold, overflows 64 bits, or has ranges that go
    /// backwards or overlap (ranges that touch, gap 1, are accepted as they are).
    init(reading buffer: inout DataBuffer) throws {
        let rangeCount = try buffer.readVarInt()
        guard rangeCount <= UInt64(buffer.remainingCount / 2) else {
            throw DataBufferError.valueOutOfRange(offset: buffer.readPosition)
        }
        var ranges: [ClosedRange<UInt64>] = []
        ranges.reserveCapacity(Int(rangeCount))
        var previousEnd: UInt64 = 0
        for _ in 0 ..< rangeCount {
            let offset = buffer.readPosition
            let (lower, overflowLower) = previousEnd.addingReportingOverflow(try buffer.readVarInt())
            let (upper, overflowUpper) = lower.addingReportingOverflow(try buffer.readVarInt())
            guard !overflowLower, !overflowUpper, ranges.isEmpty || lower > previousEnd else {
                throw DataBufferError.valueOutOfRange(offset: offset)
            }
            ranges.append(lower ... upper)
            previousEnd = upper
        }
        self.ranges = ranges
    }

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

    /// The union of this set and `other`, in one merge pass over both.
    func union(_ other: RowIDRanges) -> RowIDRanges {
        var result = RowIDRanges()
        result.ranges.reserveCapacity(ranges.count + other.ranges.count)
        var i = 0, j = 0
        while i < ranges.count || j < other.ranges.count {
            if j == other.ranges.count || (i < ranges.count && ranges[i].lowerBound <= other.ranges[j].lowerBound) {
                result.appendMerging(ranges[i])
                i += 1
            } else {
                result.appendMerging(other.ranges[j])
                j += 1
            }
        }
        return result
    }

    /// The rowIDs of this set that `other` does not hold, in one pass over both.
    func subtracting(_ other: RowIDRanges) -> RowIDRanges {
        var result = RowIDRanges()
        var j = 0
        for range in ranges {
            var start = range.lowerBound
            var isDone = false
            while j < other.ranges.count, other.ranges[j].upperBound < start { j += 1 }
            var k = j
            while !isDone, k < other.ranges.count, other.ranges[k].lowerBound <= range.upperBound {
                let removed = other.ranges[k]
                if removed.lowerBound > start { result.ranges.append(start ... removed.lowerBound - 1) }
                if removed.upperBound >= range.upperBound {
                    isDone = true
                } else {
                    start = max(start, removed.upperBound + 1)
                    k += 1
                }
            }
            if !isDone { result.ranges.append(start ... range.upperBound) }
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
