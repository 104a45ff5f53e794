// Picking wanted records out of pages on every core (PagePicker) must give exactly what
// picking them on one thread gives, in page order, for sparse and dense choices, and report
// a damaged page from whichever thread met it.

import Foundation
import Larder
import LarderTestSupport
import Testing
@testable import LarderDocuments

@Suite struct PagePickerTests {
    /// The collection's pages as read in place, in page order.
    private func pages(of state: CollectionEngine) throws -> [(number: Int, page: [UInt8])] {
        var pages: [(number: Int, page: [UInt8])] = []
        let inPlace = try state.backend.withRecordsInPlace(in: state.name) { records in
            for (key, value) in records {
                guard let number = RecordPage.number(inKey: key) else { continue }
                pages.append((Int(number), Array(value)))
            }
        }
        #expect(inPlace)
        return pages.sorted { $0.number < $1.number }
    }

    /// The rowIDs and record bytes `picker` takes out of `pages`.
    private func picked(_ pages: [(number: Int, page: [UInt8])], by picker: PagePicker) throws -> [(Int64, [UInt8])] {
        // Stable copies of the pages, as the mapped file would be while the lock is held.
        let buffers = pages.map { UnsafeMutableRawBufferPointer.allocate(byteCount: max($0.page.count, 1), alignment: 1) }
        defer { for buffer in buffers { buffer.deallocate() } }
        var input: [(number: Int, page: UnsafeRawBufferPointer)] = []
        for (buffer, page) in zip(buffers, pages) {
            page.page.withUnsafeBytes { buffer.copyMemory(from: $0) }
            input.append((page.number, UnsafeRawBufferPointer(rebasing: buffer[..<page.page.count])))
        }
        let batches = try picker.pick(input, records: 64)
        return batches.flatMap { batch in batch.spans.map { ($0.rowID, Array(batch.bytes[$0.start ..< $0.start + $0.count])) } }
    }

    private func wanted(_ rowIDs: [Int64], upTo last: Int64) -> [UInt64] {
        var bits = [UInt64](repeating: 0, count: Int(last >> 6) + 1)
        for rowID in rowIDs { bits[Int(rowID >> 6)] |= 1 << UInt64(rowID & 63) }
        return bits
    }

    @Test func picksOnEveryCoreWhatOneThreadPicks() throws {
        let temporary = try TemporaryStore()
        let c = try temporary.store.collection("many")
        try c.insertBatch((1 ... 6_000).map { ["n": .int(Int64($0))] })
        #expect(try c.delete(where: "[n] >= ? AND [n] < ?", arguments: [2_000, 2_300]) == 300)
        try c.withState { state in
            let pages = try pages(of: state)
            // 6,000 rowIDs in pages 0 ... 46; page 16 (rowIDs 2,048 ... 2,175) was emptied.
            #expect(pages.count == 46)
            for choice in [Array(stride(from: Int64(1), through: 6_000, by: 37)), Array(Int64(1_500) ... 4_500)] {
                let bits = wanted(choice, upTo: 6_000)
                let oneThread = try picked(pages, by: PagePicker(wanted: bits, layout: state.documents.layout, pagesPerThread: .max))
                let everyCore = try picked(pages, by: PagePicker(wanted: bits, layout: state.documents.layout, pagesPerThread: 4))
                let stored = Set(choice.filter { !(2_000 ..< 2_300).contains($0) })
                #expect(oneThread.map(\.0) == stored.sorted())
                #expect(everyCore.map(\.0) == oneThread.map(\.0))
                #expect(everyCore.map(\.1) == oneThread.map(\.1))
            }
            // A damaged page among many: the thread that meets it reports it.
            var damaged = pages
            damaged[30].page[0] = 0x7F
            let bits = wanted(Array(1 ... 6_000), upTo: 6_000)
            #expect(throws: RecordPage.Damage.self) {
                try picked(damaged, by: PagePicker(wanted: bits, layout: state.documents.layout, pagesPerThread: 4))
            }
        }
    }
}
