// RowIDOrdering must put fetched objects in rowID order, each object kept (no reference
// count changed), for dense rowIDs, rowIDs with gaps, and runs out of order as a class file
// yields them; and leave objects untouched when their rowIDs cannot be placed.

import LarderTestSupport
import Testing
@testable import Larder

@Suite struct RowIDOrderingTests {
    /// Songs with `rowIDs`, in that order (not in any store).
    private func songs(_ rowIDs: [UInt64]) -> [Song] {
        rowIDs.map { rowID in
            let song = Song()
            song.rowID = rowID
            return song
        }
    }

    private func checkOrdered(_ rowIDs: [UInt64], limit: UInt64, _ comment: Comment) {
        let objects = songs(rowIDs)
        var ordered = objects
        Store.orderByRowID(&ordered, rowIDLimit: limit)
        #expect(ordered.map(\.rowID) == rowIDs.sorted(), comment)
        // The same instances, each once.
        #expect(Set(ordered.map(ObjectIdentifier.init)) == Set(objects.map(ObjectIdentifier.init)), comment)
    }

    @Test func ordersShuffledDenseRowIDs() {
        var generator = SplitMix(seed: 0x0DE7)
        for count in [2, 3, 63, 64, 65, 1_000, 10_000] {
            var rowIDs = Array(1 ... UInt64(count))
            for index in stride(from: rowIDs.count - 1, to: 0, by: -1) {
                rowIDs.swapAt(index, Int(generator.next() % UInt64(index + 1)))
            }
            checkOrdered(rowIDs, limit: UInt64(count + 1), "\(count) shuffled")
        }
    }

    @Test func ordersRowIDsWithGapsAndPagesOutOfOrder() {
        // Every third rowID deleted, and pages of 32 rowIDs read back in a scrambled order.
        let kept = (1 ... 3_000 as ClosedRange<UInt64>).filter { $0 % 3 != 0 }
        var pages = Dictionary(grouping: kept) { $0 / 32 }.sorted { $0.key < $1.key }.map(\.value)
        pages.swapAt(3, 40)
        pages.swapAt(0, pages.count - 1)
        checkOrdered(pages.flatMap { $0 }, limit: 3_001, "gaps, pages swapped")
        checkOrdered(Array(kept.reversed()), limit: 3_001, "descending")
        checkOrdered(kept, limit: 3_001, "already in order")
    }

    @Test func leavesObjectsUntouchedWhenARowIDCannotBePlaced() {
        let repeated = songs([5, 3, 5, 1])
        var references = repeated.map { Unmanaged.passUnretained($0 as StoredObject).toOpaque() }
        #expect(!Store.placeByRowID(&references, count: references.count, tableSize: 8))
        #expect(references == repeated.map { Unmanaged.passUnretained($0 as StoredObject).toOpaque() })
        let outOfRange = songs([2, 9, 1])
        references = outOfRange.map { Unmanaged.passUnretained($0 as StoredObject).toOpaque() }
        #expect(!Store.placeByRowID(&references, count: references.count, tableSize: 8))
        #expect(references == outOfRange.map { Unmanaged.passUnretained($0 as StoredObject).toOpaque() })
        withExtendedLifetime((repeated, outOfRange)) {}
    }

    @Test func fallsBackToComparingWhenRowIDsAreRepeated() {
        // Uniquing rules repeated rowIDs out; ordering them anyway must keep every object.
        var objects = songs([4, 2, 4, 1])
        Store.orderByRowID(&objects, rowIDLimit: 5)
        #expect(objects.map(\.rowID) == [1, 2, 4, 4])
    }
}
