// QueryPlanner: the third stage. Chooses how to find a query's documents: by rowID, through
// an index (equality and IN on a prefix of its keys, then a range on the next key; or in index
// order for orderBy + limit), or by a full scan. Index ranges are a superset of the matches:
// the executor always applies the whole WHERE to each candidate.

/// A byte range of index keys, both ends inclusive (nil: open).
struct KeyRange: Equatable, Sendable {
    var start: [UInt8]?
    var end: [UInt8]?
}

/// An index scan: which index, which key ranges, in which direction.
struct IndexScan: Equatable, Sendable {
    var index: IndexDefinition
    var ranges: [KeyRange]
    /// Scan the ranges backwards (last range first).
    var reverse = false
    /// The scan yields documents in the orderBy's order.
    var isOrdered = false
    /// The ranges hold exactly the matching documents: no need to evaluate the WHERE, and a
    /// count needs no document.
    var isExact = false
    /// The values each leading key is fixed to (one list per key the ranges use).
    var fixedValues: [[JSON]] = []
    /// The key after them that the ranges bound, if any, and its bounds.
    var rangeKey: SortKey?
    var lower: Bound?
    var upper: Bound?

    /// One end of a range: a value, and whether the range includes it.
    struct Bound: Equatable, Sendable {
        var value: JSON
        var inclusive: Bool
    }

    /// How many leading keys the ranges fix to values.
    var usedKeys: Int { fixedValues.count }

    /// What `explain` prints (built only then: a query does not pay for it).
    var description: String {
        var parts = zip(index.keys, fixedValues).map { key, values in
            values.count == 1 ? "\(key.path) = \(values[0])"
                              : "\(key.path) IN (\(values.map(\.description).joined(separator: ", ")))"
        }
        if let rangeKey, lower != nil || upper != nil {
            let ends = [lower.map { "\(rangeKey.path) \($0.inclusive ? ">=" : ">") \($0.value)" },
                        upper.map { "\(rangeKey.path) \($0.inclusive ? "<=" : "<") \($0.value)" }]
            parts.append("range " + ends.compactMap { $0 }.joined(separator: " AND "))
        }
        return "index \(index.name): " + (parts.isEmpty ? "every entry" : parts.joined(separator: ", "))
    }
}

/// How a query is run.
enum QueryPlan: Equatable, Sendable {
    case fullScan
    case rowIDs([Int64])
    case index(IndexScan)

    var isOrdered: Bool {
        if case let .index(scan) = self { return scan.isOrdered }
        return false
    }
}

/// Chooses plans.
struct QueryPlanner {
    let indexes: [IndexDefinition]
    /// Above this many ranges (IN lists multiplied across keys), fewer keys are used.
    static let maximumRanges = 256

    /// What the WHERE says about one field. A class: a first range find set up the
    /// metadata of `Constraint?` from its mangled name to destroy a copy of the struct it
    /// was (about 25 us), where a reference is only released.
    private final class Constraint {
        var equalValues: [JSON]?
        var fromContains = false
        var lower: IndexScan.Bound?
        var upper: IndexScan.Bound?
    }

    func plan(where expression: QueryExpression?, orderBy: [SortKey], limit: Int?) -> QueryPlan {
        let constraints = Self.constraints(of: expression?.conjuncts ?? [])
        if let rowIDs = constraints[FieldPath.rowID]?.equalValues {
            var seen = Set<Int64>()
            return .rowIDs(rowIDs.compactMap(\.intValue).filter { seen.insert($0).inserted })
        }
        var best: (index: IndexDefinition, equalCount: Int, hasRange: Bool, score: Int)?
        for index in indexes {
            var equalCount = 0
            for key in index.keys {
                guard let constraint = constraints[key.path], let values = constraint.equalValues,
                      !index.isMultiValued || constraint.fromContains || values.allSatisfy({ $0.arrayValue == nil })
                else { break }
                equalCount += 1
            }
            let hasRange = !index.isMultiValued && equalCount < index.keys.count
                && (constraints[index.keys[equalCount].path].map { $0.lower != nil || $0.upper != nil } ?? false)
            let fullUnique = index.isUnique && equalCount == index.keys.count ? 1 : 0
            let score = equalCount * 4 + (hasRange ? 2 : 0) + fullUnique
            if score > 0, score > best?.score ?? 0 { best = (index, equalCount, hasRange, score) }
        }
        if let best {
            var scan = indexPlan(best.index, equalCount: best.equalCount, hasRange: best.hasRange,
                                 constraints: constraints, orderBy: orderBy)
            scan.isExact = Self.isExact(expression?.conjuncts ?? [], scan: scan)
            return .index(scan)
        }
        if limit != nil, !orderBy.isEmpty {
            for index in indexes where !index.isMultiValued {
                if let reverse = Self.order(of: index, from: 0, satisfies: orderBy) {
                    return .index(IndexScan(index: index, ranges: [KeyRange(start: nil, end: nil)], reverse: reverse,
                                            isOrdered: true, isExact: expression == nil))
                }
            }
        }
        return .fullScan
    }

    private func indexPlan(_ index: IndexDefinition, equalCount: Int, hasRange: Bool,
                           constraints: [FieldPath: Constraint], orderBy: [SortKey]) -> IndexScan {
        var prefixes: [[UInt8]] = [[]]
        var fixedValues: [[JSON]] = []
        for key in index.keys.prefix(equalCount) {
            let values = Self.distinct(constraints[key.path]?.equalValues ?? [])
            guard prefixes.count * values.count <= Self.maximumRanges else { break }
            prefixes = prefixes.flatMap { prefix in values.map { prefix + IndexKey.encode($0, descending: key.descending) } }
            fixedValues.append(values)
        }
        let used = fixedValues.count
        var ranges: [KeyRange] = []
        let rangeKey = hasRange && used == equalCount ? index.keys[used] : nil
        let constraint = rangeKey.flatMap { constraints[$0.path] }
        for prefix in prefixes {
            ranges.append(Self.range(after: prefix, rangeKey: constraint == nil ? nil : rangeKey,
                                     lower: constraint?.lower, upper: constraint?.upper))
        }
        var reverse = false
        var isOrdered = false
        if !orderBy.isEmpty, ranges.count == 1, !index.isMultiValued,
           let direction = Self.order(of: index, from: used, satisfies: orderBy) {
            reverse = direction
            isOrdered = true
        }
        return IndexScan(index: index, ranges: ranges, reverse: reverse, isOrdered: isOrdered, fixedValues: fixedValues,
                         rangeKey: rangeKey, lower: constraint?.lower, upper: constraint?.upper)
    }

    /// The keys that start with `prefix` (the encoded values of the keys a scan fixes) and,
    /// when there is a `rangeKey`, go on with a value of it between `lower` and `upper`.
    static func range(after prefix: [UInt8], rangeKey: SortKey?, lower: IndexScan.Bound?, upper: IndexScan.Bound?) -> KeyRange {
        var start = prefix, end = prefix + IndexKey.prefixEnd
        guard let rangeKey else { return KeyRange(start: start, end: end) }
        // A descending key's bytes are complemented: the lower value bounds the end.
        let (low, high) = rangeKey.descending ? (upper, lower) : (lower, upper)
        // A one-sided range stops short of nulls, which no ordering comparison matches.
        func null() -> [UInt8] { prefix + IndexKey.encode(.null, descending: rangeKey.descending) }
        if let low {
            let bound = prefix + IndexKey.encode(low.value, descending: rangeKey.descending)
            start = low.inclusive ? bound : bound + IndexKey.prefixEnd
        } else if !rangeKey.descending {
            start = null() + IndexKey.prefixEnd
        }
        if let high {
            let bound = prefix + IndexKey.encode(high.value, descending: rangeKey.descending)
            end = high.inclusive ? bound + IndexKey.prefixEnd : bound
        } else if rangeKey.descending {
            end = null()
        }
        return KeyRange(start: start, end: end)
    }

    /// True when the scan's ranges hold exactly the documents all `conjuncts` match: each is
    /// an equality (IN, CONTAINS) on a key the scan fixes, or a non-null bound on its range key.
    private static func isExact(_ conjuncts: [QueryExpression], scan: IndexScan) -> Bool {
        let index = scan.index
        let fixed = Set(index.keys.prefix(scan.usedKeys).map(\.path))
        var equalities: [FieldPath: Int] = [:]
        for conjunct in conjuncts {
            switch conjunct {
            case let .comparison(.field(path), comparison, .value(value)), let .comparison(.value(value), comparison, .field(path)):
                if fixed.contains(path), comparison == .equal, !index.isMultiValued {
                    equalities[path, default: 0] += 1
                } else if path != scan.rangeKey?.path || value.isNull || comparison == .equal || comparison == .notEqual {
                    return false
                }
            case let .inList(.field(path), list, negated: false):
                guard fixed.contains(path), !index.isMultiValued,
                      list.allSatisfy({ if case .value = $0 { true } else { false } }) else { return false }
                equalities[path, default: 0] += 1
            case let .contains(.field(path), .value(value), negated: false):
                guard fixed.contains(path), !value.isNull else { return false }
                equalities[path, default: 0] += 1
            case let .between(.field(path), .value(low), .value(high), negated: false):
                guard path == scan.rangeKey?.path, !low.isNull, !high.isNull else { return false }
            default:
                return false
            }
        }
        // A second equality on a key was not used by the ranges.
        return equalities.values.allSatisfy { $0 == 1 } && equalities.count == fixed.count
    }

    /// nil when the index keys from `start` do not give `orderBy`'s order; else whether the
    /// scan must run backwards.
    private static func order(of index: IndexDefinition, from start: Int, satisfies orderBy: [SortKey]) -> Bool? {
        guard start + orderBy.count <= index.keys.count else { return nil }
        let keys = Array(index.keys[start ..< start + orderBy.count])
        guard zip(keys, orderBy).allSatisfy({ $0.path == $1.path }) else { return nil }
        if zip(keys, orderBy).allSatisfy({ $0.descending == $1.descending }) { return false }
        if zip(keys, orderBy).allSatisfy({ $0.descending != $1.descending }) { return true }
        return nil
    }

    private static func distinct(_ values: [JSON]) -> [JSON] {
        var seen = Set<[UInt8]>()
        return values.filter { seen.insert(IndexKey.encode($0)).inserted }
    }

    /// One field compared with an operand, the field on the left.
    struct FieldTerm {
        var path: FieldPath
        var comparison: ComparisonOperator
        var operand: QueryOperand
        /// An equality that came from CONTAINS.
        var fromContains = false
    }

    /// A conjunct as comparisons of a field with an operand: a comparison (its operator
    /// flipped when the field is on the right), CONTAINS as an equality, BETWEEN as `>=` and
    /// `<=`; nil for any other conjunct. (The planner and PreparedPlan read conjuncts alike.)
    static func fieldTerms(of conjunct: QueryExpression) -> [FieldTerm]? {
        switch conjunct {
        case let .comparison(.field(path), comparison, operand):
            return [FieldTerm(path: path, comparison: comparison, operand: operand)]
        case let .comparison(operand, comparison, .field(path)):
            return [FieldTerm(path: path, comparison: comparison.flipped, operand: operand)]
        case let .contains(.field(path), operand, negated: false):
            return [FieldTerm(path: path, comparison: .equal, operand: operand, fromContains: true)]
        case let .between(.field(path), low, high, negated: false):
            return [FieldTerm(path: path, comparison: .greaterOrEqual, operand: low),
                    FieldTerm(path: path, comparison: .lessOrEqual, operand: high)]
        default:
            return nil
        }
    }

    /// What the top-level AND says about single fields compared with values.
    private static func constraints(of conjuncts: [QueryExpression]) -> [FieldPath: Constraint] {
        var result: [FieldPath: Constraint] = [:]
        for conjunct in conjuncts {
            if case let .inList(.field(path), list, negated: false) = conjunct {
                let values = list.compactMap { operand -> JSON? in
                    if case let .value(value) = operand { return value }
                    return nil
                }
                if values.count == list.count, result[path]?.equalValues == nil { constraint(of: path, in: &result).equalValues = values }
                continue
            }
            // Only terms of values (a field compared with a field says nothing to an index).
            guard let terms = fieldTerms(of: conjunct) else { continue }
            let values = terms.compactMap { term -> JSON? in
                if case let .value(value) = term.operand { return value }
                return nil
            }
            guard values.count == terms.count else { continue }
            for (term, value) in zip(terms, values) {
                if term.fromContains {
                    if result[term.path]?.equalValues == nil {
                        let constraint = constraint(of: term.path, in: &result)
                        constraint.equalValues = [value]
                        constraint.fromContains = true
                    }
                } else {
                    add(term.path, term.comparison, value, to: &result)
                }
            }
        }
        return result
    }

    /// The constraint on `path` in `result`, added empty if there is none. (A class: setting
    /// a member through `result[path, default:]` would not keep the default.)
    private static func constraint(of path: FieldPath, in result: inout [FieldPath: Constraint]) -> Constraint {
        if let constraint = result[path] { return constraint }
        let constraint = Constraint()
        result[path] = constraint
        return constraint
    }

    private static func add(_ path: FieldPath, _ comparison: ComparisonOperator, _ value: JSON,
                            to result: inout [FieldPath: Constraint]) {
        let constraint = result[path] ?? Constraint()
        switch comparison {
        case .equal:
            if constraint.equalValues == nil || constraint.fromContains {
                constraint.equalValues = [value]
                constraint.fromContains = false
            }
        case .notEqual:
            return
        case .greater, .greaterOrEqual:
            let inclusive = comparison == .greaterOrEqual
            if let lower = constraint.lower, JSON.compare(lower.value, value) > 0 { break }
            constraint.lower = IndexScan.Bound(value: value, inclusive: inclusive && (constraint.lower.map { JSON.compare($0.value, value) != 0 || $0.inclusive } ?? true))
        case .less, .lessOrEqual:
            let inclusive = comparison == .lessOrEqual
            if let upper = constraint.upper, JSON.compare(upper.value, value) < 0 { break }
            constraint.upper = IndexScan.Bound(value: value, inclusive: inclusive && (constraint.upper.map { JSON.compare($0.value, value) != 0 || $0.inclusive } ?? true))
        }
        result[path] = constraint
    }
}
