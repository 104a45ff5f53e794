// IdentityMap: the live instance of each rowID of one class, without retaining it. RowIDs are
// dense integers handed out in order, so the map is a table of pages of 32 slots indexed
// by rowID: a lookup, an insert and a removal are an index computation and one load or store,
// with no hashing. A page is freed when its last object goes, so streaming a million objects
// keeps memory flat.

/// Unretained references to live objects, by rowID.
internal struct IdentityMap {
    // 32 slots (256 bytes), as many as a record page holds: objects scattered over a large
    // class (a query's results) each clear a small page, and dense ones share pages.
    private static let pageShift = 5
    private static let pageSize = 1 << pageShift
    private static let slotMask = UInt64(pageSize - 1)

    /// A page of slots and how many of them are in use (kept in the page's memory, so that
    /// counting needs no copy-on-write access to the array of pages).
    private struct Page {
        var slots: UnsafeMutablePointer<UnsafeMutableRawPointer?>
        var used: UnsafeMutablePointer<Int> {
            UnsafeMutableRawPointer(slots + IdentityMap.pageSize).assumingMemoryBound(to: Int.self)
        }

        /// A new page with every slot empty.
        static func allocate() -> Page {
            let slots = UnsafeMutablePointer<UnsafeMutableRawPointer?>.allocate(capacity: IdentityMap.pageSize + 1)
            slots.initialize(repeating: nil, count: IdentityMap.pageSize)
            UnsafeMutableRawPointer(slots + IdentityMap.pageSize).bindMemory(to: Int.self, capacity: 1).initialize(to: 0)
            return Page(slots: slots)
        }
    }

    private var pages: [Page?] = []
    /// Emptied pages kept for reuse (all their slots are nil), so that a streaming
    /// enumeration does not allocate and clear a page per object, nor a query whose objects
    /// are scattered (one page each) after the objects of the query before it went.
    private var sparePages: [Page] = []
    /// At most 4,096 spare pages (about 1 MB): a find of 10,000 objects scattered over a
    /// million (about 9,000 pages) reuses half of its pages from the find before it; with
    /// 512 (128 KB), every page of a find of 3,000 was allocated (with posix_memalign) and
    /// freed again, 7% of its instructions.
    private static let maximumSparePages = 4_096
    private(set) var count = 0

    /// The object at `rowID`, unretained.
    @inline(__always)
    func object(at rowID: UInt64) -> StoredObject? {
        let pageIndex = Int(truncatingIfNeeded: rowID >> UInt64(Self.pageShift))
        guard pageIndex < pages.count, let page = pages[pageIndex],
              let raw = page.slots[Int(rowID & Self.slotMask)] else { return nil }
        return Unmanaged<StoredObject>.fromOpaque(raw).takeUnretainedValue()
    }

    /// Makes `object` the live instance of its rowID.
    mutating func insert(_ object: StoredObject) {
        let rowID = object.rowID
        guard rowID < UInt64(Int.max) else { return }
        let pageIndex = Int(rowID >> UInt64(Self.pageShift))
        if pageIndex >= pages.count {
            pages.append(contentsOf: repeatElement(nil, count: pageIndex - pages.count + 1))
        }
        let page: Page
        if let existing = pages[pageIndex] {
            page = existing
        } else {
            page = sparePages.popLast() ?? Page.allocate()
            pages[pageIndex] = page
        }
        let slot = Int(rowID & Self.slotMask)
        if page.slots[slot] == nil {
            page.used.pointee += 1
            count += 1
        }
        page.slots[slot] = Unmanaged.passUnretained(object).toOpaque()
    }

    /// Removes `object` if it is the live instance of its rowID.
    mutating func remove(_ object: StoredObject) {
        let rowID = object.rowID
        let pageIndex = Int(truncatingIfNeeded: rowID >> UInt64(Self.pageShift))
        guard pageIndex >= 0, pageIndex < pages.count, let page = pages[pageIndex] else { return }
        let slot = Int(rowID & Self.slotMask)
        guard page.slots[slot] == Unmanaged.passUnretained(object).toOpaque() else { return }
        page.slots[slot] = nil
        count -= 1
        page.used.pointee -= 1
        if page.used.pointee == 0 {
            if sparePages.count < Self.maximumSparePages {
                sparePages.append(page)
            } else {
                page.slots.deallocate()
            }
            pages[pageIndex] = nil
        }
    }

    /// Every live object, unretained, in rowID order.
    func allObjects() -> [StoredObject] {
        // Empty: every page is nil (a page goes when its last object does), and a context of
        // a pool, dropped at each commit, need not walk thousands of them.
        guard count > 0 else { return [] }
        var objects: [StoredObject] = []
        objects.reserveCapacity(count)
        for case let page? in pages {
            for slot in 0 ..< Self.pageSize {
                if let raw = page.slots[slot] {
                    objects.append(Unmanaged<StoredObject>.fromOpaque(raw).takeUnretainedValue())
                }
            }
        }
        return objects
    }

    /// Frees every page (the objects are not touched).
    mutating func removeAll() {
        if count > 0 {
            for case let page? in pages { page.slots.deallocate() }
        }
        for spare in sparePages { spare.slots.deallocate() }
        pages = []
        sparePages = []
        count = 0
    }
}
