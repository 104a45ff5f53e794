// RowIDSort must order rowIDs exactly as the standard sort does, duplicates kept, for every
// size around its switch to a radix sort, for rowIDs of one byte to eight, and for the runs
// an index range yields (sorted within each key value).

import Testing
@testable import Larder
import LarderTestSupport

@Suite struct RowIDSortTests {
    private func check(_ rowIDs: [UInt64], _ comment: Comment) {
        var sorted = rowIDs
        RowIDSort.sort(&sorted)
        #expect(sorted == rowIDs.sorted(), comment)
    }

    @Test func sortsRandomRowIDsOfEveryWidth() {
        var generator = SplitMix(seed: 0x5EED_1D50)
        for count in [0, 1, 2, 255, 256, 257, 1_000, 5_000] {
            for bytes in 1 ... 8 {
                let mask: UInt64 = bytes == 8 ? .max : (1 << UInt64(bytes * 8)) - 1
                let rowIDs = (0 ..< count).map { _ in generator.next() & mask }
                check(rowIDs, "\(count) rowIDs of \(bytes) bytes")
            }
        }
    }

    @Test func keepsDuplicatesAndSharedBytes() {
        var generator = SplitMix(seed: 7)
        // Few distinct values: most passes meet bytes every rowID shares.
        check((0 ..< 3_000).map { _ in 0x0100_0000 + generator.next() % 4 }, "four values")
        check(Array(repeating: 42, count: 1_000), "one value")
        check(Array(repeating: 0, count: 300), "zeros")
        check((0 ..< 2_000).map { UInt64(2_000 - $0) }, "descending")
    }

    @Test func sortsTheRunsOfARange() {
        // A range of 100 key values, each a sorted run of rowIDs spread over a million.
        var generator = SplitMix(seed: 11)
        var rowIDs: [UInt64] = []
        for _ in 0 ..< 100 {
            rowIDs += (0 ..< 100).map { _ in 1 + generator.next() % 1_000_000 }.sorted()
        }
        check(rowIDs, "runs")
    }
}
