// KeptRecordIndex: the records of a kept walk of a hash database (HashDatabase), found by
// key in one memory access. A lookup through the file itself (MappedRecordLookup) reads the
// key's bucket, then the record's header, each a cache and TLB miss in a file of a hundred
// megabytes: most of the time a 20-row ordered find takes to reach its 20 pages. Here a key of
// up to 16 bytes (every page key) is stored in its slot with where its value lies, so a
// lookup reads one slot. Longer keys are left out: asking for one answers "not here", and the
// caller looks in the file. Like the walk it comes from, it is valid until the file changes.


/// The values of a walk's records with keys of up to 16 bytes, by key.
final class KeptRecordIndex {
    /// The longest key kept.
    static let maximumKeySize = 16
    /// Walks of more records are not indexed (the index takes 64 to 128 bytes a record: 32
    /// MB at most).
    static let maximumRecords = 1 << 18

    /// One record, or an empty slot (`valueCount` < 0).
    private struct Slot {
        var key: (UInt64, UInt64) = (0, 0)
        var keyCount: Int32 = 0
        var valueCount: Int32 = -1
        var value: UnsafeRawPointer?
    }

    private let slots: UnsafeMutablePointer<Slot>
    /// The slot count is 2^`bits`.
    private let bits: Int

    /// The index of `records` (a walk of one file, no key twice); nil when there are too many.
    init?(_ records: [(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)]) {
        guard records.count <= Self.maximumRecords else { return nil }
        // At most half full, so a probe ends soon.
        var bits = 4
        while 1 << bits < 2 * records.count { bits += 1 }
        self.bits = bits
        let raw = UnsafeMutableRawPointer.allocate(byteCount: MemoryLayout<Slot>.stride << bits, alignment: 64)
        slots = raw.initializeMemory(as: Slot.self, repeating: Slot(), count: 1 << bits)
        for (key, value) in records {
            guard key.count <= Self.maximumKeySize, value.count <= Int(Int32.max) else { continue }
            let words = Self.words(of: key)
            var position = slot(of: words)
            while slots[position].valueCount >= 0 { position = (position + 1) & mask }
            slots[position] = Slot(key: words, keyCount: Int32(key.count), valueCount: Int32(value.count), value: value.baseAddress)
        }
    }

    deinit {
        slots.deinitialize(count: 1 << bits)
        UnsafeMutableRawPointer(slots).deallocate()
    }

    private var mask: Int { (1 << bits) - 1 }

    /// The value stored under `key`, or nil when the index does not have it.
    ///
    /// ```swift
    /// let page = index.value(forKey: key)
    /// ```
    func value(forKey key: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        guard key.count <= Self.maximumKeySize else { return nil }
        let words = Self.words(of: key)
        return value(words: words, count: key.count, from: slot(of: words))
    }

    /// Puts into `values` (as many as `keys`) the values under `keys`, in order; false when the
    /// index lacks one of them. Every key's slot, and then the start of every value, is asked
    /// for before any is read, so that their misses overlap.
    ///
    /// ```swift
    /// let found = index.values(forKeys: keys, into: values)
    /// ```
    func values(forKeys keys: PackedKeys, into values: UnsafeMutableBufferPointer<UnsafeRawBufferPointer>) -> Bool {
        keys.withUnsafeKeys { keys in
            guard values.count >= keys.count else { return false }
            for index in 0 ..< keys.count where keys[index].count > Self.maximumKeySize { return false }
            return withUnsafeTemporaryAllocation(of: Int.self, capacity: keys.count) { positions in
                for index in 0 ..< keys.count {
                    positions[index] = slot(of: Self.words(of: keys[index]))
                    CacheLinePrefetch.request(slots + positions[index])
                }
                for index in 0 ..< keys.count {
                    let key = keys[index]
                    guard let found = value(words: Self.words(of: key), count: key.count, from: positions[index]) else { return false }
                    values[index] = found
                    if let start = found.baseAddress { CacheLinePrefetch.request(start) }
                }
                return true
            }
        }
    }

    /// The value of the key of `count` bytes held in `words`, probing from `position`.
    private func value(words: (UInt64, UInt64), count: Int, from position: Int) -> UnsafeRawBufferPointer? {
        var position = position
        while slots[position].valueCount >= 0 {
            let slot = slots[position]
            if slot.keyCount == Int32(count), slot.key == words {
                return UnsafeRawBufferPointer(start: slot.value, count: Int(slot.valueCount))
            }
            position = (position + 1) & mask
        }
        return nil
    }

    /// The first slot to probe for a key. (Its length is left out: keys that differ only by
    /// zero bytes at their end share a first slot, and their lengths tell them apart.)
    private func slot(of words: (UInt64, UInt64)) -> Int {
        let mixed = (words.0 &* 0x9E37_79B9_7F4A_7C15) ^ (words.1 &* 0xC2B2_AE3D_27D4_EB4F)
        return Int(truncatingIfNeeded: (mixed ^ (mixed >> 29)) >> UInt64(64 - bits))
    }

    /// The bytes of a key of at most 16 bytes as two words, zero after its end.
    private static func words(of key: UnsafeRawBufferPointer) -> (UInt64, UInt64) {
        var words: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &words) { $0.copyMemory(from: key) }
        return words
    }
}
