// QueryEvaluator: what a QueryExpression means for one document. Comparisons use the total
// order; an ordering comparison (< <= > >= BETWEEN) with null on either side is false, as in
// SQL; CONTAINS matches an array holding the value or a scalar equal to it; LIKE is SQL's
// (% and _, ASCII case-insensitive) on strings.

/// Evaluates expressions against documents.
struct QueryEvaluator {
    let defaults: JSON

    func matches(_ expression: QueryExpression, _ document: JSON, rowID: Int64) -> Bool {
        func value(_ operand: QueryOperand) -> JSON {
            switch operand {
            case let .value(value): return value
            case let .field(path): return path.value(in: document, rowID: rowID, defaults: defaults)
            // Queries are bound before they are evaluated (QueryRun): an argument is never met.
            case .argument: return .null
            }
        }
        switch expression {
        case let .comparison(left, comparison, right):
            return Self.compare(value(left), comparison, value(right))
        case let .isNull(operand, negated):
            return value(operand).isNull != negated
        case let .inList(operand, list, negated):
            let subject = value(operand)
            return list.contains { JSON.compare(subject, value($0)) == 0 } != negated
        case let .between(operand, low, high, negated):
            let subject = value(operand)
            return (Self.compare(subject, .greaterOrEqual, value(low)) && Self.compare(subject, .lessOrEqual, value(high))) != negated
        case let .like(operand, pattern, negated):
            guard case let .string(subject) = value(operand), case let .string(pattern) = value(pattern) else { return false }
            return Self.like(Array(subject.unicodeScalars), Array(pattern.unicodeScalars)) != negated
        case let .contains(operand, element, negated):
            return Self.contains(value(operand), value(element)) != negated
        case let .and(parts):
            return parts.allSatisfy { matches($0, document, rowID: rowID) }
        case let .or(parts):
            return parts.contains { matches($0, document, rowID: rowID) }
        case let .not(inner):
            return !matches(inner, document, rowID: rowID)
        }
    }

    static func compare(_ left: JSON, _ comparison: ComparisonOperator, _ right: JSON) -> Bool {
        switch comparison {
        case .equal: return JSON.compare(left, right) == 0
        case .notEqual: return JSON.compare(left, right) != 0
        default:
            if left.isNull || right.isNull { return false }
            let order = JSON.compare(left, right)
            switch comparison {
            case .less: return order < 0
            case .lessOrEqual: return order <= 0
            case .greater: return order > 0
            default: return order >= 0
            }
        }
    }

    static func contains(_ container: JSON, _ element: JSON) -> Bool {
        if case let .array(elements) = container {
            return elements.contains { JSON.compare($0, element) == 0 }
        }
        return !container.isNull && JSON.compare(container, element) == 0
    }

    /// SQL LIKE without ESCAPE: `%` any run, `_` any one character; ASCII letters match
    /// either case.
    static func like(_ subject: [Unicode.Scalar], _ pattern: [Unicode.Scalar]) -> Bool {
        // Iterative matcher with backtracking to the last %: linear in practice, no recursion.
        var s = 0, p = 0
        var star = -1, mark = 0
        while s < subject.count {
            if p < pattern.count && pattern[p] == "%" {
                star = p; mark = s; p += 1
            } else if p < pattern.count && (pattern[p] == "_" || equalIgnoringASCIICase(pattern[p], subject[s])) {
                s += 1; p += 1
            } else if star >= 0 {
                p = star + 1; mark += 1; s = mark
            } else {
                return false
            }
        }
        while p < pattern.count && pattern[p] == "%" { p += 1 }
        return p == pattern.count
    }

    private static func equalIgnoringASCIICase(_ a: Unicode.Scalar, _ b: Unicode.Scalar) -> Bool {
        if a == b { return true }
        guard a.isASCII, b.isASCII else { return false }
        let x = a.value | 0x20, y = b.value | 0x20
        return x == y && x >= 0x61 && x <= 0x7A
    }
}
