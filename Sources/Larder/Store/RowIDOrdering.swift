// RowIDOrdering: puts fetched objects in rowID order without comparing them. A class file is
// read in Tokyo Cabinet's storage order, which need not be rowID order; rowIDs are dense
// integers below the class's next rowID, so each object can go straight to its place
// (a counting sort), in linear time and without retain/release traffic. allObjects places
// objects in a RowIDTable as it reads them; this sorts what it fetches when that table is
// not made (rowIDs too sparse for one, or its memory not to be had).

extension Store {
    /// Sorts `objects` by rowID. `rowIDLimit` is above every rowID (the class's next rowID).
    ///
    /// Dense rowIDs are placed through a table indexed by rowID; sparse ones (many deletes)
    /// or a repeated rowID (which uniquing rules out) fall back to a comparison sort.
    @inlinable
    internal static func orderByRowID<T: StoredObject>(_ objects: inout [T], rowIDLimit: UInt64) {
        let count = objects.count
        guard count > 1 else { return }
        let tableSize = Int(clamping: rowIDLimit)
        guard rowIDLimit <= UInt64(4 * count + 4_096),
              placeByRowID(&objects, tableSize: tableSize) else {
            objects.sort { $0.rowID < $1.rowID }
            return
        }
    }

    /// The counting sort of ``orderByRowID(_:rowIDLimit:)``: false (and `objects` untouched)
    /// when a rowID is out of range or repeated.
    @inlinable
    internal static func placeByRowID<T: StoredObject>(_ objects: inout [T], tableSize: Int) -> Bool {
        let slots = UnsafeMutablePointer<UnsafeMutableRawPointer?>.allocate(capacity: tableSize)
        slots.initialize(repeating: nil, count: tableSize)
        defer { slots.deallocate() }
        // The array's elements are object references: permuting them as raw pointers keeps
        // every reference count as it is.
        return objects.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            let references = UnsafeMutableRawPointer(base).assumingMemoryBound(to: UnsafeMutableRawPointer.self)
            for index in 0 ..< buffer.count {
                let rowID = buffer[index].rowID
                guard rowID < UInt64(tableSize) else { return false }
                let slot = Int(rowID)
                guard slots[slot] == nil else { return false }
                slots[slot] = references[index]
            }
            var next = 0
            for slot in 0 ..< tableSize {
                if let reference = slots[slot] {
                    references[next] = reference
                    next += 1
                }
            }
            return true
        }
    }
}
