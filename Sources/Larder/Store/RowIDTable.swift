// RowIDTable: the objects of a whole-class fetch, placed by rowID as the class file is read in
// storage order, then moved into the caller's array in rowID order. RowIDs are dense integers
// below the class's next rowID, so the table is the sort: no array is appended to, checked for
// order and sorted afterwards (that cost SimpleFetch about 150 instructions an object), and
// the table comes zeroed from calloc (fresh pages) instead of being cleared.

#if canImport(Glibc)
import Glibc
#endif

/// Retained references to the objects of one fetch, by rowID.
@usableFromInline
internal final class RowIDTable {
    /// One slot per rowID below ``size``: a retained object, or nil.
    @usableFromInline internal let slots: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    /// Every rowID placed in ``slots`` is below it.
    @usableFromInline internal let size: Int
    /// The objects placed in ``slots``.
    @exclusivity(unchecked) @usableFromInline internal private(set) var slotCount = 0
    /// Objects at or above ``size`` (inserted by a `readContent` while the fetch ran): kept
    /// apart, in no order.
    @exclusivity(unchecked) @usableFromInline internal private(set) var overflow: [StoredObject] = []
    /// Whether the references in ``slots`` were moved out: the table no longer owns them.
    /// (The table is used by one fetch at a time: its fields go unchecked, as dynamic
    /// exclusivity checks cost 55 instructions an object.)
    @exclusivity(unchecked) @usableFromInline internal var slotsMoved = false

    /// A table for rowIDs below `size`, or nil when the memory cannot be had.
    init?(size: Int) {
        guard size > 0, let memory = calloc(size, MemoryLayout<UnsafeMutableRawPointer?>.stride) else { return nil }
        slots = memory.bindMemory(to: UnsafeMutableRawPointer?.self, capacity: size)
        self.size = size
    }

    /// At most how many objects ``moveObjects(as:into:)`` moves: the capacity to give it.
    @inlinable
    internal var count: Int { slotCount + overflow.count }

    /// Keeps `object` at its rowID. The same object placed twice (a rowID repeated in a
    /// damaged file finds the live object again) is kept once.
    @inline(__always)
    internal func place(_ object: consuming StoredObject) {
        let rowID = object.rowID
        guard rowID < UInt64(size) else {
            overflow.append(object)
            return
        }
        let slot = Int(truncatingIfNeeded: rowID)
        guard slots[slot] == nil else { return }
        slots[slot] = Unmanaged.passRetained(object).toOpaque()
        slotCount += 1
    }

    /// Moves the objects, in ascending rowID order and each once, into `buffer` (at least
    /// ``count`` uninitialized elements) and returns how many it initialized. Once only:
    /// the table then no longer owns them. Every object must be a `T` (the table of a fetch of
    /// class `T` holds nothing else).
    @inlinable
    internal func moveObjects<T: StoredObject>(as type: T.Type, into buffer: UnsafeMutableBufferPointer<T>) -> Int {
        guard !slotsMoved, let base = buffer.baseAddress, buffer.count >= count else { return 0 }
        var next = 0
        for slot in 0 ..< size {
            if let reference = slots[slot] {
                (base + next).initialize(to: Unmanaged<T>.fromOpaque(reference).takeRetainedValue())
                next += 1
            }
        }
        slotsMoved = true
        guard !overflow.isEmpty else { return next }
        var previous: StoredObject?
        for object in overflow.sorted(by: { $0.rowID < $1.rowID }) where object !== previous {
            (base + next).initialize(to: unsafeDowncast(object, to: T.self))
            next += 1
            previous = object
        }
        return next
    }

    deinit {
        if !slotsMoved {
            for slot in 0 ..< size {
                if let reference = slots[slot] { Unmanaged<StoredObject>.fromOpaque(reference).release() }
            }
        }
        free(slots)
    }
}
