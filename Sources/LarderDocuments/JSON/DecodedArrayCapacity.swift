// DecodedArrayCapacity: how much room a decoded JSON array gets. The rule: at least 4 elements
// (32 bytes of header, 24 an element: more than 120 bytes), so that the array's heap block is
// larger than the 128 bytes glibc keeps unmerged in its "fastbins" once freed. Fastbin blocks are
// merged all at once, cold, at the next large allocation, which made a big find pay for the
// previous find's freed arrays (5-7 ms of 25); larger blocks are merged as they are freed.

/// The capacity of a decoded array.
enum DecodedArrayCapacity {
    /// The smallest capacity a non-empty decoded array gets.
    static let smallest = 4

    /// The capacity to reserve for `count` decoded elements (`count` > 0).
    @inline(__always)
    static func forElements(_ count: Int) -> Int { max(count, smallest) }
}
