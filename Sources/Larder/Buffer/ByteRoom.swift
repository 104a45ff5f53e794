// ByteRoom: a heap block of bytes written in place at any offset and grown on demand, for
// encoders that rewrite the bytes they keep (IndexRunBuilder's previous entry and run body):
// no Array uniqueness check or count update on every write of a few bytes.

/// Bytes on the heap, written through ``base``, that ``reserve(_:keeping:)`` grows.
struct ByteRoom: ~Copyable {
    /// The first byte; valid until the next ``reserve(_:keeping:)`` that grows the room.
    private(set) var base: UnsafeMutableRawPointer
    /// How many bytes ``base`` holds.
    private(set) var capacity: Int

    /// Room for `capacity` bytes (at least one).
    init(capacity: Int) {
        self.capacity = max(capacity, 1)
        base = UnsafeMutableRawPointer.allocate(byteCount: self.capacity, alignment: 1)
    }

    /// Makes room for `count` bytes, keeping the first `kept`.
    @inline(__always)
    mutating func reserve(_ count: Int, keeping kept: Int) {
        if count > capacity { grow(to: count, keeping: kept) }
    }

    private mutating func grow(to count: Int, keeping kept: Int) {
        let size = max(count, 2 * capacity)
        let grown = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 1)
        grown.copyMemory(from: base, byteCount: min(kept, capacity))
        base.deallocate()
        base = grown
        capacity = size
    }

    /// Writes `value` as a varint at `target`, which has room for it (at most 10 bytes);
    /// returns where it ends.
    @inline(__always)
    static func storeVarInt(_ value: UInt64, at target: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer {
        var value = value, target = target
        while value >= 0x80 {
            target.storeBytes(of: UInt8(truncatingIfNeeded: value) | 0x80, as: UInt8.self)
            value >>= 7
            target += 1
        }
        target.storeBytes(of: UInt8(value), as: UInt8.self)
        return target + 1
    }

    /// The first `count` bytes, which the caller has written.
    func bytes(_ count: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: base, count: min(count, capacity))
    }

    deinit {
        base.deallocate()
    }
}
