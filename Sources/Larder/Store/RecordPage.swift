// RecordPage: how a class file groups object records. Every call into Tokyo Cabinet is
// expensive (DESIGN.md), so a class file holds one Tokyo Cabinet record per page of 32
// consecutive rowIDs, not one per object: a save puts, a fetch iterates and a point read gets
// a page at a time. Each object keeps its own record envelope inside the page (checksummed or
// encrypted, bound to its rowID as before), so damage and authentication stay per object.
//
//   key:    [0x50 'P'][page number, 8 bytes big-endian]        page number = rowID >> 5
//   value:  [0x50 page format][entry]...                        one or more entries
//   entry:  [slot = rowID & 31][varint envelope size][envelope]  slots strictly ascending
//
// Other tables may group more rowIDs a page (PageLayout; LarderDocuments' collections put
// 128): the functions that split rowIDs take the layout, class files' by default.
//
// The envelope is RecordEnvelope's, with the 8-byte big-endian rowID as its key.
// docs/FORMAT.md (section 6) has the bytes.

/// The page format of class files (and, with a layout of their own, of document collections).
package enum RecordPage {
    /// The first byte of a page key.
    package static let keyPrefix: UInt8 = 0x50
    /// The first byte of a page value.
    package static let format: UInt8 = 0x50
    /// Bytes in a page key.
    package static let keySize = 9

    /// A page whose bytes do not parse, reported by its first rowID.
    package struct Damage: Error, Equatable {
        package let firstRowID: UInt64
    }

    /// The class-file page holding `rowID`.
    @inline(__always)
    package static func number(of rowID: UInt64) -> UInt64 { PageLayout.objects.number(of: rowID) }

    /// The first rowID of class-file page `number` (rowID 0 is never handed out, so page 0
    /// holds 31).
    @inline(__always)
    package static func firstRowID(ofPage number: UInt64) -> UInt64 { PageLayout.objects.firstRowID(ofPage: number) }

    /// The key of page `number`.
    package static func key(forPage number: UInt64) -> [UInt8] {
        var key: [UInt8] = []
        key.reserveCapacity(keySize)
        key.append(keyPrefix)
        RowIDKey.append(number, to: &key)
        return key
    }

    /// The page number in a page key, or nil for any other key.
    package static func number(inKey key: UnsafeRawBufferPointer) -> UInt64? {
        guard key.count == keySize, key[0] == keyPrefix else { return nil }
        return UInt64(bigEndian: key.loadUnaligned(fromByteOffset: 1, as: UInt64.self))
    }

    /// Calls `body` with the rowID and envelope of every record in page `number`, in rowID
    /// order. Throws ``Damage`` when the bytes do not parse (after the records before it).
    package static func forEachRecord(in page: UnsafeRawBufferPointer, number: UInt64, layout: PageLayout = .objects,
                              _ body: (UInt64, UnsafeRawBufferPointer) throws -> Void) throws {
        let first = layout.firstRowID(ofPage: number)
        var reader = Reader(page: page, firstRowID: first, layout: layout)
        try reader.checkFormat()
        while let (slot, envelope) = try reader.next() {
            try body(first | UInt64(slot), envelope)
        }
    }

    /// The envelope of `rowID` in `page` (the page that holds it), or nil when the page has
    /// no record for it.
    package static func record(of rowID: UInt64, in page: UnsafeRawBufferPointer,
                               layout: PageLayout = .objects) throws(Damage) -> UnsafeRawBufferPointer? {
        let wanted = layout.slot(of: rowID)
        var reader = Reader(page: page, firstRowID: layout.firstRowID(ofPage: layout.number(of: rowID)), layout: layout)
        try reader.checkFormat()
        while let (slot, envelope) = try reader.next() {
            if slot == wanted { return envelope }
            if slot > wanted { return nil }
        }
        return nil
    }

    /// The number of records in `page`.
    package static func recordCount(in page: UnsafeRawBufferPointer, number: UInt64,
                                    layout: PageLayout = .objects) throws(Damage) -> Int {
        var reader = Reader(page: page, firstRowID: layout.firstRowID(ofPage: number), layout: layout)
        try reader.checkFormat()
        var count = 0
        while try reader.next() != nil { count += 1 }
        return count
    }

    /// Appends the page format byte to `bytes` (the start of a page).
    static func beginPage(in bytes: inout [UInt8]) {
        bytes.append(format)
    }

    /// Appends an entry for `slot` with `envelope` to a page being written.
    @inline(__always)
    static func appendEntry(slot: Int, envelope: UnsafeRawBufferPointer, to bytes: inout [UInt8]) {
        bytes.append(UInt8(truncatingIfNeeded: slot))
        bytes.appendVarInt(UInt64(envelope.count))
        bytes.appendBytes(envelope)
    }

    /// Walks the entries of a page, checking every bound.
    struct Reader {
        let page: UnsafeRawBufferPointer
        let firstRowID: UInt64
        /// Slots at or past this are damage.
        private let capacity: Int
        private var position = 1
        private var lastSlot = -1

        init(page: UnsafeRawBufferPointer, firstRowID: UInt64, layout: PageLayout = .objects) {
            self.page = page
            self.firstRowID = firstRowID
            capacity = layout.capacity
        }

        func checkFormat() throws(Damage) {
            guard page.count > 1, page[0] == RecordPage.format else { throw Damage(firstRowID: firstRowID) }
        }

        /// The next entry, or nil at the end of the page.
        @inline(__always)
        mutating func next() throws(Damage) -> (slot: Int, envelope: UnsafeRawBufferPointer)? {
            let count = page.count
            guard position < count, let base = page.baseAddress else { return nil }
            let slot = Int(base.load(fromByteOffset: position, as: UInt8.self))
            guard slot > lastSlot, slot < capacity else { throw Damage(firstRowID: firstRowID) }
            position &+= 1
            var size = 0
            var shift = 0
            while true {
                // Sizes fit in 4 varint bytes (Tokyo Cabinet values are under 2 GiB).
                guard position < count, shift <= 28 else { throw Damage(firstRowID: firstRowID) }
                let byte = base.load(fromByteOffset: position, as: UInt8.self)
                position &+= 1
                size |= Int(byte & 0x7f) << shift
                if byte < 0x80 { break }
                shift &+= 7
            }
            guard size <= count &- position else { throw Damage(firstRowID: firstRowID) }
            let envelope = UnsafeRawBufferPointer(start: base + position, count: size)
            position &+= size
            lastSlot = slot
            return (slot, envelope)
        }
    }
}
