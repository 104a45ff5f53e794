// ObjectQuery: a query on one class with its types erased, as the planner and the executor take
// it: the predicate's test and conditions, the order, the limit and offset.

/// One sort key of a query, type-erased.
internal struct QueryOrderKey {
    let term: QueryTerm
    let isDescending: Bool

    /// Whether `left` sorts before `right` under this key alone: `nil` first in both
    /// directions, then the keys' byte order.
    func precedes(_ left: [UInt8], _ right: [UInt8]) -> Bool {
        let leftIsNil = left == [IndexKeyBytes.nilTag], rightIsNil = right == [IndexKeyBytes.nilTag]
        if leftIsNil || rightIsNil { return leftIsNil && !rightIsNil }
        return isDescending ? ByteOrder.less(right, left) : ByteOrder.less(left, right)
    }
}

/// A query on objects of one class.
internal struct ObjectQuery {
    /// Whether an object (its stored state) passes; nil passes every object.
    let matches: ((StoredObject) -> Bool)?
    /// Conditions every passing object meets.
    let conjuncts: [QueryCondition]
    /// Whether the predicate is exactly its conjuncts (no `||` or `!` besides).
    let isConjunction: Bool
    let order: [QueryOrderKey]
    let limit: Int?
    let offset: Int

    init<Root>(_ predicate: ObjectPredicate<Root>?, order: [ObjectOrder<Root>], limit: Int?, offset: Int) {
        if let predicate {
            matches = predicate.matches
            conjuncts = predicate.conjuncts
            isConjunction = predicate.isConjunction
        } else {
            matches = nil
            conjuncts = []
            isConjunction = true
        }
        self.order = order.map { QueryOrderKey(term: $0.term, isDescending: $0.isDescending) }
        self.limit = limit.map { max(0, $0) }
        self.offset = max(0, offset)
    }

    /// Whether `left` (order keys, rowID) sorts before `right`; ties go by rowID.
    func precedes(_ left: (keys: [[UInt8]], rowID: UInt64), _ right: (keys: [[UInt8]], rowID: UInt64)) -> Bool {
        for (position, key) in order.enumerated() {
            if key.precedes(left.keys[position], right.keys[position]) { return true }
            if key.precedes(right.keys[position], left.keys[position]) { return false }
        }
        return left.rowID < right.rowID
    }
}
