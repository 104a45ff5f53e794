// PagePicker: picks the records a find wants out of a collection's pages, when it wants
// records of most pages (DocumentTable.records). A page with a directory and few wanted
// records is read at those records only; others are walked. Pages read in place in the
// mapped file are picked on every core: the picking is memory-bound work done before the
// decoding can start, a third of a find that wants a few records of every page.

import Dispatch
import Foundation
import Larder

/// The wanted rowIDs of a find, and how to take their records out of pages.
struct PagePicker: Sendable {
    /// One bit per rowID, set for the wanted ones.
    let wanted: [UInt64]
    let layout: PageLayout

    /// A page with at most this many wanted records is read through its directory: a walk
    /// streams through the page, while jumps to its records miss the cache one by one, so
    /// walks win sooner (measured: a find wanting 16 of a page's 128 records ran slower
    /// through the directory, one wanting 5 ran 14% fewer instructions).
    static let recordsReadThroughDirectory = 8
    /// Each thread picks at least this many pages; fewer pages are picked on the calling
    /// thread.
    var pagesPerThread = 512

    /// Adds to `batch` the wanted records of page `number`.
    /// Throws ``RecordPage/Damage`` for a page that does not parse.
    func pick(_ page: UnsafeRawBufferPointer, number: Int, into batch: inout RecordBatch) throws {
        // A page's rowIDs fill whole words of `wanted` when it has a directory (128 or more).
        let wordsPerPage = layout.hasDirectory ? layout.capacity / 64 : 0
        if wordsPerPage > 0 {
            let firstWord = number * wordsPerPage
            let words = wanted[min(firstWord, wanted.count) ..< min(firstWord + wordsPerPage, wanted.count)]
            if words.reduce(0, { $0 + $1.nonzeroBitCount }) <= Self.recordsReadThroughDirectory {
                for (word, bits) in zip(words.indices, words) {
                    var remaining = bits
                    while remaining != 0 {
                        let rowID = Int64(word << 6 | remaining.trailingZeroBitCount)
                        remaining &= remaining - 1
                        if let record = try RecordPage.record(of: UInt64(rowID), in: page, layout: layout) {
                            batch.append(record, rowID: rowID)
                        }
                    }
                }
                return
            }
        }
        let wanted = wanted
        try RecordPage.forEachRecord(in: page, number: UInt64(number), layout: layout) { rowID, record in
            let word = Int(rowID >> 6)
            if word < wanted.count, wanted[word] & (1 << (rowID & 63)) != 0 {
                batch.append(record, rowID: Int64(rowID))
            }
        }
    }

    /// The wanted records of `pages` (ascending page numbers), in page order, about
    /// `records` of them; picked on every core when there are many pages.
    func pick(_ pages: [(number: Int, page: UnsafeRawBufferPointer)], records: Int) throws -> RecordBatch {
        let threads = min(pages.count / max(pagesPerThread, 1), ProcessInfo.processInfo.activeProcessorCount)
        guard threads > 1 else {
            var batch = RecordBatch()
            batch.reserveCapacity(records: records)
            for (number, page) in pages { try pick(page, number: number, into: &batch) }
            return batch
        }
        let input = Pages(pages: pages)
        let outcomes = ChunkOutcomes(count: threads, initial: RecordBatch())
        let picker = self
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            let range = (thread * input.pages.count / threads) ..< ((thread + 1) * input.pages.count / threads)
            var batch = RecordBatch()
            batch.reserveCapacity(records: records / threads + 64)
            do {
                for index in range {
                    try picker.pick(input.pages[index].page, number: input.pages[index].number, into: &batch)
                }
                outcomes.set(thread, value: batch, error: nil)
            } catch {
                outcomes.set(thread, value: RecordBatch(), error: error)
            }
        }
        if let error = outcomes.firstError { throw error }
        var batch = RecordBatch()
        batch.reserveCapacity(records: records)
        for thread in 0 ..< threads { batch.append(contentsOf: outcomes.value(thread)) }
        return batch
    }

    /// The pages, read by every thread while the caller holds the store's lock.
    private struct Pages: @unchecked Sendable {
        let pages: [(number: Int, page: UnsafeRawBufferPointer)]
    }
}
