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
    func pick(_ page: UnsafeRawBufferPointer, number: Int, into batch: inout CopiedRecords) throws {
        let readThroughDirectory = try forEachSparseRowID(ofPage: number) { rowID in
            if let record = try RecordPage.record(of: UInt64(rowID), in: page, layout: layout) {
                batch.append(record, rowID: rowID)
            }
        }
        if readThroughDirectory { return }
        let wanted = wanted
        try RecordPage.forEachRecord(in: page, number: UInt64(number), layout: layout) { rowID, record in
            let word = Int(rowID >> 6)
            if word < wanted.count, wanted[word] & (1 << (rowID & 63)) != 0 {
                batch.append(record, rowID: Int64(rowID))
            }
        }
    }

    /// Adds to `batch` the wanted records of `pages`, a window at a time: first the
    /// directory offsets of the records that pages with few wanted ones will read are asked
    /// for, then the entries these name, so that the misses of a window's pages overlap.
    func pick(_ pages: ArraySlice<(number: Int, page: UnsafeRawBufferPointer)>, into batch: inout CopiedRecords) throws {
        for window in stride(from: pages.startIndex, to: pages.endIndex, by: Self.prefetchWindow) {
            let windowPages = pages[window ..< min(window + Self.prefetchWindow, pages.endIndex)]
            for (number, page) in windowPages {
                _ = forEachSparseRowID(ofPage: number) { RecordPage.prefetchDirectoryOffset(of: UInt64($0), in: page, layout: layout) }
            }
            for (number, page) in windowPages {
                _ = forEachSparseRowID(ofPage: number) { RecordPage.prefetchEntry(of: UInt64($0), in: page, layout: layout) }
            }
            for (number, page) in windowPages { try pick(page, number: number, into: &batch) }
        }
    }

    /// Pages whose misses ``pick(_:into:)`` overlaps.
    static let prefetchWindow = 8

    /// Calls `body` with each wanted rowID of page `number`, in order, and returns true when
    /// the page has a directory and at most ``recordsReadThroughDirectory`` wanted records;
    /// else returns false without calling it.
    private func forEachSparseRowID(ofPage number: Int, _ body: (Int64) throws -> Void) rethrows -> Bool {
        // A page's rowIDs fill whole words of `wanted` when it has a directory (128 or more).
        let wordsPerPage = layout.hasDirectory ? layout.capacity / 64 : 0
        guard wordsPerPage > 0 else { return false }
        let firstWord = number * wordsPerPage
        let words = wanted[min(firstWord, wanted.count) ..< min(firstWord + wordsPerPage, wanted.count)]
        guard words.reduce(0, { $0 + $1.nonzeroBitCount }) <= Self.recordsReadThroughDirectory else { return false }
        for (word, bits) in zip(words.indices, words) {
            var remaining = bits
            while remaining != 0 {
                try body(Int64(word << 6 | remaining.trailingZeroBitCount))
                remaining &= remaining - 1
            }
        }
        return true
    }

    /// The wanted records of `pages` (ascending page numbers), about `records` of them, in
    /// page order across the batches returned (one per thread that picked, never joined:
    /// ``CopiedRecords/decode(_:shapes:_:)`` takes them as they are); picked on every core
    /// when there are many pages.
    func pick(_ pages: [(number: Int, page: UnsafeRawBufferPointer)], records: Int) throws -> [CopiedRecords] {
        let threads = min(pages.count / max(pagesPerThread, 1), ProcessInfo.processInfo.activeProcessorCount)
        guard threads > 1 else {
            var batch = CopiedRecords()
            batch.reserveCapacity(records: records)
            try pick(pages[...], into: &batch)
            return [batch]
        }
        let input = Pages(pages: pages)
        let outcomes = ChunkOutcomes(count: threads, initial: CopiedRecords())
        let picker = self
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            let range = (thread * input.pages.count / threads) ..< ((thread + 1) * input.pages.count / threads)
            var batch = CopiedRecords()
            batch.reserveCapacity(records: records / threads + 64)
            do {
                try picker.pick(input.pages[range], into: &batch)
                outcomes.set(thread, value: batch, error: nil)
            } catch {
                outcomes.set(thread, value: CopiedRecords(), error: error)
            }
        }
        if let error = outcomes.firstError { throw error }
        return (0 ..< threads).map { outcomes.value($0) }
    }

    /// The pages, read by every thread while the caller holds the store's lock.
    private struct Pages: @unchecked Sendable {
        let pages: [(number: Int, page: UnsafeRawBufferPointer)]
    }
}
