// QueryExpression: the syntax tree the parser builds, and the sort keys of an orderBy. A
// QueryTemplate holds one with its `?` placeholders unbound; planning and evaluating see it
// with every argument bound. Evaluating it against a document is QueryEvaluator's job.

/// A side of a predicate: a field of the document, a value, or a placeholder not yet bound.
enum QueryOperand: Equatable, Sendable {
    case field(FieldPath)
    case value(JSON)
    /// The `?` taking the argument at this position; only in a ``QueryTemplate``.
    case argument(Int)
}

/// A comparison operator.
enum ComparisonOperator: String, Equatable, Sendable {
    case equal = "=", notEqual = "!=", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="

    /// The operator with its sides swapped (`5 < [a]` is `[a] > 5`).
    var flipped: ComparisonOperator {
        switch self {
        case .equal, .notEqual: return self
        case .less: return .greater
        case .lessOrEqual: return .greaterOrEqual
        case .greater: return .less
        case .greaterOrEqual: return .lessOrEqual
        }
    }
}

/// A WHERE clause.
indirect enum QueryExpression: Equatable, Sendable {
    case comparison(QueryOperand, ComparisonOperator, QueryOperand)
    case isNull(QueryOperand, negated: Bool)
    case inList(QueryOperand, [QueryOperand], negated: Bool)
    case between(QueryOperand, QueryOperand, QueryOperand, negated: Bool)
    case like(QueryOperand, QueryOperand, negated: Bool)
    case contains(QueryOperand, QueryOperand, negated: Bool)
    case and([QueryExpression])
    case or([QueryExpression])
    case not(QueryExpression)

    /// The conjuncts of a top-level AND (or the expression itself).
    var conjuncts: [QueryExpression] {
        if case let .and(parts) = self { return parts.flatMap(\.conjuncts) }
        return [self]
    }
}

/// One key of an orderBy or an index: a field and its direction.
struct SortKey: Equatable, Sendable {
    var path: FieldPath
    var descending: Bool
}
