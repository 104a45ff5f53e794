// QueryPlan: how a query reads its class: a scan of every object, or the ranges of one index
// (equalities on a prefix of its keys, then a range on the next key), walked in key order when
// that order is the query's first sort key. The best index is the one that fixes the most keys;
// a query whose conditions are all used by the ranges is exact, so it can be counted from the
// index alone.

/// The plan of one query.
internal struct QueryPlan {
    /// A key range of index entries, first and last inclusive.
    typealias Range = (start: [UInt8], end: [UInt8])

    /// The index used (its position among the class's indexes), nil for a scan.
    var index: Int?
    /// The entry ranges read, in ascending order.
    var ranges: [Range] = []
    /// The positions among the query's conjuncts of the conditions the ranges apply, for
    /// explain (described only when asked: describing values costs more than planning).
    var usedConditions: [Int] = []
    /// Whether the ranges hold exactly the objects that pass.
    var isExact = false
    /// When the ranges are walked in the order of the query's first sort key: their prefix of
    /// equalities (the index keys before the sort key); nil when they are read in rowID order.
    var orderedPrefix: [UInt8]?
    /// Whether the ranges are walked in the order of the query's first sort key.
    var readsInOrder: Bool { orderedPrefix != nil }
    /// Whether the walk yields the query's whole order: the sort keys are the index's keys after
    /// the prefix, all of them, in turn, ascending (ties then go by rowID, as the entries end
    /// with it), so that nothing needs sorting and a limit stops the walk exactly.
    var walkIsOrder = false

    static let scan = QueryPlan()

    /// The most ranges an `in` list may expand to before the index is not worth it.
    private static let rangeLimit = 4_096

    /// The best plan for `query` over a class's indexes.
    static func choose(for query: ObjectQuery, indexes: [ObjectIndexState]) -> QueryPlan {
        var best = QueryPlan.scan
        var bestScore = 0
        for position in indexes.indices {
            guard let (plan, score) = plan(for: query, index: indexes[position].definition.terms), score > bestScore else { continue }
            best = plan
            best.index = position
            bestScore = score
        }
        return best
    }

    private static func plan(for query: ObjectQuery, index terms: [QueryTerm]) -> (QueryPlan, Int)? {
        let conjuncts = query.conjuncts
        var prefixes: [[UInt8]] = [[]]
        var used: [Int] = []
        var fixed = 0
        // Equalities on the leading keys.
        while fixed < terms.count {
            // A single value beats a list (the first of the fewest keys). Keys are made only
            // for the one chosen: planning runs for every index of every query. Conditions are
            // compared in place, by position: a copy of one retains its term, test and text.
            let identity = terms[fixed].identity
            var chosen: (position: Int, count: Int)?
            for position in conjuncts.indices where conjuncts[position].term.identity == identity && conjuncts[position].isEquality {
                let count = conjuncts[position].equalKeyCount
                if count < chosen?.count ?? .max { chosen = (position, count) }
            }
            guard let position = chosen?.position, let keys = conjuncts[position].equalKeys,
                  prefixes.count * keys.count <= rangeLimit else { break }
            prefixes = prefixes.count == 1 && keys.count == 1 ? [prefixes[0] + keys[0]]
                                                             : prefixes.flatMap { prefix in keys.map { prefix + $0 } }
            used.append(position)
            fixed += 1
        }
        // Then a range on the next key (the condition's position among the conjuncts).
        var rangePosition: Int?
        if fixed < terms.count {
            let identity = terms[fixed].identity
            rangePosition = conjuncts.indices.first { position in
                conjuncts[position].term.identity == identity && !conjuncts[position].isEquality && conjuncts[position].hasKeyRanges
            }
        }
        // The order: walked in index order when the first sort key is the next key after a
        // single prefix of equalities (or any key a range was put on).
        var walksInOrder = false
        if let first = query.order.first, prefixes.count == 1, fixed < terms.count { walksInOrder = first.term == terms[fixed] }
        // Scored before any range is made: most indexes of a class do not apply.
        var score = fixed * 4 + (rangePosition == nil ? 0 : 2)
        if walksInOrder, query.limit != nil { score += 1 }
        guard score > 0 else { return nil }
        let ranges: [Range]
        if let rangePosition, let keyRanges = conjuncts[rangePosition].keyRanges {
            ranges = prefixes.flatMap { prefix in keyRanges.map { (prefix + $0.start, prefix + $0.end) } }
            used.append(rangePosition)
        } else {
            // Every entry of each prefix.
            ranges = prefixes.map { ($0, IndexKeyBytes.through($0)) }
        }
        var orderedPrefix: [UInt8]?
        var walkIsOrder = false
        if walksInOrder {
            orderedPrefix = prefixes[0]
            let following = terms[fixed...]
            walkIsOrder = query.order.count == following.count
                && zip(query.order, following).allSatisfy { order, term in !order.isDescending && order.term == term }
        }
        var plan = QueryPlan()
        plan.ranges = ranges.count > 1 ? ranges.sorted { ByteOrder.less($0.start, $1.start) } : ranges
        plan.usedConditions = used
        plan.isExact = query.isConjunction && used.count == conjuncts.count
        plan.orderedPrefix = orderedPrefix
        plan.walkIsOrder = walkIsOrder
        return (plan, score)
    }
}
