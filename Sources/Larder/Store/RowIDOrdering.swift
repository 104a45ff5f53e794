// RowIDOrdering: puts fetched objects in rowID order without comparing them. A class file is
// read in Tokyo Cabinet's storage order, which need not be rowID order; rowIDs are dense
// integers below the class's next rowID, so each object's place is the count of rowIDs below
// its own (a bitmap of them answers it), in linear time, in place, and without retain/release
// traffic.

extension Store {
    /// Sorts `objects` by rowID. `rowIDLimit` is above every rowID (the class's next rowID).
    ///
    /// Dense rowIDs are placed through a bitmap of the rowIDs present; sparse ones (many deletes)
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

    /// The placement of ``orderByRowID(_:rowIDLimit:)``: false (and `objects` untouched)
    /// when a rowID is out of range or repeated.
    @inlinable
    internal static func placeByRowID<T: StoredObject>(_ objects: inout [T], tableSize: Int) -> Bool {
        // The array's elements are object references: permuting them as raw pointers keeps
        // every reference count as it is.
        objects.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            let references = UnsafeMutableRawPointer(base).assumingMemoryBound(to: UnsafeMutableRawPointer.self)
            return placeByRowID(references, count: buffer.count, tableSize: tableSize)
        }
    }

    /// Puts the `count` object references at `references` in rowID order, in place: a bit per
    /// rowID below `tableSize` says which are present, so an object's place is the number of
    /// present rowIDs below its own, and following each object to its place (a cycle sort)
    /// moves every one at most once. It needs 5 bits per rowID (the bitmap, and a count per
    /// byte of it), not a table of a reference per rowID (8 MB for a million objects, fetched
    /// whole at the peak of a fetch's memory), and objects already in place (a file mostly in
    /// rowID order) are not moved. False, with nothing moved, when a rowID is `tableSize` or
    /// above or repeated.
    @usableFromInline
    internal static func placeByRowID(_ references: UnsafeMutablePointer<UnsafeMutableRawPointer>,
                                      count: Int, tableSize: Int) -> Bool {
        guard count < Int(UInt32.max), tableSize > 0 else { return false }
        func rowID(at index: Int) -> UInt64 {
            Unmanaged<StoredObject>.fromOpaque(references[index])._withUnsafeGuaranteedRef { $0.rowID }
        }
        let byteCount = (tableSize + 7) / 8
        let present = UnsafeMutablePointer<UInt8>.allocate(capacity: byteCount)
        present.initialize(repeating: 0, count: byteCount)
        defer { present.deallocate() }
        for index in 0 ..< count {
            let rowID = rowID(at: index)
            guard rowID < UInt64(tableSize) else { return false }
            let byte = Int(truncatingIfNeeded: rowID >> 3)
            let bit = UInt8(1) << UInt8(truncatingIfNeeded: rowID & 7)
            guard present[byte] & bit == 0 else { return false }
            present[byte] |= bit
        }
        // The bits set in each byte value, and the present rowIDs below each byte's first
        // (a table lookup where the target may have no population-count instruction).
        let bitCounts = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
        defer { bitCounts.deallocate() }
        bitCounts[0] = 0
        for value in 1 ..< 256 { bitCounts[value] = bitCounts[value >> 1] &+ UInt8(value & 1) }
        let below = UnsafeMutablePointer<UInt32>.allocate(capacity: byteCount)
        defer { below.deallocate() }
        var total: UInt32 = 0
        for byte in 0 ..< byteCount {
            below[byte] = total
            total &+= UInt32(bitCounts[Int(present[byte])])
        }
        func place(of rowID: UInt64) -> Int {
            let byte = Int(truncatingIfNeeded: rowID >> 3)
            let lower = present[byte] & ((UInt8(1) << UInt8(truncatingIfNeeded: rowID & 7)) &- 1)
            return Int(below[byte]) + Int(bitCounts[Int(lower)])
        }
        for index in 0 ..< count {
            var target = place(of: rowID(at: index))
            while target != index {
                let moved = references[target]
                references[target] = references[index]
                references[index] = moved
                target = place(of: rowID(at: index))
            }
        }
        return true
    }
}
