// PageCache: the page of a class file read last, kept so that reads of neighbouring rowIDs
// (a loop over rowIDs, the faults of a relationship) cost one Tokyo Cabinet call per page.
// The store empties it whenever it writes; a read made while a cached page is in use (a
// readContent that faults in another object of its class) bypasses it.

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
    }

    /// Forgets the cached page.
    package mutating func invalidate() {
        number = .max
        bytes.removeAll(keepingCapacity: true)
        envelopeCipher = nil
    }
}
