// PageCheck: a class-file page of a plaintext store checksummed whole (store format 5), as an
// encrypted store's pages are sealed whole (PageSeal). A CRC-32 per page instead of per record
// saves four bytes and a checksum computation per object: the records inside are plain
// envelopes (0x01).
//
//   value:  [0x53][CRC-32 of the page key (9 bytes) and the page, 4 bytes LE][the page]
//
// The page inside is an ordinary page (RecordPage). A changed byte, or a page moved under another
// page number, fails the checksum: the page's records are reported damaged together.

/// The whole-page checksum of a plaintext store's class files.
package enum PageCheck {
    /// The first byte of a checked page (RecordPage's own formats are 0x50 and 0x51, a sealed
    /// page's 0x52).
    package static let format: UInt8 = 0x53
    /// Bytes a checked page adds to the page inside it.
    package static let overhead = 5

    /// True when `page` is checksummed whole.
    @inline(__always)
    package static func isChecked(_ page: UnsafeRawBufferPointer) -> Bool { page.first == format }

    /// Puts the format byte and the checksum of page `number` in front of `page` (a page as
    /// RecordPage writes it).
    static func check(_ page: inout [UInt8], number: UInt64) {
        let checksum = page.withUnsafeBytes { Self.checksum(of: $0, number: number) }
        var header: [UInt8] = [format]
        header.appendLittleEndian(checksum)
        page.insert(contentsOf: header, at: 0)
    }

    /// The page inside the checked page `stored` (page `number`), or nil when its checksum does
    /// not match.
    static func open(_ stored: UnsafeRawBufferPointer, number: UInt64) -> UnsafeRawBufferPointer? {
        guard let page = contents(of: stored) else { return nil }
        return stored.loadLittleEndian(UInt32.self, at: 1) == checksum(of: page, number: number) ? page : nil
    }

    /// The page inside the checked page `stored`, its checksum not checked: only for bytes
    /// ``open(_:number:)`` accepted already. Nil when `stored` is not a checked page.
    static func contents(of stored: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        guard stored.count > overhead, isChecked(stored) else { return nil }
        return UnsafeRawBufferPointer(rebasing: stored[overhead...])
    }

    private static func checksum(of page: UnsafeRawBufferPointer, number: UInt64) -> UInt32 {
        // The page key, built on the stack (this runs for every page read).
        withUnsafeTemporaryAllocation(byteCount: RecordPage.keySize, alignment: 1) { key in
            RecordPage.storeKey(forPage: number, in: key, at: 0)
            return Checksum.crc32(UnsafeRawBufferPointer(key), page)
        }
    }
}
