// JSON+Nesting: how deeply a value nests, measured without recursion, and the limit Larder
// keeps to (MongoDB's): encoders, comparisons and index keys recurse, and must not exhaust
// the stack on any input.

extension JSON {
    /// The deepest nesting a stored value may have (the binary decoder refuses deeper).
    static let maximumNesting = 100

    /// How deeply arrays and objects nest (0 for a scalar), measured without recursion so
    /// that any value can be measured.
    var nestingDepth: Int {
        var deepest = 0
        var pending: [(value: JSON, depth: Int)] = [(self, 0)]
        while let (value, depth) = pending.popLast() {
            deepest = max(deepest, depth)
            switch value {
            case let .array(elements): pending += elements.map { ($0, depth + 1) }
            case let .object(members): pending += members.values.map { ($0, depth + 1) }
            default: break
            }
        }
        return deepest
    }
}
