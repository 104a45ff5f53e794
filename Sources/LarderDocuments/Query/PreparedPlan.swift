// PreparedPlan: the planner's choice made once, when a query is prepared, as SQLite's
// prepare does, so that each run only binds its arguments into the index ranges. The first
// run of a query in a process otherwise pays for the whole planner with cold caches (about 16
// us of a 120 us ordered find).
//
// It covers the WHERE clauses whose plan does not depend on the values: an AND of
// comparisons, CONTAINS and BETWEEN of fields with `?` arguments (or literals), at most one
// equality, one lower and one upper bound a field, planned to an index range, or to a rowID
// lookup when `[__rowid__]` has the equality. For arguments that are neither null nor arrays,
// the planner then takes the same index, keys, order and exactness whatever the values; only
// the bytes of the range change (or the rowID looked up). Any other clause, or arguments
// outside that, go through the planner at each run.

/// An index plan chosen when the query was prepared, waiting for its arguments.
struct PreparedPlan: Sendable {
    /// The collection's indexes it was chosen among: with others, it no longer holds.
    let indexes: [IndexDefinition]
    /// What a run binds its arguments into.
    private let shape: Shape

    /// A rowID lookup or an index range, and where its values come from.
    private enum Shape {
        /// The lookup of the rowID `[__rowid__] = operand` names (the planner's choice whatever
        /// the indexes, before any of them).
        case rowID(QueryOperand)
        /// `scan`, the plan as made with stand-in arguments; `fixed`, where the values of the
        /// keys it fixes come from, in key order; `lower` and `upper`, where the range key's
        /// bounds come from, and whether they are inclusive.
        case index(scan: IndexScan, fixed: [QueryOperand],
                   lower: (operand: QueryOperand, inclusive: Bool)?, upper: (operand: QueryOperand, inclusive: Bool)?)
    }

    /// What the WHERE says about one field: at most one of each.
    private struct Terms {
        var equal: QueryOperand?
        var lower: (operand: QueryOperand, inclusive: Bool)?
        var upper: (operand: QueryOperand, inclusive: Bool)?
    }

    /// The plan of `template` among `indexes`; nil when its plan could depend on the values,
    /// or is not an index range.
    init?(template: QueryTemplate?, orderBy: [SortKey], limit: Int?, indexes: [IndexDefinition]) {
        guard let template, let terms = Self.terms(of: template.expression.conjuncts) else { return nil }
        if let rowID = terms[FieldPath.rowID]?.equal {
            self.indexes = indexes
            shape = .rowID(rowID)
            return
        }
        // Stand-ins: any value that is neither null nor an array plans the same.
        let standIns = [JSON](repeating: .int(0), count: template.placeholderPositions.count)
        guard let expression = try? template.bound(to: standIns),
              case let .index(scan) = QueryPlanner(indexes: indexes).plan(where: expression, orderBy: orderBy, limit: limit),
              scan.ranges.count == 1, scan.usedKeys > 0 || scan.rangeKey != nil else { return nil }
        var fixed: [QueryOperand] = []
        for key in scan.index.keys.prefix(scan.usedKeys) {
            guard let equal = terms[key.path]?.equal else { return nil }
            fixed.append(equal)
        }
        let rangeTerms = scan.rangeKey.flatMap { terms[$0.path] }
        guard (scan.lower == nil) == (rangeTerms?.lower == nil), (scan.upper == nil) == (rangeTerms?.upper == nil) else { return nil }
        self.indexes = indexes
        shape = .index(scan: scan, fixed: fixed, lower: rangeTerms?.lower, upper: rangeTerms?.upper)
    }

    /// The plan for `arguments`, the same as the planner's for them; nil when one of them is
    /// null or an array (the planner decides then).
    func plan(binding arguments: [JSON]) -> QueryPlan? {
        guard !arguments.contains(where: { $0.isNull || $0.arrayValue != nil }) else { return nil }
        func value(_ operand: QueryOperand) -> JSON? {
            switch operand {
            case let .argument(position): position < arguments.count ? arguments[position] : nil
            case let .value(value): value
            case .field: nil
            }
        }
        if case let .rowID(operand) = shape {
            // The planner's lookup: the rowID the value names, if it is an integer.
            return value(operand).map { .rowIDs($0.intValue.map { [$0] } ?? []) }
        }
        guard case let .index(scan, fixed, lower, upper) = shape else { return nil }
        var bound = scan
        var prefix: [UInt8] = []
        bound.fixedValues = []
        for (key, operand) in zip(scan.index.keys, fixed) {
            guard let fixedValue = value(operand) else { return nil }
            prefix += IndexKey.encode(fixedValue, descending: key.descending)
            bound.fixedValues.append([fixedValue])
        }
        if let lower {
            guard let lowerValue = value(lower.operand) else { return nil }
            bound.lower = IndexScan.Bound(value: lowerValue, inclusive: lower.inclusive)
        }
        if let upper {
            guard let upperValue = value(upper.operand) else { return nil }
            bound.upper = IndexScan.Bound(value: upperValue, inclusive: upper.inclusive)
        }
        bound.ranges = [QueryPlanner.range(after: prefix, rangeKey: scan.rangeKey, lower: bound.lower, upper: bound.upper)]
        return .index(bound)
    }

    /// Each field's terms; nil when a conjunct is of another kind, a field has two terms of
    /// one kind, or a literal is null or an array.
    private static func terms(of conjuncts: [QueryExpression]) -> [FieldPath: Terms]? {
        var terms: [FieldPath: Terms] = [:]
        func isPlain(_ operand: QueryOperand) -> Bool {
            switch operand {
            case .argument: true
            case let .value(value): !value.isNull && value.arrayValue == nil
            case .field: false
            }
        }
        func add(_ path: FieldPath, _ comparison: ComparisonOperator, _ operand: QueryOperand) -> Bool {
            guard isPlain(operand) else { return false }
            var term = terms[path] ?? Terms()
            switch comparison {
            case .notEqual:
                return true   // the planner leaves it to the evaluator
            case .equal:
                guard term.equal == nil else { return false }
                term.equal = operand
            case .greater, .greaterOrEqual:
                guard term.lower == nil else { return false }
                term.lower = (operand, comparison == .greaterOrEqual)
            case .less, .lessOrEqual:
                guard term.upper == nil else { return false }
                term.upper = (operand, comparison == .lessOrEqual)
            }
            terms[path] = term
            return true
        }
        for conjunct in conjuncts {
            guard let fieldTerms = QueryPlanner.fieldTerms(of: conjunct),
                  fieldTerms.allSatisfy({ add($0.path, $0.comparison, $0.operand) }) else { return nil }
        }
        return terms
    }
}
