// JSON+Nesting: whether a value nests more deeply than Larder allows (MongoDB's limit):
// encoders, comparisons and index keys recurse, and must not exhaust the stack on any input.

extension JSON {
    /// The deepest nesting a stored value may have (the binary decoder refuses deeper).
    static let maximumNesting = 100

    /// True when arrays and objects nest more than `limit` deep (a scalar nests 0 deep). The
    /// check recurses at most `limit + 1` levels, whatever the value, and allocates nothing.
    func nestsDeeper(than limit: Int) -> Bool {
        switch self {
        case let .array(elements):
            return limit == 0 || elements.contains { $0.nestsDeeper(than: limit - 1) }
        case let .object(members):
            return limit == 0 || members.values.contains { $0.nestsDeeper(than: limit - 1) }
        default:
            return false
        }
    }
}
