// ShapeFill: an object being decoded into a copy of one known key set's dictionary (see
// ObjectShapes), with the members set so far. When the object turns out to have a key the set
// lacks, its values move to another set that holds every key read so far: no value is decoded
// twice, so decoding stays linear in the size of the bytes however deep objects nest.

/// An object's members being set, by position, in a copy of one key set's dictionary.
struct ShapeFill {
    /// The set's position in ``ObjectShapes/shapes``.
    let position: Int
    let shape: ObjectShapes.Shape
    /// A copy of the set's template, the members read so far set.
    private(set) var members: [String: JSON]
    /// A bit per position of the set: the members set.
    private var filled: UInt64 = 0

    private init(position: Int, shape: ObjectShapes.Shape) {
        self.position = position
        self.shape = shape
        members = shape.template
    }

    /// Whether the member at `slot` (a position of the set) is set.
    func holds(_ slot: Int) -> Bool {
        filled & (1 << UInt64(slot)) != 0
    }

    /// Sets the member at `slot` (a position of the set).
    mutating func set(_ slot: Int, to value: JSON) {
        filled |= 1 << UInt64(slot)
        members.values[shape.indices[slot]] = value
    }

    /// The members set so far, in a dictionary of their own with room for `room` members.
    func plainMembers(room: Int) -> [String: JSON] {
        var plain = [String: JSON](minimumCapacity: room)
        for slot in 0 ..< shape.count where holds(slot) {
            let member = members[shape.indices[slot]]
            plain[member.key] = member.value
        }
        return plain
    }

    /// The first set of `shapes` after the one `carried` fills (or the first of all) that has
    /// `keyCount` keys, among them `key` (whose ``ObjectShapes/Shape/head(of:)`` is `head`) and
    /// every key `carried` has set, with those members moved in; and the slot of `key` in it.
    static func next(in shapes: ObjectShapes, keyCount: Int, holding key: UnsafeRawBufferPointer, head: UInt64,
                     after carried: ShapeFill? = nil) -> (fill: ShapeFill, slot: Int)? {
        let start = carried.map { $0.position + 1 } ?? 0
        guard start < shapes.keyCounts.count else { return nil }
        for position in start ..< shapes.keyCounts.count where shapes.keyCounts[position] == keyCount {
            let shape = shapes.shapes[position]
            guard let slot = shape.slot(of: key, head: head) else { continue }
            var fill = ShapeFill(position: position, shape: shape)
            if let carried, !fill.takeMembers(of: carried) { continue }
            return (fill, slot)
        }
        return nil
    }

    /// Sets the members `other` has set, if this set has all their keys.
    private mutating func takeMembers(of other: ShapeFill) -> Bool {
        for otherSlot in 0 ..< other.shape.count where other.holds(otherSlot) {
            let key = other.shape.key(at: otherSlot)
            guard let slot = shape.slot(of: key, head: ObjectShapes.Shape.head(of: key)) else { return false }
            set(slot, to: other.members.values[other.shape.indices[otherSlot]])
        }
        return true
    }
}
