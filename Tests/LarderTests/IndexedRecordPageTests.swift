// Pages with a directory (RecordPage's indexed format, written for layouts that ask for it):
// every record is found through the directory exactly as a walk of the same entries finds
// it, for every page size and slot pattern, with 2- and 4-byte offsets; a damaged directory
// is damage, never a record silently missing, and never bytes that open as the record.

import Foundation
import Testing
@testable import Larder
import LarderTestSupport

@Suite struct IndexedRecordPageTests {
    private typealias Entry = (slot: Int, envelope: [UInt8])

    private func page(_ entries: [Entry], layout: PageLayout) -> [UInt8] {
        var bytes: [UInt8] = []
        RecordPage.beginPage(in: &bytes, layout: layout)
        for entry in entries {
            entry.envelope.withUnsafeBytes { RecordPage.appendEntry(slot: entry.slot, envelope: $0, to: &bytes) }
        }
        RecordPage.finishPage(&bytes, layout: layout)
        return bytes
    }

    private func record(_ rowID: UInt64, in page: [UInt8], layout: PageLayout) throws -> [UInt8]? {
        try page.withUnsafeBytes { try RecordPage.record(of: rowID, in: $0, layout: layout).map(Array.init) }
    }

    private func records(in page: [UInt8], number: UInt64, layout: PageLayout) throws -> [(UInt64, [UInt8])] {
        var listed: [(UInt64, [UInt8])] = []
        try page.withUnsafeBytes { bytes in
            try RecordPage.forEachRecord(in: bytes, number: number, layout: layout) { listed.append(($0, Array($1))) }
        }
        return listed
    }

    private func randomEntries(capacity: Int, sizes: ClosedRange<Int>, using generator: inout SplitMix) -> [Entry] {
        var slots = (0 ..< capacity).filter { _ in Int.random(in: 0 ..< 3, using: &generator) == 0 }
        if slots.isEmpty { slots = [Int.random(in: 0 ..< capacity, using: &generator)] }
        return slots.map { slot in
            (slot, (0 ..< Int.random(in: sizes, using: &generator)).map { _ in UInt8.random(in: 0 ... 255, using: &generator) })
        }
    }

    @Test func everyRecordIsFoundThroughTheDirectoryAsAWalkFindsIt() throws {
        var generator = SplitMix(seed: 21)
        for slotBits in [UInt64(5), 7, 8] {
            let indexed = PageLayout(slotBits: slotBits, hasDirectory: true)
            let plain = PageLayout(slotBits: slotBits)
            for trial in 0 ..< 30 {
                // Every tenth page has large records.
                let sizes = trial % 10 == 9 ? 1_500 ... 3_000 : 0 ... 300
                let entries = randomEntries(capacity: indexed.capacity, sizes: sizes, using: &generator)
                let withDirectory = page(entries, layout: indexed)
                let without = page(entries, layout: plain)
                #expect(withDirectory[0] == RecordPage.indexedFormat)
                #expect(without[0] == RecordPage.format)
                // The directory (the last slot, the offsets' width, a checksum, an offset per
                // slot up to the last), then the same entries.
                let lastSlot = entries.last?.slot ?? 0
                let width = 7 + (lastSlot + 1) * 2 + without.count - 1 <= Int(UInt16.max) ? 2 : 4
                #expect(withDirectory.count == without.count + 6 + (lastSlot + 1) * width)
                #expect(Array(withDirectory.suffix(without.count - 1)) == Array(without[1...]))
                #expect(withDirectory[1] == UInt8(lastSlot))
                #expect(withDirectory[2] == UInt8(width))
                // Every tenth page of 128 or 256 slots has 4-byte offsets.
                #expect(trial % 10 != 9 || slotBits < 7 || width == 4)

                let number: UInt64 = 3
                let first = indexed.firstRowID(ofPage: number)
                for slot in 0 ..< indexed.capacity {
                    let expected = entries.first { $0.slot == slot }?.envelope
                    #expect(try record(first | UInt64(slot), in: withDirectory, layout: indexed) == expected)
                    #expect(try record(first | UInt64(slot), in: without, layout: plain) == expected)
                }
                let listed = try records(in: withDirectory, number: number, layout: indexed)
                #expect(listed.map(\.0) == entries.map { first | UInt64($0.slot) })
                #expect(listed.map(\.1) == entries.map(\.envelope))
                #expect(try withDirectory.withUnsafeBytes {
                    try RecordPage.recordCount(in: $0, number: number, layout: indexed)
                } == entries.count)
            }
        }
    }

    /// The envelope of `content` for `rowID`, checksummed and bound to the rowID.
    private func envelope(_ content: [UInt8], rowID: UInt64) throws -> [UInt8] {
        var bytes = RowIDKey.bytes(rowID)
        try RecordEnvelope.append(version: 1, content: content, to: &bytes, keyStart: 0, cipher: nil, scope: 0)
        return Array(bytes[RowIDKey.size...])
    }

    /// True when `bytes` open as a checksummed record (format 02, as documents are) of `rowID`.
    private func opensAsChecked(_ bytes: [UInt8], rowID: UInt64) -> Bool {
        guard bytes.first == 0x02 else { return false }
        return (try? bytes.withUnsafeBytes { try RecordEnvelope.open($0, key: RowIDKey.bytes(rowID), cipher: nil, scope: 0) }) != nil
    }

    @Test func aDamagedDirectoryIsDamageNeverAMissingOrWrongRecord() throws {
        let layout = PageLayout(slotBits: 7, hasDirectory: true)
        let entries: [Entry] = try [(1, envelope(Array(repeating: 1, count: 40), rowID: 1)),
                                    (5, envelope(Array(repeating: 5, count: 7), rowID: 5)),
                                    (70, envelope(Array(repeating: 70, count: 300), rowID: 70))]
        let good = page(entries, layout: layout)
        let directoryEnd = 7 + 71 * 2
        // Any bit flipped in the directory: a record read alone comes back, or
        // the page is damage, or the bytes found do not open as that rowID's record. A walk
        // of the page checks the whole directory.
        for position in 1 ..< directoryEnd {
            for flip: UInt8 in [0x01, 0x04, 0x10, 0x80] {
                var damaged = good
                damaged[position] ^= flip
                for (slot, expected) in entries {
                    do {
                        let found = try record(UInt64(slot), in: damaged, layout: layout)
                        #expect(found != nil, "slot \(slot) lost after byte \(position) ^ \(flip)")
                        if let found, found != expected {
                            #expect(!opensAsChecked(found, rowID: UInt64(slot)), "slot \(slot), byte \(position) ^ \(flip)")
                        }
                    } catch {
                        #expect(error is RecordPage.Damage)
                    }
                }
                #expect(throws: RecordPage.Damage.self) { try records(in: damaged, number: 0, layout: layout) }
            }
        }
        // A slot without entry is answered through the checksum: a flipped offset of an
        // absent slot that leads nowhere is damage, and so is any damage when none is found.
        for position in 1 ..< directoryEnd {
            var damaged = good
            damaged[position] ^= 0x01
            #expect(throws: RecordPage.Damage.self) { try record(2, in: damaged, layout: layout) }
        }
        // A directory whose checksum matches but that names the wrong entries: two slots'
        // offsets swapped, or a slot's entry left out.
        func resealed(_ change: (inout [UInt8]) -> Void) -> [UInt8] {
            var bytes = good
            change(&bytes)
            let checksum = bytes.withUnsafeBytes {
                Checksum.crc32(UnsafeRawBufferPointer(rebasing: $0[1 ..< 3]), UnsafeRawBufferPointer(rebasing: $0[7 ..< directoryEnd]))
            }
            withUnsafeBytes(of: checksum.littleEndian) { bytes.replaceSubrange(3 ..< 7, with: $0) }
            return bytes
        }
        let swapped = resealed { bytes in
            let one = 7 + 1 * 2, five = 7 + 5 * 2
            for index in 0 ..< 2 { bytes.swapAt(one + index, five + index) }
        }
        #expect(throws: RecordPage.Damage.self) { try record(1, in: swapped, layout: layout) }
        #expect(throws: RecordPage.Damage.self) { try record(5, in: swapped, layout: layout) }
        #expect(try record(70, in: swapped, layout: layout) == entries[2].envelope)
        #expect(throws: RecordPage.Damage.self) { try records(in: swapped, number: 0, layout: layout) }
        let leftOut = resealed { bytes in
            bytes[7 + 5 * 2] = 0
            bytes[7 + 5 * 2 + 1] = 0
        }
        // Reading slot 5 alone cannot tell; a walk of the page (verify, scans) does.
        #expect(try record(5, in: leftOut, layout: layout) == nil)
        #expect(throws: RecordPage.Damage.self) { try records(in: leftOut, number: 0, layout: layout) }
        // A truncated page.
        #expect(throws: RecordPage.Damage.self) { try record(70, in: Array(good.dropLast()), layout: layout) }
        #expect(throws: RecordPage.Damage.self) { try records(in: Array(good.dropLast()), number: 0, layout: layout) }
        #expect(throws: RecordPage.Damage.self) { try record(1, in: Array(good.prefix(directoryEnd)), layout: layout) }
        #expect(throws: RecordPage.Damage.self) { try record(1, in: Array(good.prefix(7)), layout: layout) }
    }

    /// Asking for a record's directory offset and entry ahead of reading them reads nothing
    /// past a page, whole or cut short: each page here ends where an inaccessible memory page
    /// begins, so that a load past it would crash the test.
    @Test func prefetchingARecordReadsNothingPastItsPage() throws {
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        guard let region = mmap(nil, 2 * pageSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
              region != MAP_FAILED else { Issue.record("mmap failed"); return }
        defer { munmap(region, 2 * pageSize) }
        #expect(mprotect(region + pageSize, pageSize, PROT_NONE) == 0)
        var generator = SplitMix(seed: 5)
        let layout = PageLayout(slotBits: 7, hasDirectory: true)
        let entries = randomEntries(capacity: layout.capacity, sizes: 0 ... 20, using: &generator)
        let whole = page(entries, layout: layout)
        // A directory whose offsets point past the page, too.
        var wild = whole
        for at in stride(from: RecordPage.directoryHeaderSize, to: min(wild.count, 200), by: 2) { wild[at + 1] = 0xFF }
        for bytes in [whole, wild] {
            for length in [0, 1, 3, RecordPage.directoryHeaderSize, RecordPage.directoryHeaderSize + 1, 40, bytes.count / 2, bytes.count]
            where length <= min(bytes.count, pageSize) {
                let start = region + pageSize - length
                bytes.withUnsafeBytes { start.copyMemory(from: $0.baseAddress!, byteCount: length) }
                let page = UnsafeRawBufferPointer(start: start, count: length)
                for rowID in UInt64(0) ..< UInt64(layout.capacity) {
                    RecordPage.prefetchDirectoryOffset(of: rowID, in: page, layout: layout)
                    RecordPage.prefetchEntry(of: rowID, in: page, layout: layout)
                }
            }
        }
        // Whole, the page still reads as written.
        let first = try #require(entries.first)
        #expect(try record(UInt64(first.slot), in: whole, layout: layout) == first.envelope)
    }

    @Test func classFilesKeepPagesWithoutDirectory() throws {
        let directory = TemporaryDirectory("plain-pages")
        let store = try directory.openStore()
        try insertLibrary(into: store, songs: 40, perPlaylist: 10)
        var formats: [[UInt8]] = []
        try store.backend.forEachRecord(in: "Song") { _, page in
            // Checked whole (PageCheck): the page inside follows the format byte and checksum.
            formats.append([page[0], page[PageCheck.overhead]])
            return true
        }
        #expect(formats == [[PageCheck.format, RecordPage.format], [PageCheck.format, RecordPage.format]])
        try store.close()
    }
}
