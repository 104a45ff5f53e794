// ObjectShapes: the key sets of objects already decoded, each with an empty dictionary of
// those keys. Documents of a collection mostly share their keys; decoding one more object of
// a known key set copies that dictionary (a copy keeps its buckets, seed and indices) and
// sets each member by index: no key strings are made and nothing is hashed. One per
// decoding thread; it is not shared.

import Foundation

/// Dictionaries ready to be filled, one per key set decoded so far.
final class ObjectShapes {
    /// One key set: its keys' UTF-8 and, for each, the index of its member in `template`.
    final class Shape {
        /// Every key's value is `.null`.
        let template: [String: JSON]
        let indices: [Dictionary<String, JSON>.Index]
        /// Each key's UTF-8, in the order of `indices`.
        private let keys: [[UInt8]]
        /// The position of `"__rowid__"`, if it is one of the keys.
        let rowIDSlot: Int?

        init(of members: [String: JSON]) {
            let template = members.mapValues { _ in JSON.null }
            self.template = template
            indices = Array(template.indices)
            keys = template.keys.map { Array($0.utf8) }
            rowIDSlot = template.keys.firstIndex(of: FieldPath.rowIDField).map { template.keys.distance(from: template.keys.startIndex, to: $0) }
        }

        var count: Int { indices.count }

        /// Whether the keys of `members` are this set's.
        func holds(exactly members: [String: JSON]) -> Bool {
            members.count == count && members.keys.allSatisfy { template[$0] != nil }
        }

        /// The position (in `indices`) of the key whose UTF-8 is `key`, if it is one.
        @inline(__always)
        func slot(of key: UnsafeRawBufferPointer) -> Int? {
            for position in keys.indices where keys[position].count == key.count {
                let equal = keys[position].withUnsafeBytes { stored in
                    guard let stored = stored.baseAddress, let wanted = key.baseAddress else { return true }   // both empty
                    return memcmp(stored, wanted, key.count) == 0
                }
                if equal { return position }
            }
            return nil
        }
    }

    /// Key sets of more keys than this are decoded member by member (a filled set of slots
    /// is kept in one word).
    static let maximumKeys = 64
    /// How many key sets are kept; the least recently used goes first.
    static let capacity = 32

    /// The key sets, most recently used first.
    private(set) var shapes: [Shape] = []
    /// Objects decoded from a known key set, and member by member.
    private(set) var hits = 0, misses = 0

    init() {}

    /// Notes that `shapes[position]` was used: it moves to the front.
    func noteHit(at position: Int) {
        hits &+= 1
        if position > 0 { shapes.swapAt(0, position) }
    }

    /// Keeps the key set of `members`, decoded member by member, for the next objects, unless
    /// it is kept already or this thread's objects rarely share their keys (then keeping them
    /// costs more than it saves).
    func noteMiss(_ members: [String: JSON]) {
        misses &+= 1
        guard !members.isEmpty, members.count <= Self.maximumKeys, misses < 64 || hits > misses,
              !shapes.contains(where: { $0.holds(exactly: members) }) else { return }
        if shapes.count == Self.capacity { shapes.removeLast() }
        shapes.insert(Shape(of: members), at: 0)
    }
}
