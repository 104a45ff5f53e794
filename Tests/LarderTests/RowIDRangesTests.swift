// RowIDRanges' set operations on ranges (what a class record's deleted rowIDs become when rowIDs
// come from blocks of a shared backend): union and difference, checked against Set<UInt64> on
// random sets, and at the edges (touching ranges, UInt64.max).

import LarderTestSupport
import Testing
@testable import Larder

@Suite struct RowIDRangesTests {
    private func ranges(_ rowIDs: Set<UInt64>) -> RowIDRanges { RowIDRanges(sorting: Array(rowIDs)) }

    @Test func unionAndDifferenceAgreeWithSetsOnRandomRowIDs() {
        var random = SplitMix(seed: 26)
        for _ in 0 ..< 300 {
            let a = Set((0 ..< random.next(below: 60)).map { _ in 1 + UInt64(random.next(below: 120)) })
            let b = Set((0 ..< random.next(below: 60)).map { _ in 1 + UInt64(random.next(below: 120)) })
            #expect(ranges(a).union(ranges(b)) == ranges(a.union(b)))
            #expect(ranges(a).subtracting(ranges(b)) == ranges(a.subtracting(b)))
            #expect(ranges(a).subtracting(ranges(b)).rowIDs == a.subtracting(b).sorted())
        }
    }

    @Test func differenceCutsRangesAtTheirEdges() throws {
        let whole = try #require(RowIDRanges(validating: [1 ... 10, 20 ... 30, UInt64.max - 2 ... UInt64.max]))
        let cut = try #require(RowIDRanges(validating: [0 ... 1, 5 ... 5, 10 ... 21, 30 ... 30, UInt64.max ... UInt64.max]))
        #expect(whole.subtracting(cut).ranges == [2 ... 4, 6 ... 9, 22 ... 29, UInt64.max - 2 ... UInt64.max - 1])
        #expect(whole.subtracting(whole).isEmpty)
        #expect(whole.subtracting(RowIDRanges()) == whole)
        #expect(whole.union(cut).ranges == [0 ... 30, UInt64.max - 2 ... UInt64.max])
    }
}
