// RowIDSort: the rowIDs an index read gathers, sorted ascending before their objects are read.
// A range of one key yields its entries sorted by key, then rowID: as many sorted runs as the
// range has values, thousands of rowIDs in all. A least-significant-digit radix sort over the
// bytes that vary (3 passes for rowIDs below 2^24) costs under 40% of the standard library's
// merging sort on them (callgrind, the Queries range1pct); small arrays keep the standard sort.

/// Sorting of rowIDs.
internal enum RowIDSort {
    /// Below this count the standard sort is cheaper than a radix sort's counting.
    private static let radixThreshold = 256

    /// Sorts `rowIDs` ascending (duplicates kept).
    static func sort(_ rowIDs: inout [UInt64]) {
        guard rowIDs.count >= radixThreshold else { return rowIDs.sort() }
        var bits: UInt64 = 0
        for rowID in rowIDs { bits |= rowID }
        let passes = (UInt64.bitWidth - bits.leadingZeroBitCount + 7) / 8
        guard passes > 0 else { return }
        var scratch = [UInt64](repeating: 0, count: rowIDs.count)
        let endsInScratch = rowIDs.withUnsafeMutableBufferPointer { values in
            scratch.withUnsafeMutableBufferPointer { spare in
                withUnsafeTemporaryAllocation(of: Int.self, capacity: 256) { counts in
                    var source = values, target = spare
                    var swapped = false
                    for pass in 0 ..< passes {
                        let shift = UInt64(pass * 8)
                        counts.initialize(repeating: 0)
                        for value in source { counts[Int(truncatingIfNeeded: (value >> shift) & 0xFF)] += 1 }
                        // A byte that every rowID shares orders nothing: skip its pass.
                        if counts[Int(truncatingIfNeeded: (source[0] >> shift) & 0xFF)] == source.count { continue }
                        var start = 0
                        for digit in 0 ..< 256 {
                            let count = counts[digit]
                            counts[digit] = start
                            start += count
                        }
                        for value in source {
                            let digit = Int(truncatingIfNeeded: (value >> shift) & 0xFF)
                            target[counts[digit]] = value
                            counts[digit] += 1
                        }
                        swap(&source, &target)
                        swapped.toggle()
                    }
                    return swapped
                }
            }
        }
        if endsInScratch { rowIDs = scratch }
    }
}
