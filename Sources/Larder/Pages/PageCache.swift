// PageCache: the page of a class file read last, kept so that reads of neighbouring rowIDs
// (a loop over rowIDs, the faults of a relationship) cost one Tokyo Cabinet call per page.
// The store empties it whenever it writes; a read made while a cached page is in use (a
// readContent that faults in another object of its class) bypasses it. From the page's second
// read on, a table of where each slot's envelope lies answers without walking the entries
// before it (about 600 instructions a read in a page of 32 objects).

/// One class file's most recently read page.
package struct PageCache {
    package init() {}

    /// The cached page's number; `.max` when nothing is cached.
    package private(set) var number: UInt64 = .max
    /// Its bytes (the page inside, for a page checked or sealed whole); empty when the file has
    /// no such page.
    package private(set) var bytes: [UInt8] = []
    /// The cipher that opens the cached page's envelopes: nil for a page written whole
    /// (PageSealing), or in a plaintext store.
    package private(set) var envelopeCipher: RecordCipher?
    /// True while a caller reads `bytes`.
    package var isInUse = false
    /// Reads of the cached page so far (``envelopeBounds(of:)``).
    private var reads = 0
    /// For each slot, where its envelope starts in `bytes` and how long it is (-1: the page
    /// has no record for the slot); empty until the page's second read, and when its entries
    /// do not all parse (the walk then finds, or throws for, each record as before).
    private var envelopes: [(start: Int32, count: Int32)] = []

    /// Whether page `number` is cached.
    @inline(__always)
    package func holds(_ number: UInt64) -> Bool { self.number == number }

    /// Caches `page` (nil: the file has no such page) as page `number`, whose envelopes
    /// `envelopeCipher` opens.
    package mutating func store(_ page: UnsafeRawBufferPointer?, as number: UInt64, envelopeCipher: RecordCipher? = nil) {
        bytes.removeAll(keepingCapacity: true)
        if let page { bytes.appendBytes(page) }
        self.number = number
        self.envelopeCipher = envelopeCipher
        forgetEnvelopes()
    }

    /// Where the envelope of `rowID`, in the cached page (which holds it and is not empty),
    /// lies in `bytes`, or nil when the page has no record for it: what
    /// ``RecordPage/record(of:in:layout:)`` finds, and throws, in `bytes`.
    package mutating func envelopeBounds(of rowID: UInt64) throws(RecordPage.Damage) -> Range<Int>? {
        reads &+= 1
        if reads == 2 { tabulateEnvelopes() }
        let layout = PageLayout.objects
        if !envelopes.isEmpty {
            let (start, count) = envelopes[layout.slot(of: rowID)]
            return start < 0 ? nil : Int(start) ..< Int(start) + Int(count)
        }
        let found = bytes.withUnsafeBytes { page in
            Result { () throws(RecordPage.Damage) -> Range<Int>? in
                guard let envelope = try RecordPage.record(of: rowID, in: page, layout: layout),
                      let base = page.baseAddress, let start = envelope.baseAddress else { return nil }
                let offset = start - base
                return offset ..< offset + envelope.count
            }
        }
        return try found.get()
    }

    /// Fills ``envelopes`` from a walk of the cached page's entries; leaves it empty for an
    /// indexed page (its directory answers at once) and for one whose walk finds damage.
    private mutating func tabulateEnvelopes() {
        let layout = PageLayout.objects
        var table = envelopes
        table.removeAll(keepingCapacity: true)
        table.append(contentsOf: repeatElement((start: -1, count: -1), count: layout.capacity))
        let complete = bytes.withUnsafeBytes { page -> Bool in
            guard let base = page.baseAddress,
                  var reader = try? RecordPage.Reader(page: page, firstRowID: layout.firstRowID(ofPage: number), layout: layout),
                  !reader.hasDirectory else { return false }
            do {
                while let (slot, envelope) = try reader.next() {
                    guard let start = envelope.baseAddress else { return false }
                    table[slot] = (Int32(start - base), Int32(envelope.count))
                }
            } catch {
                return false
            }
            return true
        }
        if complete { envelopes = table }
    }

    private mutating func forgetEnvelopes() {
        reads = 0
        envelopes.removeAll(keepingCapacity: true)
    }

    /// Forgets the cached page.
    package mutating func invalidate() {
        number = .max
        bytes.removeAll(keepingCapacity: true)
        envelopeCipher = nil
        forgetEnvelopes()
    }
}
