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
// A layout with a directory writes the indexed format, whose entries are preceded by a table
// giving each slot's entry, so that reading one record jumps to it instead of walking the
// entries before it (128 entries of a 15 KB page are as many cache misses), and finds the
// table next to the page's start, which the read of the page's header just brought in:
//
//   value:  [0x51 indexed page format][m, 1 byte][width, 1 byte][CRC-32, 4 bytes]
//           [offset of slot 0]...[offset of slot m][entry]...
//           m = the last slot with an entry; an offset is where the slot's entry starts,
//           counted from the format byte, 0 for a slot without entry; `width` bytes each,
//           little-endian; width is 2 when every offset fits in 16 bits, else 4. The CRC-32
//           (little-endian) of m, width and the offsets makes a damaged directory an error,
//           never a document silently missing: a walk checks it, and so does a read of one
//           slot that finds no entry (an entry found has its envelope's own checksum).
//
// Readers read both formats, whatever the layout says.
//
// The envelope is RecordEnvelope's, with the 8-byte big-endian rowID as its key.
// docs/FORMAT.md (section 6) has the bytes.


/// The page format of class files (and, with a layout of their own, of document collections).
package enum RecordPage {
    /// The first byte of a page key.
    package static let keyPrefix: UInt8 = 0x50
    /// The first byte of a page value.
    package static let format: UInt8 = 0x50
    /// The first byte of a page value followed by a directory of its entries.
    package static let indexedFormat: UInt8 = 0x51
    /// The bytes of an indexed page before its directory's offsets: format, last slot, width,
    /// checksum.
    static let directoryHeaderSize = 7
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

    /// The key of page `number`: the prefix, then the number big-endian (as RowIDKey).
    package static func key(forPage number: UInt64) -> [UInt8] {
        // A literal of the key's size, the number written over it: one allocation, no growth
        // (appending allocated twice and copied, about 400 instructions a key, and a query
        // builds a key per page it reads).
        var key: [UInt8] = [keyPrefix, 0, 0, 0, 0, 0, 0, 0, 0]
        key.withUnsafeMutableBytes { $0.storeBigEndian(number, at: 1) }
        return key
    }

    /// The keys of pages `numbers`, in order, packed in one buffer (a read of many pages: no
    /// array per key). Written in place: appending each key cost about 170 instructions.
    package static func keys(forPages numbers: [UInt64]) -> PackedKeys {
        PackedKeys(count: numbers.count, width: keySize) { position, key in
            storeKey(forPage: numbers[position], in: key, at: 0)
        }
    }

    /// Writes the key of page `number` into `bytes` at `offset` (``keySize`` bytes): for keys
    /// built on the stack, alone or inside a larger message (a checksum's or a seal's input).
    @inline(__always)
    static func storeKey(forPage number: UInt64, in bytes: UnsafeMutableRawBufferPointer, at offset: Int) {
        bytes.storeBytes(of: keyPrefix, toByteOffset: offset, as: UInt8.self)
        bytes.storeBigEndian(number, at: offset + 1)
    }

    /// The page number in a page key, or nil for any other key.
    package static func number(inKey key: UnsafeRawBufferPointer) -> UInt64? {
        guard key.count == keySize, key[0] == keyPrefix else { return nil }
        return key.loadBigEndian(UInt64.self, at: 1)
    }

    /// Calls `body` with the rowID and envelope of every record in page `number`, in rowID
    /// order. Throws ``Damage`` when the bytes do not parse (after the records before it), or
    /// when an indexed page's directory disagrees with its entries.
    package static func forEachRecord(in page: UnsafeRawBufferPointer, number: UInt64, layout: PageLayout = .objects,
                              _ body: (UInt64, UnsafeRawBufferPointer) throws -> Void) throws {
        let first = layout.firstRowID(ofPage: number)
        var reader = try Reader(page: page, firstRowID: first, layout: layout)
        try reader.checkDirectoryChecksum()
        while let (slot, envelope) = try reader.next() {
            try reader.checkDirectory(slot: slot)
            try body(first | UInt64(slot), envelope)
        }
        try reader.checkDirectoryEnd()
    }

    /// The envelope of `rowID` in `page` (the page that holds it), or nil when the page has
    /// no record for it.
    package static func record(of rowID: UInt64, in page: UnsafeRawBufferPointer,
                               layout: PageLayout = .objects) throws(Damage) -> UnsafeRawBufferPointer? {
        let wanted = layout.slot(of: rowID)
        let reader = try Reader(page: page, firstRowID: layout.firstRowID(ofPage: layout.number(of: rowID)), layout: layout)
        if reader.hasDirectory { return try reader.entry(ofSlot: wanted) }
        return try reader.walk(toSlot: wanted)
    }

    /// Asks for the directory offset of `rowID` in `page`, an indexed page that holds it,
    /// ahead of ``record(of:in:layout:)``. A hint: nothing is checked, nothing outside the
    /// page is asked for.
    package static func prefetchDirectoryOffset(of rowID: UInt64, in page: UnsafeRawBufferPointer, layout: PageLayout) {
        guard let at = directoryOffsetPosition(of: rowID, in: page, layout: layout), let base = page.baseAddress else { return }
        CacheLinePrefetch.request(base + at)
    }

    /// Asks for the start of the entry the directory of `page`, an indexed page that holds
    /// `rowID`, names for it (after ``prefetchDirectoryOffset(of:in:layout:)``). A hint:
    /// nothing is checked, nothing outside the page is asked for.
    package static func prefetchEntry(of rowID: UInt64, in page: UnsafeRawBufferPointer, layout: PageLayout) {
        guard let at = directoryOffsetPosition(of: rowID, in: page, layout: layout), let base = page.baseAddress else { return }
        let offset = directoryOffset(at: at, width: Int(page[2]), in: base)
        for line in stride(from: offset, to: min(offset + 192, page.count), by: 64) where line > 0 {
            CacheLinePrefetch.request(base + line)
        }
    }

    /// Where the directory of an indexed `page` keeps the offset of `rowID`'s entry, or nil
    /// when `page` is not indexed or that is past its end.
    private static func directoryOffsetPosition(of rowID: UInt64, in page: UnsafeRawBufferPointer, layout: PageLayout) -> Int? {
        guard page.count > directoryHeaderSize, page[0] == indexedFormat, page[2] == 2 || page[2] == 4 else { return nil }
        let at = directoryHeaderSize + layout.slot(of: rowID) * Int(page[2])
        return at + Int(page[2]) <= page.count ? at : nil
    }

    /// The directory offset of `width` bytes (2 or 4), little-endian, at `position` in the page at
    /// `base`; the caller has checked that it lies inside the page.
    @inline(__always)
    private static func directoryOffset(at position: Int, width: Int, in base: UnsafeRawPointer) -> Int {
        width == 2 ? Int(base.loadLittleEndian(UInt16.self, at: position))
                   : Int(base.loadLittleEndian(UInt32.self, at: position))
    }

    /// The number of records in `page`.
    package static func recordCount(in page: UnsafeRawBufferPointer, number: UInt64,
                                    layout: PageLayout = .objects) throws(Damage) -> Int {
        var reader = try Reader(page: page, firstRowID: layout.firstRowID(ofPage: number), layout: layout)
        try reader.checkDirectoryChecksum()
        var count = 0
        while try reader.next() != nil { count += 1 }
        return count
    }

    /// Appends the format byte the layout writes to `bytes` (the start of a page).
    static func beginPage(in bytes: inout [UInt8], layout: PageLayout) {
        bytes.append(layout.hasDirectory ? indexedFormat : format)
    }

    /// Appends an entry for `slot` with `envelope` to a page being written.
    @inline(__always)
    static func appendEntry(slot: Int, envelope: UnsafeRawBufferPointer, to bytes: inout [UInt8]) {
        bytes.append(UInt8(truncatingIfNeeded: slot))
        bytes.appendVarInt(UInt64(envelope.count))
        bytes.appendBytes(envelope)
    }

    /// Writes an entry for `slot` with `envelope` into `room` at `length`, growing the room,
    /// and moves `length` past it: the bytes ``appendEntry(slot:envelope:to:)`` appends, without
    /// an Array's generic copy (about 118 instructions an envelope) and uniqueness checks.
    @inline(__always)
    static func writeEntry(slot: Int, envelope: UnsafeRawBufferPointer, into room: inout ByteRoom, at length: inout Int) {
        // The slot byte, a varint of at most 10 bytes, the envelope.
        room.reserve(length + 11 + envelope.count, keeping: length)
        let start = room.base + length
        start.storeBytes(of: UInt8(truncatingIfNeeded: slot), as: UInt8.self)
        let body = ByteRoom.storeVarInt(UInt64(envelope.count), at: start + 1)
        if let source = envelope.baseAddress, envelope.count > 0 {
            body.copyMemory(from: source, byteCount: envelope.count)
        }
        length = room.base.distance(to: body) + envelope.count
    }

    /// Ends a page begun with ``beginPage(in:layout:)`` whose entries are all appended: puts
    /// the directory of an indexed page before its entries.
    static func finishPage(_ bytes: inout [UInt8], layout: PageLayout) {
        guard layout.hasDirectory else { return }
        // Where each slot's entry starts among the entries (after the format byte).
        var starts = [Int](repeating: -1, count: layout.capacity)
        var lastSlot = 0
        var position = 1
        while position < bytes.count {
            let slot = Int(bytes[position])
            starts[slot] = position - 1
            lastSlot = slot
            position += 1
            var size = 0
            var shift = 0
            while true {
                let byte = bytes[position]
                position += 1
                size |= Int(byte & 0x7F) << shift
                if byte < 0x80 { break }
                shift += 7
            }
            position += size
        }
        let entriesSize = bytes.count - 1
        let width = directoryHeaderSize + (lastSlot + 1) * 2 + entriesSize <= Int(UInt16.max) ? 2 : 4
        let entriesStart = directoryHeaderSize + (lastSlot + 1) * width
        var directory: [UInt8] = [UInt8(lastSlot), UInt8(width), 0, 0, 0, 0]
        directory.reserveCapacity(directory.count + (lastSlot + 1) * width)
        for start in starts[...lastSlot] {
            let offset = start < 0 ? 0 : entriesStart + start
            for byteIndex in 0 ..< width { directory.append(UInt8(truncatingIfNeeded: offset >> (8 * byteIndex))) }
        }
        let checksum = directory.withUnsafeBytes {
            Checksum.crc32(UnsafeRawBufferPointer(rebasing: $0[..<2]), UnsafeRawBufferPointer(rebasing: $0[6...]))
        }
        directory.replaceLittleEndian(checksum, at: 2)
        bytes.insert(contentsOf: directory, at: 1)
    }

    /// Walks the entries of a page, checking every bound; on an indexed page, also finds
    /// entries through the directory.
    struct Reader {
        let page: UnsafeRawBufferPointer
        let firstRowID: UInt64
        /// Slots at or past this are damage.
        private let capacity: Int
        /// Where the entries start: after the format byte, or an indexed page's directory.
        private let entriesStart: Int
        /// Where the entries end: the page's end.
        private let end: Int
        /// Bytes per directory offset; 0 for a page without directory.
        private let width: Int
        /// Slots the directory has offsets for: up to the last slot with an entry.
        private let directorySlots: Int
        private var position = 0
        private var lastSlot = -1
        /// Where the entry last read by ``next()`` starts.
        private var entryStart = 0
        /// The directory's offsets checked so far (``checkDirectory(slot:)``).
        private var checkedSlots = 0

        /// A reader of `page`; throws ``Damage`` when its format byte or directory does not parse.
        init(page: UnsafeRawBufferPointer, firstRowID: UInt64, layout: PageLayout = .objects) throws(Damage) {
            self.page = page
            self.firstRowID = firstRowID
            capacity = layout.capacity
            end = page.count
            guard page.count > 1 else { throw Damage(firstRowID: firstRowID) }
            switch page[0] {
            case RecordPage.format:
                entriesStart = 1
                width = 0
                directorySlots = 0
            case RecordPage.indexedFormat:
                guard page.count > RecordPage.directoryHeaderSize else { throw Damage(firstRowID: firstRowID) }
                let slots = Int(page[1]) + 1
                let width = Int(page[2])
                let entriesStart = RecordPage.directoryHeaderSize + slots * width
                guard width == 2 || width == 4, slots <= capacity, entriesStart < page.count else {
                    throw Damage(firstRowID: firstRowID)
                }
                self.width = width
                self.entriesStart = entriesStart
                directorySlots = slots
            default:
                throw Damage(firstRowID: firstRowID)
            }
            position = entriesStart
        }

        /// True for an indexed page.
        var hasDirectory: Bool { width > 0 }

        /// The next entry, or nil at the end of the page.
        @inline(__always)
        mutating func next() throws(Damage) -> (slot: Int, envelope: UnsafeRawBufferPointer)? {
            guard position < end else { return nil }
            entryStart = position
            let (slot, envelope) = try entry(at: &position)
            guard slot > lastSlot else { throw Damage(firstRowID: firstRowID) }
            lastSlot = slot
            return (slot, envelope)
        }

        /// The envelope of `wanted` found by walking the entries from the reader's position (it
        /// does not move; those before it, and the first past it, are checked as ``next()``
        /// checks them), or nil when the page has none. One tight loop that hands out no entry
        /// but the one wanted: a read of one record walks half a page on average, which cost
        /// about 33 instructions an entry through ``next()``, 24 here.
        func walk(toSlot wanted: Int) throws(Damage) -> UnsafeRawBufferPointer? {
            guard let base = page.baseAddress else { return nil }
            let end = end
            var position = position
            var last = lastSlot
            let capacity = capacity
            guard position >= entriesStart else { throw Damage(firstRowID: firstRowID) }
            while position < end {
                let slot = Int(base.load(fromByteOffset: position, as: UInt8.self))
                guard slot > last, slot < capacity else { throw Damage(firstRowID: firstRowID) }
                position &+= 1
                guard position < end else { throw Damage(firstRowID: firstRowID) }
                var byte = base.load(fromByteOffset: position, as: UInt8.self)
                position &+= 1
                var size = Int(byte)
                if byte >= 0x80 {
                    // A size of several varint bytes (4 at most: Tokyo Cabinet values are under 2 GiB).
                    size &= 0x7f
                    var shift = 7
                    repeat {
                        guard position < end, shift <= 28 else { throw Damage(firstRowID: firstRowID) }
                        byte = base.load(fromByteOffset: position, as: UInt8.self)
                        position &+= 1
                        size |= Int(byte & 0x7f) << shift
                        shift &+= 7
                    } while byte >= 0x80
                }
                guard size <= end &- position else { throw Damage(firstRowID: firstRowID) }
                last = slot
                if slot >= wanted { return slot == wanted ? UnsafeRawBufferPointer(start: base + position, count: size) : nil }
                position &+= size
            }
            return nil
        }

        /// The entry of `slot` through the directory of an indexed page, or nil when the slot
        /// has none. An entry found is checked against its slot (its envelope's checksum,
        /// bound to its rowID, checks the rest); an answer of none, against the directory's
        /// checksum, so that damage never hides a record.
        func entry(ofSlot slot: Int) throws(Damage) -> UnsafeRawBufferPointer? {
            let offset = slot < directorySlots ? directoryOffset(ofSlot: slot) : 0
            if offset == 0 {
                try checkDirectoryChecksum()
                return nil
            }
            var position = offset
            let (found, envelope) = try entry(at: &position)
            guard found == slot else { throw Damage(firstRowID: firstRowID) }
            return envelope
        }

        /// Throws ``Damage`` unless an indexed page's directory matches its checksum.
        func checkDirectoryChecksum() throws(Damage) {
            guard hasDirectory else { return }
            let stored = page.loadLittleEndian(UInt32.self, at: 3)
            let computed = Checksum.crc32(UnsafeRawBufferPointer(rebasing: page[1 ..< 3]),
                                          UnsafeRawBufferPointer(rebasing: page[RecordPage.directoryHeaderSize ..< entriesStart]))
            guard computed == stored else { throw Damage(firstRowID: firstRowID) }
        }

        /// Throws ``Damage`` unless the directory of an indexed page points at the entry
        /// just read by ``next()``, of `slot`, and has no entry for the slots between it and
        /// the entry read before.
        @inline(__always)
        mutating func checkDirectory(slot: Int) throws(Damage) {
            guard hasDirectory else { return }
            guard slot < directorySlots, directoryOffset(ofSlot: slot) == entryStart else {
                throw Damage(firstRowID: firstRowID)
            }
            var skipped = checkedSlots
            while skipped < slot {
                guard directoryOffset(ofSlot: skipped) == 0 else { throw Damage(firstRowID: firstRowID) }
                skipped &+= 1
            }
            checkedSlots = slot &+ 1
        }

        /// Throws ``Damage`` unless an indexed page's directory names no entry past the last
        /// one read (call after ``next()`` returned nil, with ``checkDirectory(slot:)`` on
        /// every entry).
        func checkDirectoryEnd() throws(Damage) {
            guard hasDirectory else { return }
            // The directory ends with the last slot that has an entry.
            guard checkedSlots == directorySlots else { throw Damage(firstRowID: firstRowID) }
        }

        @inline(__always)
        private func directoryOffset(ofSlot slot: Int) -> Int {
            guard let base = page.baseAddress else { return 0 }
            return RecordPage.directoryOffset(at: RecordPage.directoryHeaderSize &+ slot &* width, width: width, in: base)
        }

        /// The entry at `position` (before the entries' end), moving `position` past it.
        @inline(__always)
        private func entry(at position: inout Int) throws(Damage) -> (slot: Int, envelope: UnsafeRawBufferPointer) {
            let end = end
            guard position >= entriesStart, position < end, let base = page.baseAddress else { throw Damage(firstRowID: firstRowID) }
            let slot = Int(base.load(fromByteOffset: position, as: UInt8.self))
            guard slot < capacity else { throw Damage(firstRowID: firstRowID) }
            position &+= 1
            var size = 0
            var shift = 0
            while true {
                // Sizes fit in 4 varint bytes (Tokyo Cabinet values are under 2 GiB).
                guard position < end, shift <= 28 else { throw Damage(firstRowID: firstRowID) }
                let byte = base.load(fromByteOffset: position, as: UInt8.self)
                position &+= 1
                size |= Int(byte & 0x7f) << shift
                if byte < 0x80 { break }
                shift &+= 7
            }
            guard size <= end &- position else { throw Damage(firstRowID: firstRowID) }
            let envelope = UnsafeRawBufferPointer(start: base + position, count: size)
            position &+= size
            return (slot, envelope)
        }
    }
}
