// ObjectQuery: a query on one class with its types erased, as the planner and the executor take
// it: the predicate's test and conditions, the order, the limit and offset.

/// One sort key of a query, type-erased.
internal struct QueryOrderKey {
    let term: QueryTerm
    let isDescending: Bool

    /// Whether `left` sorts before `right` under this key alone: `nil` first in both
    /// directions, then the keys' byte order.
    func precedes(_ left: [UInt8], _ right: [UInt8]) -> Bool {
        let leftIsNil = left.count == 1 && left[0] == IndexKeyBytes.nilTag
        let rightIsNil = right.count == 1 && right[0] == IndexKeyBytes.nilTag
        if leftIsNil || rightIsNil { return leftIsNil && !rightIsNil }
        return isDescending ? ByteOrder.less(right, left) : ByteOrder.less(left, right)
    }
}

/// A query on objects of one class.
internal struct ObjectQuery {
    /// The predicate's conditions, which an object (its stored state) must pass; nil passes
    /// every object.
    let predicate: PredicateNode?
    /// Conditions every passing object meets.
    let conjuncts: [QueryCondition]
    /// Whether the predicate is exactly its conjuncts (no `||` or `!` besides).
    let isConjunction: Bool
    let order: [QueryOrderKey]
    let limit: Int?
    let offset: Int

    init<Root>(_ predicate: ObjectPredicate<Root>?, order: [ObjectOrder<Root>], limit: Int?, offset: Int) {
        let node = predicate?.node
        self.predicate = node
        conjuncts = node?.conjuncts ?? []
        isConjunction = node?.isConjunction ?? true
        // A loop, not map: this runs unspecialized for Root (the store's query entry is generic,
        // not inlined), where map's closure cost about 2,300 instructions a query.
        var keys: [QueryOrderKey] = []
        if !order.isEmpty {
            keys.reserveCapacity(order.count)
            for position in 0 ..< order.count { keys.append(order[position].key) }
        }
        self.order = keys
        self.limit = limit.map { max(0, $0) }
        self.offset = max(0, offset)
    }

    /// Whether `object` (its stored state) passes the predicate.
    func matches(_ object: StoredObject) -> Bool {
        predicate?.matches(object) ?? true
    }

    /// Whether a result whose order keys are `left` and rowID `leftRowID` sorts before one with
    /// `right` and `rightRowID`; ties go by rowID.
    func precedes(_ left: [[UInt8]], _ leftRowID: UInt64, _ right: [[UInt8]], _ rightRowID: UInt64) -> Bool {
        for position in order.indices {
            if order[position].precedes(left[position], right[position]) { return true }
            if order[position].precedes(right[position], left[position]) { return false }
        }
        return leftRowID < rightRowID
    }
}
