// IndexRun: how an index table stores its entries, for the one index engine that object
// indexes and document collections share. Every call into Tokyo Cabinet is expensive
// (DESIGN.md), so a B+tree record holds a run of consecutive entries, not one entry: a
// million entries take a few thousand records, a range is read a run at a time, and a commit
// rewrites only the runs its changes fall into.
//
//   key:    the run's first entry (encoded key values, then the rowID: for documents, see
//           LarderDocuments' IndexKey)
//   value:  [0x53 'S'][CRC-32 of key and the bytes after it, 4 bytes little-endian]
//           [varint entry count][entry]...                 every entry after the first
//           [restart offset, 4 bytes little-endian]...     of every 16th entry, from the value's start
//           [restart count, 4 bytes little-endian]
//   entry:  [varint bytes shared with the previous entry][varint suffix size][suffix]
//
// Every 16th entry (the 16th, 32nd, ... after the key) shares no bytes with the one before it,
// and the restart offsets say where these lie: a find that starts inside a run looks for its
// start among them, then steps through at most 16 entries, not half the run. Document
// collections of format 4 and before write runs of format 0x52 'R', the same without restart points (and
// read both). Runs never overlap: every entry of a run sorts before the next run's key.
// docs/FORMAT.md (section 16) has the bytes.

/// Encodes and decodes runs of index entries.
package enum IndexRun {
    /// The first byte of a run's value without restart points.
    package static let format: UInt8 = 0x52
    /// The first byte of a run's value with restart points.
    package static let indexedFormat: UInt8 = 0x53
    /// Every this many entries after the key, an entry is a restart point.
    package static let restartInterval = 16
    /// A run is closed once its entries take this many bytes.
    package static let targetSize = 4_096

    /// A run whose bytes do not parse or whose checksum does not match.
    package struct Damage: Error {
        package var reason: String

        package init(reason: String) {
            self.reason = reason
        }
    }

    /// The number of entries in the run, after checking its checksum.
    package static func count(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) throws(Damage) -> Int {
        try Reader(key: key, value: value).count
    }

    /// The number of the run's entries from `start` (nil: the first) and before `bound` (nil:
    /// through the last), after checking its checksum. Each bound is found among the restart
    /// points, then by stepping through at most one interval's entries, never putting one
    /// together.
    package static func count(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, from start: [UInt8]?,
                              before bound: [UInt8]?) throws(Damage) -> Int {
        let reader = try Reader(key: key, value: value)
        let upper = try bound.map { bound throws(Damage) in try rank(of: bound, key: key, reader: reader) } ?? reader.count
        let lower = try start.map { start throws(Damage) in try rank(of: start, key: key, reader: reader) } ?? 0
        return max(0, upper - lower)
    }

    /// How many of the run's entries sort before `bound`, read with a copy of `reader` (fresh
    /// from the run's start).
    private static func rank(of bound: [UInt8], key: UnsafeRawBufferPointer, reader: Reader) throws(Damage) -> Int {
        var reader = reader
        var (isBefore, matched) = precedes(suffix: key, after: 0, bound)
        guard isBefore else { return 0 }
        var before = 1
        var remaining = max(reader.count, 1) - 1
        var length = key.count
        if let (restart, entries) = try reader.lastRestart(before: bound, length: &length) {
            (_, matched) = precedes(suffix: restart, after: 0, bound)
            before += entries
            remaining -= entries
        }
        // As in forEachEntry: an entry sharing more than `matched` bytes with the one before
        // (which sorts before `bound`) sorts before it too.
        while remaining > 0 {
            remaining -= 1
            let (shared, suffix) = try reader.nextSuffix(length: &length)
            if shared <= matched {
                (isBefore, matched) = precedes(suffix: suffix, after: shared, bound)
                guard isBefore else { return before }
            }
            before += 1
        }
        return before
    }

    /// Calls `body` with every entry of the run in order from the first at or after `start`
    /// (nil: the first), until it returns false (the pointer is valid only during the call);
    /// returns false when `body` did.
    @discardableResult
    package static func forEachEntry(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, from start: [UInt8]? = nil,
                                     _ body: (UnsafeRawBufferPointer) throws -> Bool) throws -> Bool {
        try walk(key: key, value: value, from: start) { entry, _ in try body(entry) }
    }

    /// ``forEachEntry(key:value:from:_:)``, giving `body` with each entry how many leading bytes
    /// the run stores it sharing with the entry visited before it: 0 for the first visited and
    /// for a restart point (stored whole), else every byte the two have in common when the run
    /// is IndexRunBuilder's. A merge copying the run keeps these instead of comparing entries.
    @discardableResult
    package static func forEachEntryWithSharedCount(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer,
                                                    from start: [UInt8]? = nil,
                                                    _ body: (UnsafeRawBufferPointer, Int) throws -> Bool) throws -> Bool {
        try walk(key: key, value: value, from: start, body)
    }

    /// The walk of both: inlined into each, so that a caller's closure is specialized into it
    /// (through a call of one from the other, the entries' closure was called indirectly: 2.7M
    /// instructions more in the Documents workload's findEqual at scale 0.3).
    @inline(__always)
    private static func walk(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, from start: [UInt8]?,
                             _ body: (UnsafeRawBufferPointer, Int) throws -> Bool) throws -> Bool {
        var reader = try Reader(key: key, value: value)
        // An entry is at most the key and every suffix after it: the value's size. That is
        // past what a temporary allocation keeps on the stack for a run of about 4 KB, and a
        // heap block that size cost about 3,400 instructions a run (malloc consolidating its
        // free lists), while entries are short: they are put together on the stack, moved to
        // the heap only should one need more room.
        let room = key.count + value.count
        return try withUnsafeTemporaryAllocation(byteCount: min(room, EntrySpace.stackSize), alignment: 1) { stack in
            guard var space = EntrySpace(stack, room: room) else { return true }
            defer { space.release() }
            space.reserve(key.count, keeping: 0)
            if let first = key.baseAddress { space.base.copyMemory(from: first, byteCount: key.count) }
            var length = key.count
            // Entries before `start` are skipped mostly without comparing them: while they are,
            // `matched` is how many leading bytes the entry shares with `start`. An entry that
            // shares more than that with the one before it sorts before `start` too; one that
            // shares `shared` <= `matched` bytes with it is `start`'s first `shared` bytes, then
            // its suffix. So skipped entries are never put together, only compared.
            var skipping = false, matched = 0
            if let start { (skipping, matched) = precedes(suffix: key, after: 0, start) }
            if !skipping { guard try body(UnsafeRawBufferPointer(start: space.base, count: length), 0) else { return false } }
            var remaining = max(reader.count, 1) - 1
            if skipping, let start, let (restart, entries) = try reader.lastRestart(before: start, length: &length) {
                // Stepping on from the last restart point before `start`: only what lies after it.
                (_, matched) = precedes(suffix: restart, after: 0, start)
                remaining -= entries
            }
            if skipping, let start {
                while remaining > 0 {
                    remaining -= 1
                    let (shared, suffix) = try reader.nextSuffix(length: &length)
                    if shared > matched { continue }
                    (skipping, matched) = precedes(suffix: suffix, after: shared, start)
                    if skipping { continue }
                    // The first entry at or after `start`: put together, for the ones after it.
                    space.reserve(length, keeping: 0)
                    start.withUnsafeBytes { start in
                        if let prefix = start.baseAddress { space.base.copyMemory(from: prefix, byteCount: shared) }
                    }
                    if let bytes = suffix.baseAddress { (space.base + shared).copyMemory(from: bytes, byteCount: suffix.count) }
                    guard try body(UnsafeRawBufferPointer(start: space.base, count: length), 0) else { return false }
                    break
                }
            }
            while remaining > 0 {
                remaining -= 1
                let (shared, suffix) = try reader.nextSuffix(length: &length)
                space.reserve(length, keeping: shared)
                if let bytes = suffix.baseAddress { (space.base + shared).copyMemory(from: bytes, byteCount: suffix.count) }
                guard try body(UnsafeRawBufferPointer(start: space.base, count: length), shared) else { return false }
            }
            try reader.checkEnd()
            return true
        }
    }

    /// Where ``forEachEntry(key:value:from:_:)`` puts an entry together: a buffer on the
    /// stack, replaced by one on the heap (room for any entry of the run) the first time an
    /// entry is longer.
    private struct EntrySpace {
        /// What a temporary allocation keeps on the stack whatever the stack's size.
        static let stackSize = 1_024

        private(set) var base: UnsafeMutableRawPointer
        private var capacity: Int
        /// The most any entry of the run can need: the run's key and value sizes together.
        private let room: Int
        private var isOnHeap = false

        /// The space of `stack`, for a run whose entries need at most `room` bytes; nil when
        /// `stack` has no bytes.
        init?(_ stack: UnsafeMutableRawBufferPointer, room: Int) {
            guard let base = stack.baseAddress else { return nil }
            self.base = base
            capacity = stack.count
            self.room = room
        }

        /// Makes room for an entry of `count` bytes, keeping the first `kept` bytes there.
        @inline(__always)
        mutating func reserve(_ count: Int, keeping kept: Int) {
            if count > capacity { moveToHeap(count, keeping: kept) }
        }

        private mutating func moveToHeap(_ count: Int, keeping kept: Int) {
            let size = max(count, room)
            let heap = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 1)
            heap.copyMemory(from: base, byteCount: min(kept, capacity))
            release()
            base = heap
            capacity = size
            isOnHeap = true
        }

        /// Frees the heap buffer, if any; the space is not used after.
        func release() {
            if isOnHeap { base.deallocate() }
        }
    }

    /// Whether the entry made of the first `shared` bytes of `start` (at most all of them)
    /// and then `suffix` sorts before `start`, and how many leading bytes the two share. (The
    /// run's first entry is all suffix.)
    private static func precedes(suffix: UnsafeRawBufferPointer, after shared: Int, _ start: [UInt8]) -> (Bool, Int) {
        let count = shared + suffix.count
        let common = min(count, start.count)
        var position = min(shared, common)
        while position < common, suffix[position - shared] == start[position] { position += 1 }
        if position < common { return (suffix[position - shared] < start[position], position) }
        // One is a prefix of the other: the shorter sorts first (an equal entry is not before).
        return (count < start.count, position)
    }

    /// Every entry of the run, in order.
    package static func entries(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) throws -> [[UInt8]] {
        var entries: [[UInt8]] = []
        try forEachEntry(key: key, value: value) { entry in
            entries.append(Array(entry))
            return true
        }
        return entries
    }

    /// Walks the entries of a run, checking every bound.
    private struct Reader {
        let value: UnsafeRawBufferPointer
        private(set) var count = 0
        private var position: Int
        /// Where the entries end: the value's end, or where its restart offsets start.
        private var end: Int
        /// The number of restart points.
        private var restarts = 0

        init(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) throws(Damage) {
            self.value = value
            guard value.count >= 6, value[0] == format || value[0] == indexedFormat else {
                throw Damage(reason: "unknown index run format")
            }
            guard Checksum.crc32(key, UnsafeRawBufferPointer(rebasing: value[5...])) == Self.word(at: 1, in: value) else {
                throw Damage(reason: "index run checksum mismatch")
            }
            position = 5
            end = value.count
            let entries = try varint()
            if value[0] == indexedFormat {
                // The restart count, then one offset per 16 entries after the key.
                guard end - position >= 4 else { throw Damage(reason: "index run truncated") }
                restarts = Int(Self.word(at: end - 4, in: value))
                guard entries >= 1, UInt64(restarts) == (entries - 1) / UInt64(restartInterval),
                      restarts <= (end - 4 - position) / 4 else { throw Damage(reason: "index run restart count out of range") }
                end -= 4 + 4 * restarts
            }
            // Every entry after the first takes at least two bytes.
            guard entries >= 1, entries - 1 <= UInt64(end - position) / 2 else {
                throw Damage(reason: "index run entry count out of range")
            }
            count = Int(entries)
        }

        /// The 4-byte little-endian integer at `offset` of `value`.
        private static func word(at offset: Int, in value: UnsafeRawBufferPointer) -> UInt32 {
            value.loadLittleEndian(UInt32.self, at: offset)
        }

        /// The entry of the last restart point that sorts before `start`, and how many entries
        /// after the key it is, with the reader moved past it (`length`: its length); nil when
        /// none does (or the run has none), the reader unmoved.
        mutating func lastRestart(before start: [UInt8], length: inout Int) throws(Damage) -> (UnsafeRawBufferPointer, Int)? {
            // Restart points ascend: find how many sort before `start`.
            var low = 0, high = restarts
            while low < high {
                let middle = (low + high) / 2
                let entry = try restart(middle).entry
                if start.withUnsafeBytes({ ByteOrder.compare(entry, $0) }) < 0 { low = middle + 1 } else { high = middle }
            }
            guard low > 0 else { return nil }
            let (entry, after) = try restart(low - 1)
            position = after
            length = entry.count
            return (entry, low * restartInterval)
        }

        /// Restart point `number`'s entry (which shares nothing with the one before it), and
        /// where the entry after it starts.
        private func restart(_ number: Int) throws(Damage) -> (entry: UnsafeRawBufferPointer, after: Int) {
            var at = Int(Self.word(at: end + 4 * number, in: value))
            guard at > 5, at < end, let base = value.baseAddress else { throw Damage(reason: "index run restart out of range") }
            guard case .value(0) = DataBuffer.decodeVarInt(value.assumingMemoryBound(to: UInt8.self), at: &at),
                  case let .value(size) = DataBuffer.decodeVarInt(value.assumingMemoryBound(to: UInt8.self), at: &at),
                  at <= end, size <= UInt64(end - at) else { throw Damage(reason: "index run restart out of range") }
            return (UnsafeRawBufferPointer(start: base + at, count: Int(size)), at + Int(size))
        }

        @inline(__always)
        mutating func varint() throws(Damage) -> UInt64 {
            switch DataBuffer.decodeVarInt(value.assumingMemoryBound(to: UInt8.self), at: &position) {
            case let .value(decoded): return decoded
            case .truncated: throw Damage(reason: "index run truncated")
            case .malformed: throw Damage(reason: "index run varint too long")
            }
        }

        /// How many leading bytes the next entry shares with the previous one (`length` bytes
        /// long; then the next one's length), and its suffix, in place.
        @inline(__always)
        mutating func nextSuffix(length: inout Int) throws(Damage) -> (shared: Int, suffix: UnsafeRawBufferPointer) {
            let shared = try varint()
            let suffix = try varint()
            guard shared <= UInt64(length), position <= end, suffix <= UInt64(end - position), let base = value.baseAddress else {
                throw Damage(reason: "index run entry out of range")
            }
            let bytes = UnsafeRawBufferPointer(start: base + position, count: Int(suffix))
            position += Int(suffix)
            length = Int(shared) + Int(suffix)
            return (Int(shared), bytes)
        }

        func checkEnd() throws(Damage) {
            guard position == end else { throw Damage(reason: "index run has trailing bytes") }
        }
    }
}
