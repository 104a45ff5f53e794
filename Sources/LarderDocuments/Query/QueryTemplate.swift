// QueryTemplate: a WHERE clause parsed once, its `?` placeholders still unbound; binding the
// arguments of one run gives the expression the planner and the evaluator use. Prepared
// queries keep one, and a collection caches those of the texts it ran lately.

/// A parsed WHERE clause waiting for its arguments.
struct QueryTemplate: Sendable {
    /// The query text, for errors.
    let text: String
    /// The expression, each placeholder an ``QueryOperand/argument(_:)`` numbered from 0.
    let expression: QueryExpression
    /// Where each placeholder is in `text`, in argument order.
    let placeholderPositions: [Int]

    /// The expression with `arguments` bound to its placeholders in order; a `QueryError`
    /// when their counts differ.
    func bound(to arguments: [JSON]) throws -> QueryExpression {
        if arguments.count < placeholderPositions.count {
            throw QueryError(query: text, position: placeholderPositions[arguments.count],
                             message: "placeholder \(arguments.count + 1) has no argument (\(arguments.count) given)")
        }
        guard arguments.count == placeholderPositions.count else {
            throw QueryError(query: text, position: text.count, message:
                "the query has \(placeholderPositions.count) placeholders but \(arguments.count) arguments were given")
        }
        return placeholderPositions.isEmpty ? expression : Self.bind(expression, arguments)
    }

    private static func bind(_ expression: QueryExpression, _ arguments: [JSON]) -> QueryExpression {
        func operand(_ operand: QueryOperand) -> QueryOperand {
            if case let .argument(position) = operand { return .value(arguments[position]) }
            return operand
        }
        switch expression {
        case let .comparison(left, comparison, right): return .comparison(operand(left), comparison, operand(right))
        case let .isNull(subject, negated): return .isNull(operand(subject), negated: negated)
        case let .inList(subject, list, negated): return .inList(operand(subject), list.map(operand), negated: negated)
        case let .between(subject, low, high, negated):
            return .between(operand(subject), operand(low), operand(high), negated: negated)
        case let .like(subject, pattern, negated): return .like(operand(subject), operand(pattern), negated: negated)
        case let .contains(subject, element, negated): return .contains(operand(subject), operand(element), negated: negated)
        case let .and(parts): return .and(parts.map { bind($0, arguments) })
        case let .or(parts): return .or(parts.map { bind($0, arguments) })
        case let .not(inner): return .not(bind(inner, arguments))
        }
    }
}
