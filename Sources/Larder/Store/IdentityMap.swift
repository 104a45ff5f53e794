// IdentityMap: the live instance of each rowID of one class, without retaining it. RowIDs are
// dense integers handed out in order, so the map is a table of pages of 4,096 slots indexed
// by rowID: a lookup, an insert and a removal are an index computation and one load or store,
// with no hashing. A page is freed when its last object goes, so streaming a million objects
// keeps memory flat.

/// Unretained references to live objects, by rowID.
internal struct IdentityMap {
    private static let pageShift = 12
    private static let pageSize = 1 << pageShift
    private static let slotMask = UInt64(pageSize - 1)

    /// A page of slots and how many of them are in use.
    private struct Page {
        var slots: UnsafeMutablePointer<UnsafeMutableRawPointer?>
        var used: Int
    }

    private var pages: [Page?] = []
    /// Emptied pages kept for reuse (all their slots are nil), so that a streaming
    /// enumeration does not allocate and clear a page per object.
    private var sparePages: [UnsafeMutablePointer<UnsafeMutableRawPointer?>] = []
    private static let maximumSparePages = 4
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
        if pages[pageIndex] == nil {
            if let spare = sparePages.popLast() {
                pages[pageIndex] = Page(slots: spare, used: 0)
            } else {
                let slots = UnsafeMutablePointer<UnsafeMutableRawPointer?>.allocate(capacity: Self.pageSize)
                slots.initialize(repeating: nil, count: Self.pageSize)
                pages[pageIndex] = Page(slots: slots, used: 0)
            }
        }
        let slot = Int(rowID & Self.slotMask)
        guard let slots = pages[pageIndex]?.slots else { return }
        if slots[slot] == nil {
            pages[pageIndex]?.used += 1
            count += 1
        }
        slots[slot] = Unmanaged.passUnretained(object).toOpaque()
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
        if page.used == 1 {
            if sparePages.count < Self.maximumSparePages {
                sparePages.append(page.slots)
            } else {
                page.slots.deallocate()
            }
            pages[pageIndex] = nil
        } else {
            pages[pageIndex]?.used -= 1
        }
    }

    /// Every live object, unretained, in rowID order.
    func allObjects() -> [StoredObject] {
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
        for case let page? in pages { page.slots.deallocate() }
        for spare in sparePages { spare.deallocate() }
        pages = []
        sparePages = []
        count = 0
    }
}
