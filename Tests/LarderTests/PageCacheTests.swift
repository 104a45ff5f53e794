// The cached page's table of envelopes (built at its second read): every rowID of a page,
// read in any order and any number of times, finds what a walk of the page finds, and a page
// whose entries do not all parse answers (and throws) exactly as the walk does.

import Testing
@testable import Larder

@Suite struct PageCacheTests {
    /// Page 1 of the objects layout (rowIDs 32-63) with a record for each rowID in `rowIDs`.
    private func page(with rowIDs: [UInt64]) -> [UInt8] {
        var page: [UInt8] = []
        RecordPage.beginPage(in: &page, layout: .objects)
        for rowID in rowIDs.sorted() {
            let envelope = (0 ..< Int(rowID % 7) + 1).map { UInt8(truncatingIfNeeded: Int(rowID) &* 13 &+ $0) }
            envelope.withUnsafeBytes { RecordPage.appendEntry(slot: PageLayout.objects.slot(of: rowID), envelope: $0, to: &page) }
        }
        RecordPage.finishPage(&page, layout: .objects)
        return page
    }

    /// What a walk of `page` finds for `rowID`: the envelope's bytes, nil, or a thrown Damage.
    private func walked(_ rowID: UInt64, in page: [UInt8]) -> Result<[UInt8]?, RecordPage.Damage> {
        page.withUnsafeBytes { bytes in
            Result { () throws(RecordPage.Damage) -> [UInt8]? in try RecordPage.record(of: rowID, in: bytes).map { Array($0) } }
        }
    }

    /// What the cache finds for `rowID`.
    private func cached(_ rowID: UInt64, in cache: inout PageCache) -> Result<[UInt8]?, RecordPage.Damage> {
        Result { () throws(RecordPage.Damage) -> [UInt8]? in
            try cache.envelopeBounds(of: rowID).map { Array(cache.bytes[$0]) }
        }
    }

    @Test func everyReadFindsWhatAWalkFinds() throws {
        // Every third slot has a record, so that half the reads find none.
        let bytes = page(with: Array(stride(from: UInt64(33), through: 63, by: 3)))
        var cache = PageCache()
        bytes.withUnsafeBytes { cache.store($0, as: 1) }
        var order = Array(UInt64(32) ... 63)
        for round in 0 ..< 3 {
            if round == 1 { order.reverse() }
            if round == 2 { order = order.enumerated().sorted { ($0.offset * 7) % 32 < ($1.offset * 7) % 32 }.map(\.element) }
            for rowID in order {
                let expected = walked(rowID, in: bytes)
                #expect(try cached(rowID, in: &cache).get() == expected.get(), "rowID \(rowID), round \(round)")
            }
        }
        #expect(try cached(36, in: &cache).get() == [UInt8(truncatingIfNeeded: 36 * 13), UInt8(truncatingIfNeeded: 36 * 13 + 1)])
        #expect(try cached(35, in: &cache).get() == nil)
    }

    @Test func aNewPageReplacesTheTable() throws {
        var cache = PageCache()
        let first = page(with: [40, 41])
        let second = page(with: [41, 50])
        first.withUnsafeBytes { cache.store($0, as: 1) }
        _ = cached(40, in: &cache)
        _ = cached(41, in: &cache)   // the table is built here
        second.withUnsafeBytes { cache.store($0, as: 1) }
        #expect(try cached(40, in: &cache).get() == nil)
        #expect(try cached(41, in: &cache).get() == walked(41, in: second).get())
        #expect(try cached(50, in: &cache).get() == walked(50, in: second).get())
        #expect(try cached(50, in: &cache).get() != nil)
    }

    @Test func aDamagedEntryAnswersAsTheWalkDoes() throws {
        var bytes = page(with: [33, 40, 50])
        // The entry of rowID 50 claims more bytes than the page has: records before it are
        // found, it and those after it throw, for the walk and the cache alike.
        let slotPosition = try #require(bytes.lastIndex(of: UInt8(PageLayout.objects.slot(of: 50))))
        bytes[slotPosition + 1] = 0x7f
        var cache = PageCache()
        bytes.withUnsafeBytes { cache.store($0, as: 1) }
        for _ in 0 ..< 2 {
            for rowID in [UInt64(33), 40, 45, 50, 60] {
                let expected = walked(rowID, in: bytes)
                let found = cached(rowID, in: &cache)
                switch (expected, found) {
                case let (.success(a), .success(b)): #expect(a == b, "rowID \(rowID)")
                case (.failure, .failure): break
                default: Issue.record("rowID \(rowID): the walk gives \(expected), the cache \(found)")
                }
            }
        }
        if case .success = walked(60, in: bytes) { Issue.record("the damaged entry is not damage") }
    }
}
