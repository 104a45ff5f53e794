// QueryResults: what a query has found so far, as its plan hands it candidates in their saved
// state: each tested (unless the plan's ranges are exact), given its sort keys (unless the walk
// is the order), and kept within the limit; then sorted and cut to the page asked for. A value
// passed inout through the read, not state captured by nested closures (which Swift checks for
// exclusive access at run time, on every access).

/// The objects found by one run of a query.
internal struct QueryResults {
    private let query: ObjectQuery
    private let plan: QueryPlan
    /// Whether the plan's ranges hold exactly the objects that pass (the index is the saved
    /// state), so that candidates need no test.
    private let exact: Bool
    /// The offset plus the limit: how many are needed, nil for all.
    private let wanted: Int?
    /// With an order and a limit and no ordered walk, only the best `wanted` are kept: the
    /// found ones are sorted and cut whenever they reach twice that.
    private let keepsBest: Bool
    /// Whether candidates come in the final order: a walk that is the order, or an index read
    /// (in rowID order) of a query without one. Then nothing is sorted and the limit stops the read.
    private let arrivesInOrder: Bool
    /// The candidates kept with their sort keys (when they do not arrive in order).
    private var found: [(object: StoredObject, keys: [[UInt8]])] = []
    /// The candidates kept when they arrive in order: the page's objects as they are (no
    /// keys, no tuple to make and destroy per object, nothing to copy when the page is all).
    private var inOrder: [StoredObject] = []
    /// In an ordered walk, once enough are found: the first sort key of the last one needed.
    /// Only ties with it may still come.
    private var boundary: [UInt8]?

    init(query: ObjectQuery, plan: QueryPlan) {
        self.query = query
        self.plan = plan
        exact = plan.index != nil && plan.isExact
        wanted = query.limit.map { query.offset + $0 }
        keepsBest = !query.order.isEmpty && !plan.readsInOrder && wanted != nil
        arrivesInOrder = plan.walkIsOrder || (query.order.isEmpty && plan.index != nil)
        // Room for a page at once (up to a chunk's worth), not grown an object at a time.
        if arrivesInOrder, let wanted { inOrder.reserveCapacity(min(wanted, 256)) }
    }

    /// How many more rowIDs an ordered walk should gather before reading their objects.
    var chunkSize: Int {
        min(256, max(1, (wanted ?? 256) - found.count - inOrder.count))
    }

    /// Takes the candidate whose saved state is `view` (`result` gives the instance to
    /// return) if it passes; false when the read should stop.
    mutating func consider(_ view: StoredObject, _ result: () -> StoredObject) -> Bool {
        if arrivesInOrder {
            // Found in their final order: no keys to compare, and the limit ends the read.
            if !exact { guard query.matches(view) else { return true } }
            inOrder.append(result())
            return wanted.map { inOrder.count < $0 } ?? true
        }
        if let boundary, let first = query.order.first {
            guard first.term.key(of: view) == boundary else { return false }
        }
        if !exact { guard query.matches(view) else { return true } }
        let keys = query.order.map { $0.term.key(of: view) }
        found.append((result(), keys))
        if let wanted {
            if plan.readsInOrder, found.count >= wanted, boundary == nil { boundary = keys.first }
            if keepsBest, found.count >= max(2 * wanted, 64) {
                sort()
                found.removeLast(found.count - wanted)
            }
        }
        return true
    }

    /// In an ordered walk, once enough are found, whether the index entry's sort key differs
    /// from the last one found: the walk ends there, before its object is read.
    func isPastBoundary(_ entry: UnsafeRawBufferPointer) -> Bool {
        guard let boundary, let prefix = plan.orderedPrefix else { return false }
        return !entry.starts(with: prefix + boundary)
    }

    /// The page asked for, in order.
    mutating func page() -> [StoredObject] {
        if arrivesInOrder {
            // Already in order: the whole array when it is the page (the rule: the read stops
            // at the limit), else the part asked for.
            let start = min(query.offset, inOrder.count)
            let end = wanted.map { min($0, inOrder.count) } ?? inOrder.count
            return start == 0 && end == inOrder.count ? inOrder : Array(inOrder[start ..< end])
        }
        if !query.order.isEmpty {
            sort()
        } else if plan.index == nil, zip(found, found.dropFirst()).contains(where: { $0.object.rowID > $1.object.rowID }) {
            // A scan yields the file's order, which rewritten pages leave out of rowID order
            // (index reads yield rowID order).
            found.sort { $0.object.rowID < $1.object.rowID }
        }
        let start = min(query.offset, found.count)
        let end = wanted.map { min($0, found.count) } ?? found.count
        return found[start ..< end].map(\.object)
    }

    private mutating func sort() {
        found.sort { [query] in query.precedes($0.keys, $0.object.rowID, $1.keys, $1.object.rowID) }
    }
}
