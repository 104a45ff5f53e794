// Store+Queries: typed queries on stored objects: find, first, count and explain. A query reads
// the saved state, as full-text search does: objects inserted and not yet saved are not found,
// objects deleted and not yet saved are left out, and an object changed and not yet saved is
// tested on its saved values (the instance returned is the live one, with its changes).

/// How a query reads its class, from ``Store/explain(of:where:orderBy:limit:)``.
///
/// ```swift
/// print(try store.explain(of: Song.self, where: \.seconds > 300))
/// // Song: index "seconds" (seconds > 300), 1 range
/// ```
public struct QueryExplanation: CustomStringConvertible, Sendable, Equatable {
    /// The index used, nil for a scan of every object.
    public let index: String?
    /// The conditions the index applies (the others are tested on each object it yields).
    public let indexedConditions: [String]
    /// The number of key ranges read from the index.
    public let rangeCount: Int
    /// Whether the index is read in the order of the first sort key (so a limit stops early).
    public let readsInOrder: Bool
    /// Whether a count is taken from the index alone.
    public let countsFromIndex: Bool
    /// The class queried.
    public let className: String

    public var description: String {
        guard let index else { return "\(className): scan of every object" }
        var text = "\(className): index \"\(index)\""
        if !indexedConditions.isEmpty { text += " (\(indexedConditions.joined(separator: " && ")))" }
        text += ", \(rangeCount) range\(rangeCount == 1 ? "" : "s")"
        if readsInOrder { text += ", in order" }
        if countsFromIndex { text += ", counted from the index" }
        return text
    }
}

extension Store {
    /// The objects of `type` that pass `predicate` (every object when nil), in `order` (rowID
    /// order when empty), skipping `offset` and returning at most `limit`. Results are the
    /// store's instances (one per rowID). The query reads the saved state: save first to find
    /// objects inserted or changed since.
    ///
    /// ```swift
    /// let long = try store.objects(of: Song.self, where: \.seconds > 300)
    /// let page = try store.objects(of: Song.self, where: \.album == kindOfBlue && \.seconds >= 60,
    ///                              orderBy: [.ascending(\.title)], limit: 20, offset: 40)
    /// ```
    @inlinable
    public func objects<T: StoredObject>(of type: T.Type, where predicate: ObjectPredicate<T>? = nil,
                                         orderBy order: [ObjectOrder<T>] = [], limit: Int? = nil,
                                         offset: Int = 0) throws -> [T] {
        // Inlined so that this cast runs specialized for T, in the caller: compiled here, for
        // any T, it cost about a thousand instructions per object.
        try storedObjects(of: type, where: predicate, orderBy: order, limit: limit, offset: offset)
            .map { unsafeDowncast($0, to: T.self) }
    }

    /// ``objects(of:where:orderBy:limit:offset:)``'s objects, as stored objects.
    @usableFromInline
    internal func storedObjects<T: StoredObject>(of type: T.Type, where predicate: ObjectPredicate<T>?,
                                                 orderBy order: [ObjectOrder<T>], limit: Int?, offset: Int) throws -> [StoredObject] {
        try run(ObjectQuery(predicate, order: order, limit: limit, offset: offset), on: entry(for: type))
    }

    /// The first object of `type` that passes `predicate` in `order` (rowID order when empty),
    /// or nil.
    ///
    /// ```swift
    /// let one = try store.firstObject(of: Song.self, where: \.isrc == "USRC17607839")
    /// ```
    public func firstObject<T: StoredObject>(of type: T.Type, where predicate: ObjectPredicate<T>,
                                             orderBy order: [ObjectOrder<T>] = []) throws -> T? {
        try objects(of: type, where: predicate, orderBy: order, limit: 1).first
    }

    /// The number of saved objects of `type` that pass `predicate`. Taken from an index alone
    /// when one applies every condition.
    ///
    /// ```swift
    /// let n = try store.count(of: Song.self, where: .between(\.seconds, 100, 200) || .isNil(\.rating))
    /// ```
    public func count<T: StoredObject>(of type: T.Type, where predicate: ObjectPredicate<T>) throws -> Int {
        let entry = try entry(for: type)
        let query = ObjectQuery(predicate, order: [], limit: nil, offset: 0)
        let plan = try plan(for: query, in: entry)
        if let position = plan.index, plan.isExact, entry.pendingDeleteCount == 0 {
            let index = entry.objectIndexes[position]
            return try plan.ranges.reduce(0) { $0 + (try index.table.count(from: $1.start, through: $1.end)) }
        }
        return try run(query, on: entry, plan: plan).count
    }

    /// How a query would read `type`: which index, which conditions it applies, or a scan.
    ///
    /// ```swift
    /// print(try store.explain(of: Song.self, where: \.seconds > 300))
    /// ```
    public func explain<T: StoredObject>(of type: T.Type, where predicate: ObjectPredicate<T>? = nil,
                                         orderBy order: [ObjectOrder<T>] = [], limit: Int? = nil) throws -> QueryExplanation {
        let entry = try entry(for: type)
        let query = ObjectQuery(predicate, order: order, limit: limit, offset: 0)
        let plan = try plan(for: query, in: entry)
        return QueryExplanation(index: plan.index.map { entry.objectIndexes[$0].name },
                                indexedConditions: plan.usedConditions.map { query.conjuncts[$0].summary },
                                rangeCount: plan.ranges.count, readsInOrder: plan.readsInOrder,
                                countsFromIndex: plan.index != nil && plan.isExact, className: entry.name)
    }

    // MARK: Internal

    internal func plan(for query: ObjectQuery, in entry: ClassEntry) throws -> QueryPlan {
        try checkOpen()
        try buildUnbuiltIndexes(of: entry)
        return QueryPlan.choose(for: query, indexes: entry.objectIndexes)
    }

    internal func run(_ query: ObjectQuery, on entry: ClassEntry) throws -> [StoredObject] {
        try run(query, on: entry, plan: plan(for: query, in: entry))
    }

    private func run(_ query: ObjectQuery, on entry: ClassEntry, plan: QueryPlan) throws -> [StoredObject] {
        if query.limit == 0 { return [] }
        var results = QueryResults(query: query, plan: plan)
        if let position = plan.index {
            try readIndex(entry.objectIndexes[position], plan: plan, query: query, entry: entry, into: &results)
        } else {
            try forEachSavedState(of: entry) { view, result in _ = results.consider(view, result) }
        }
        return results.page()
    }

    /// Gives `results` the saved state of each object the plan's ranges name: in rowID order,
    /// or in the order of the query's first sort key when the plan walks the index.
    private func readIndex(_ index: ObjectIndexState, plan: QueryPlan, query: ObjectQuery, entry: ClassEntry,
                           into results: inout QueryResults) throws {
        guard let prefix = plan.orderedPrefix, let first = query.order.first else {
            var rowIDs: [UInt64] = []
            for range in plan.ranges {
                try index.table.forEachEntry(from: range.start, through: range.end, reverse: false) { indexEntry in
                    if let rowID = RowIDKey.rowID(atEndOf: indexEntry) { rowIDs.append(rowID) }
                    return true
                }
            }
            RowIDSort.sort(&rowIDs)
            var previous: UInt64?
            rowIDs.removeAll { rowID in
                defer { previous = rowID }
                return rowID == previous
            }
            try forEachSavedState(of: rowIDs, entry: entry) { view, result in results.consider(view, { result }) }
            return
        }
        // In order: one prefix of equalities, then the sort key's values. Descending walks the
        // nil values first (nil comes first in both directions), then the others backwards.
        var segments: [(range: QueryPlan.Range, reverse: Bool)] = []
        for range in plan.ranges {
            guard first.isDescending else {
                segments.append((range, false))
                continue
            }
            let nilStart = prefix + [IndexKeyBytes.nilTag]
            let nilEnd = IndexKeyBytes.through(nilStart)
            if let clipped = Self.intersect(range, (nilStart, nilEnd)) { segments.append((clipped, false)) }
            if let clipped = Self.intersect(range, (prefix + IndexKeyBytes.firstValue, IndexKeyBytes.through(prefix))) {
                segments.append((clipped, true))
            }
        }
        if first.isDescending {
            // Nil segments of every range first, then the value segments from the last range back.
            segments = segments.filter { !$0.reverse } + segments.filter(\.reverse).reversed()
        }
        // RowIDs gathered in index order, a chunk at a time (as many as the limit still wants),
        // and their objects read together.
        var goesOn = true
        var chunk: [UInt64] = []
        // Room for the first chunk at once, not grown an element at a time.
        chunk.reserveCapacity(results.chunkSize)
        for segment in segments where goesOn {
            try index.table.forEachEntry(from: segment.range.start, through: segment.range.end, reverse: segment.reverse) { indexEntry in
                if results.isPastBoundary(indexEntry) {
                    goesOn = false
                    return false
                }
                if let rowID = RowIDKey.rowID(atEndOf: indexEntry) { chunk.append(rowID) }
                if chunk.count >= results.chunkSize {
                    goesOn = try readChunk(&chunk, entry: entry, into: &results)
                }
                return goesOn
            }
        }
        if goesOn, !chunk.isEmpty { _ = try readChunk(&chunk, entry: entry, into: &results) }
    }

    /// Gives `results` the saved state of the objects of `chunk`, in its order, and empties
    /// it; false when `results` wants no more.
    private func readChunk(_ chunk: inout [UInt64], entry: ClassEntry, into results: inout QueryResults) throws -> Bool {
        var goesOn = true
        try forEachSavedState(of: chunk, entry: entry) { view, result in
            goesOn = results.consider(view, { result })
            return goesOn
        }
        chunk.removeAll(keepingCapacity: true)
        return goesOn
    }

    private static func intersect(_ left: QueryPlan.Range, _ right: QueryPlan.Range) -> QueryPlan.Range? {
        let start = ByteOrder.less(left.start, right.start) ? right.start : left.start
        let end = ByteOrder.less(left.end, right.end) ? left.end : right.end
        return ByteOrder.less(end, start) ? nil : (start, end)
    }
}
