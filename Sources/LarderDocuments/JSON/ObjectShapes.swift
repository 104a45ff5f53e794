// ObjectShapes: the key sets of objects already decoded, each with an empty dictionary of
// those keys. Documents of a collection mostly share their keys; decoding one more object of
// a known key set copies that dictionary (a copy keeps its buckets, seed and indices) and
// sets each member by index: no key strings are made and nothing is hashed. Used by one
// thread at a time: each decoding thread has its own, and a collection's (for its point
// reads and scans) is used under the collection's lock.

/// Dictionaries ready to be filled, one per key set decoded so far.
final class ObjectShapes {
    /// One key set: its keys' UTF-8 and, for each, the index of its member in `template`.
    final class Shape {
        /// Every key's value is `.null`.
        let template: [String: JSON]
        let indices: [Dictionary<String, JSON>.Index]
        let count: Int
        /// Per key, in the order of `indices`: its length and first (up to) 8 bytes, by which
        /// most keys are told apart or matched; then where its UTF-8 starts in `utf8`. In one
        /// buffer the shape owns, so that matching a key retains and releases nothing.
        private let keys: UnsafeMutablePointer<(count: Int, head: UInt64, start: Int)>
        /// Every key's UTF-8, back to back.
        private let utf8: UnsafeMutableRawBufferPointer
        /// The position of `"__rowid__"`, if it is one of the keys.
        let rowIDSlot: Int?

        init(of members: [String: JSON]) {
            let template = members.mapValues { _ in JSON.null }
            self.template = template
            indices = Array(template.indices)
            count = indices.count
            let keys = UnsafeMutablePointer<(count: Int, head: UInt64, start: Int)>.allocate(capacity: max(count, 1))
            let utf8 = UnsafeMutableRawBufferPointer.allocate(byteCount: max(template.keys.reduce(0) { $0 + $1.utf8.count }, 1),
                                                              alignment: 1)
            var start = 0
            for (position, key) in template.keys.enumerated() {
                let bytes = Array(key.utf8)
                bytes.withUnsafeBytes { bytes in
                    UnsafeMutableRawBufferPointer(rebasing: utf8[start ..< start + bytes.count]).copyMemory(from: bytes)
                    (keys + position).initialize(to: (bytes.count, Self.head(of: bytes), start))
                }
                start += bytes.count
            }
            self.keys = keys
            self.utf8 = utf8
            rowIDSlot = template.keys.firstIndex(of: FieldPath.rowIDField).map { template.keys.distance(from: template.keys.startIndex, to: $0) }
        }

        deinit {
            keys.deallocate()
            utf8.deallocate()
        }

        /// Whether the keys of `members` are this set's.
        func holds(exactly members: [String: JSON]) -> Bool {
            members.count == count && members.keys.allSatisfy { template[$0] != nil }
        }

        /// The UTF-8 of the key at `position` (in `indices`).
        func key(at position: Int) -> UnsafeRawBufferPointer {
            let key = keys[position]
            return UnsafeRawBufferPointer(rebasing: utf8[key.start ..< key.start + key.count])
        }

        /// The first (up to) 8 bytes of `key`, little-endian, zero-padded.
        @inline(__always)
        static func head(of key: UnsafeRawBufferPointer) -> UInt64 {
            var head: UInt64 = 0
            withUnsafeMutableBytes(of: &head) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: key.prefix(8))) }
            return UInt64(littleEndian: head)
        }

        /// The position (in `indices`) of the key whose UTF-8 is `key`, if it is one; `head`
        /// is ``head(of:)`` of `key`.
        @inline(__always)
        func slot(of key: UnsafeRawBufferPointer, head: UInt64) -> Int? {
            for position in 0 ..< count {
                let candidate = keys[position]
                guard candidate.count == key.count, candidate.head == head else { continue }
                if key.count <= 8 { return position }
                let rest = UnsafeRawBufferPointer(rebasing: utf8[candidate.start + 8 ..< candidate.start + key.count])
                if rest.elementsEqual(UnsafeRawBufferPointer(rebasing: key[8...])) { return position }
            }
            return nil
        }
    }

    /// Key sets of more keys than this are decoded member by member (a filled set of slots
    /// is kept in one word).
    static let maximumKeys = 64
    /// How many key sets are kept; the least recently used goes first.
    static let capacity = 32

    /// The key sets; of those with as many keys, the most recently used comes first.
    /// (One thread at a time uses these: no exclusivity checks needed.)
    @exclusivity(unchecked) private(set) var shapes: [Shape] = []
    /// Each set's number of keys, in the same order: looked through without touching a set.
    @exclusivity(unchecked) private(set) var keyCounts: [Int] = []
    /// Objects decoded from a known key set, and member by member.
    @exclusivity(unchecked) private(set) var hits = 0, misses = 0

    init() {}

    /// Notes that `shapes[position]` was used: it goes before any other set of as many
    /// keys (those were tried first, in vain).
    func noteHit(at position: Int) {
        hits &+= 1
        let count = keyCounts[position]
        // (Both have `count` keys: `keyCounts` stays as it is.)
        if let earlier = keyCounts[..<position].firstIndex(of: count) { shapes.swapAt(earlier, position) }
    }

    /// Takes up the key sets `other` learned and this one has not, after its own: a
    /// collection's own sets learn from the threads of a big find. (A set never changes once
    /// made, so both can hold it.)
    func adopt(_ other: ObjectShapes) {
        for (shape, count) in zip(other.shapes, other.keyCounts) where shapes.count < Self.capacity {
            guard !shapes.contains(where: { $0.holds(exactly: shape.template) }) else { continue }
            shapes.append(shape)
            keyCounts.append(count)
        }
    }

    /// Keeps the key set of `members`, decoded member by member, for the next objects, unless
    /// it is kept already or this thread's objects rarely share their keys (then keeping them
    /// costs more than it saves).
    func noteMiss(_ members: [String: JSON]) {
        misses &+= 1
        guard !members.isEmpty, members.count <= Self.maximumKeys, misses < 64 || hits > misses,
              !shapes.contains(where: { $0.holds(exactly: members) }) else { return }
        if shapes.count == Self.capacity {
            shapes.removeLast()
            keyCounts.removeLast()
        }
        shapes.insert(Shape(of: members), at: 0)
        keyCounts.insert(members.count, at: 0)
    }
}
