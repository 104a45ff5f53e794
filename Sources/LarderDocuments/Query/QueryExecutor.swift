// QueryExecutor: the last stage. Runs a plan against a collection's storage: gathers
// candidate rowIDs (all documents, listed rowIDs, or index ranges), reads each document
// (through the cache), keeps those the WHERE matches, sorts them (orderBy, then rowID), and
// applies offset and limit, stopping early when the plan's order allows it.

/// What the executor reads: a collection's documents (each with its `"__rowid__"`) and index
/// tables.
protocol DocumentSource {
    var defaults: JSON { get }
    func document(_ rowID: Int64) throws -> JSON?
    /// The stored documents of `rowIDs`, in rowID order (each once; missing ones left out).
    func documents(_ rowIDs: [Int64]) throws -> [(rowID: Int64, document: JSON)]
    func forEachDocument(_ body: (Int64, JSON) throws -> Bool) throws
    func forEachIndexEntry(_ index: IndexDefinition, in range: KeyRange, reverse: Bool,
                           _ body: (Int64) throws -> Bool) throws
    /// The number of entries of `index` in `range`.
    func countIndexEntries(_ index: IndexDefinition, in range: KeyRange) throws -> Int
}

/// Runs plans.
struct QueryExecutor {
    let source: any DocumentSource
    let expression: QueryExpression?
    let orderBy: [SortKey]
    let limit: Int?
    let offset: Int

    /// The matching documents, as (rowID, document) pairs in the requested order.
    func rows(_ plan: QueryPlan) throws -> [(rowID: Int64, document: JSON)] {
        let evaluator = QueryEvaluator(defaults: source.defaults)
        // An exact index scan yields only matches: the WHERE need not be evaluated.
        let expression = if case let .index(scan) = plan, scan.isExact { nil as QueryExpression? } else { self.expression }
        var matches: [(rowID: Int64, document: JSON)] = []
        // In plan order, the scan can stop once offset + limit documents matched.
        // (Saturating: a limit of Int.max means no limit.)
        let wanted = (plan.isOrdered || orderBy.isEmpty) ? limit.map { $0.addingReportingOverflow(offset).overflow ? .max : $0 + offset } : nil
        if wanted == 0 { return [] }
        let defaults = source.defaults
        func sortValues(_ rowID: Int64, _ document: JSON) -> [JSON] {
            orderBy.map { $0.path.value(in: document, rowID: rowID, defaults: defaults) }
        }
        // Once enough matched, an ordered scan still takes the documents that tie with the
        // last one: ties sort by rowID, which the index order does not always follow.
        let isFinalOrder = Self.yieldsFinalOrder(plan, orderBy: orderBy)
        func consider(_ rowID: Int64, _ document: JSON) -> Bool {
            if let expression, !evaluator.matches(expression, document, rowID: rowID) { return true }
            if let wanted, matches.count >= wanted {
                guard let last = matches.last, !orderBy.isEmpty, !isFinalOrder,
                      zip(sortValues(last.rowID, last.document), sortValues(rowID, document)).allSatisfy({ JSON.compare($0, $1) == 0 })
                else { return false }
            }
            matches.append((rowID, document))
            // In the final order, the scan is done once enough matched: no tie can follow
            // (and reading one more document would cost a page read).
            return orderBy.isEmpty || isFinalOrder ? wanted.map { matches.count < $0 } ?? true : true
        }
        switch plan {
        case .fullScan:
            try source.forEachDocument(consider)
        case let .rowIDs(rowIDs):
            for rowID in rowIDs {
                guard let document = try source.document(rowID) else { continue }
                guard consider(rowID, document) else { break }
            }
        case let .index(scan) where wanted != nil:
            // An exact scan in the final order names the rows by itself: read them together.
            if expression == nil, orderBy.isEmpty || isFinalOrder, let wanted,
               let rows = try firstRows(of: scan, count: wanted) {
                matches = rows
                break
            }
            // Else few documents are wanted: read them one at a time, until enough matched.
            try forEachRowID(scan) { rowID in
                guard let document = try source.document(rowID) else { return true }
                return consider(rowID, document)
            }
        case let .index(scan):
            // Every candidate is read: all at once, a page at a time.
            var rowIDs: [Int64] = []
            try forEachRowID(scan) { rowID in
                rowIDs.append(rowID)
                return true
            }
            var documents = try source.documents(rowIDs)
            if isFinalOrder {
                // The batch comes in rowID order; the scan's order is the one asked for.
                documents = Self.inScanOrder(documents, of: rowIDs) ?? sorted(documents, defaults: defaults)
            }
            if expression == nil {
                // Every one matches, and nothing limits them (`wanted` is nil): take them as
                // they are rather than one by one.
                matches = documents
            } else {
                for (rowID, document) in documents {
                    guard consider(rowID, document) else { break }
                }
            }
        }
        if orderBy.isEmpty {
            // An index range or a rowID list usually yields rowIDs in order already.
            if zip(matches, matches.dropFirst()).contains(where: { $0.rowID > $1.rowID }) {
                matches.sort { $0.rowID < $1.rowID }
            }
        } else if !isFinalOrder {
            matches = sorted(matches, defaults: defaults)
        }
        let start = min(offset, matches.count)
        let end = limit.map { min($0, matches.count - start) + start } ?? matches.count
        return start == 0 && end == matches.count ? matches : Array(matches[start ..< end])
    }

    /// The number of matching documents: from the index entries alone when the scan is exact.
    func count(_ plan: QueryPlan) throws -> Int {
        guard case let .index(scan) = plan, scan.isExact else { return try rows(plan).count }
        if !Self.mayRepeatDocuments(scan) {
            return try scan.ranges.reduce(0) { try $0 + source.countIndexEntries(scan.index, in: $1) }
        }
        var count = 0
        try forEachRowID(scan) { _ in
            count += 1
            return true
        }
        return count
    }

    /// The documents of the first `count` distinct rowIDs of `scan`, in scan order, read as one
    /// batch (each page once, records copied straight out of it); nil when one of them is
    /// missing, so that the caller reads on past it.
    private func firstRows(of scan: IndexScan, count: Int) throws -> [(rowID: Int64, document: JSON)]? {
        var rowIDs: [Int64] = []
        try forEachRowID(scan) { rowID in
            rowIDs.append(rowID)
            return rowIDs.count < count
        }
        return Self.inScanOrder(try source.documents(rowIDs), of: rowIDs)
    }

    /// `found`, the documents of the distinct `rowIDs` in rowID order, put back in the order
    /// of `rowIDs`; nil when one of them is missing.
    private static func inScanOrder(_ found: [(rowID: Int64, document: JSON)],
                                    of rowIDs: [Int64]) -> [(rowID: Int64, document: JSON)]? {
        let places = rowIDs.indices.sorted { rowIDs[$0] < rowIDs[$1] }
        guard found.count == rowIDs.count, zip(places, found).allSatisfy({ rowIDs[$0] == $1.rowID }) else { return nil }
        // Each row put straight in its place (`places` holds every index once), rather than
        // into a copy of `found`: a process's first range find also skips setting up the
        // copy's array type from its mangled name (about 30 us).
        return Array(unsafeUninitializedCapacity: found.count) { rows, initialized in
            guard let first = rows.baseAddress else { return }
            for (place, row) in zip(places, found) { (first + place).initialize(to: row) }
            initialized = found.count
        }
    }

    /// Calls `body` with each distinct rowID of the scan's ranges, in scan order, until it
    /// returns false.
    private func forEachRowID(_ scan: IndexScan, _ body: (Int64) throws -> Bool) throws {
        var seen = Set<Int64>()
        let deduplicate = Self.mayRepeatDocuments(scan)
        var stopped = false
        for range in scan.reverse ? scan.ranges.reversed() : scan.ranges where !stopped {
            try source.forEachIndexEntry(scan.index, in: range, reverse: scan.reverse) { rowID in
                if deduplicate && !seen.insert(rowID).inserted { return true }
                stopped = try !body(rowID)
                return !stopped
            }
        }
    }

    /// True when the plan yields rows in exactly the requested order, ties by rowID included:
    /// a forward scan of one range whose remaining index keys are the orderBy's (an entry
    /// ends with its rowID, so equal values come in rowID order).
    private static func yieldsFinalOrder(_ plan: QueryPlan, orderBy: [SortKey]) -> Bool {
        guard case let .index(scan) = plan, scan.isOrdered, !scan.reverse, scan.ranges.count == 1 else { return false }
        return scan.usedKeys + orderBy.count == scan.index.keys.count
    }

    /// True when the scan may meet a document more than once. Entries of different ranges,
    /// or of one value, never share a document unless an array gave it several; and a single
    /// range that fixes every key of the index holds one value, so one entry per document
    /// (a document's entries for an array are its distinct elements).
    private static func mayRepeatDocuments(_ scan: IndexScan) -> Bool {
        scan.index.isMultiValued && !(scan.ranges.count == 1 && scan.usedKeys == scan.index.keys.count)
    }

    /// Sorts by the orderBy keys, then by rowID.
    private func sorted(_ rows: [(rowID: Int64, document: JSON)], defaults: JSON) -> [(rowID: Int64, document: JSON)] {
        let keyed = rows.map { row in (row, orderBy.map { $0.path.value(in: row.document, rowID: row.rowID, defaults: defaults) }) }
        return keyed.sorted { left, right in
            for (index, key) in orderBy.enumerated() {
                let order = JSON.compare(left.1[index], right.1[index])
                if order != 0 { return key.descending ? order > 0 : order < 0 }
            }
            return left.0.rowID < right.0.rowID
        }.map(\.0)
    }
}
