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
    /// moves every one at most once. It needs 2 bits per rowID, not a table of a reference per
    /// rowID (8 MB for a million objects, fetched whole at the peak of a fetch's memory), and
    /// objects already in place (a file mostly in rowID order) are not moved. False, with
    /// nothing moved, when a rowID is `tableSize` or above or repeated.
    @usableFromInline
    internal static func placeByRowID(_ references: UnsafeMutablePointer<UnsafeMutableRawPointer>,
                                      count: Int, tableSize: Int) -> Bool {
        func rowID(at index: Int) -> UInt64 {
            Unmanaged<StoredObject>.fromOpaque(references[index])._withUnsafeGuaranteedRef { $0.rowID }
        }
        let wordCount = (tableSize + 63) / 64
        var present = [UInt64](repeating: 0, count: wordCount)
        for index in 0 ..< count {
            let rowID = rowID(at: index)
            guard rowID < UInt64(tableSize) else { return false }
            let word = Int(rowID >> 6)
            let bit = UInt64(1) << (rowID & 63)
            guard present[word] & bit == 0 else { return false }
            present[word] |= bit
        }
        // The number of present rowIDs below each word's first.
        var below = [Int](repeating: 0, count: wordCount)
        var total = 0
        for word in 0 ..< wordCount {
            below[word] = total
            total += present[word].nonzeroBitCount
        }
        func place(of rowID: UInt64) -> Int {
            let word = Int(rowID >> 6)
            return below[word] + (present[word] & ((UInt64(1) << (rowID & 63)) &- 1)).nonzeroBitCount
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
