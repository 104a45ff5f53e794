// PredicateNode: the tree of an ObjectPredicate, conditions (QueryCondition) joined by and, or
// and not, with its class erased: the predicate's root class is in its conditions' key paths,
// so the tree needs none, and the query's code that tests, splits and describes it runs
// without generic metadata.

/// A predicate's conditions, joined.
internal indirect enum PredicateNode {
    case condition(QueryCondition)
    case and(PredicateNode, PredicateNode)
    case or(PredicateNode, PredicateNode)
    case not(PredicateNode)

    /// Whether `object` (of the predicate's class, with its content) passes.
    func matches(_ object: StoredObject) -> Bool {
        switch self {
        case let .condition(condition): return condition.matches(condition.term.key(of: object))
        case let .and(left, right): return left.matches(object) && right.matches(object)
        case let .or(left, right): return left.matches(object) || right.matches(object)
        case let .not(inner): return !inner.matches(object)
        }
    }

    /// The conditions every passing object meets (the terms of a top-level `&&`).
    var conjuncts: [QueryCondition] {
        // One condition, the rule, without the walk.
        if case let .condition(condition) = self { return [condition] }
        var found: [QueryCondition] = []
        collectConjuncts(into: &found)
        return found
    }

    private func collectConjuncts(into found: inout [QueryCondition]) {
        switch self {
        case let .condition(condition): found.append(condition)
        case let .and(left, right):
            left.collectConjuncts(into: &found)
            right.collectConjuncts(into: &found)
        case .or, .not: break
        }
    }

    /// Whether the predicate is exactly the conjunction of its ``conjuncts``.
    var isConjunction: Bool {
        switch self {
        case .condition: return true
        case let .and(left, right): return left.isConjunction && right.isConjunction
        case .or, .not: return false
        }
    }

    /// "seconds > 300 && (title has prefix "So" || rating is nil)".
    var summary: String {
        summary(nested: false)
    }

    private func summary(nested: Bool) -> String {
        switch self {
        case let .condition(condition): return condition.summary
        case let .and(left, right):
            let text = left.summary(nested: true) + " && " + right.summary(nested: true)
            return nested ? "(\(text))" : text
        case let .or(left, right):
            let text = left.summary(nested: true) + " || " + right.summary(nested: true)
            return nested ? "(\(text))" : text
        case let .not(inner): return "!" + inner.summary(nested: true)
        }
    }
}
