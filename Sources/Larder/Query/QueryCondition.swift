// QueryCondition: one test of one key path's value, on order-preserving keys (IndexKeyBytes):
// how an object is tested in a scan, and the index ranges that hold exactly the objects that
// pass it. Comparisons, ranges and prefixes never match nil (or NaN), as in SQL, and a
// comparison with nil or NaN matches nothing (`\.rating < nil`); == and != treat nil (and NaN)
// as a value.

/// A test of one key path's value.
internal struct QueryCondition: @unchecked Sendable {
    enum Test {
        case equal([UInt8])
        case notEqual([UInt8])
        case less([UInt8])
        case lessOrEqual([UInt8])
        case greater([UInt8])
        case greaterOrEqual([UInt8])
        case between([UInt8], [UInt8])
        case within([[UInt8]])
        /// The string tag and the escaped prefix, without the end bytes.
        case hasPrefix([UInt8])
        case isNil
    }

    let term: QueryTerm
    let test: Test
    /// Makes the text explain shows ("seconds > 300"), only when asked: describing values
    /// costs more than planning.
    let describe: () -> String

    var summary: String { describe() }

    /// Whether a value whose key is `key` passes.
    func matches(_ key: [UInt8]) -> Bool {
        switch test {
        case let .equal(value): return key == value
        case let .notEqual(value): return key != value
        case let .less(value): return Self.isValue(key, like: value) && ByteOrder.less(key, value)
        case let .lessOrEqual(value): return Self.isValue(key, like: value) && !ByteOrder.less(value, key)
        case let .greater(value): return Self.isValue(key, like: value) && ByteOrder.less(value, key)
        case let .greaterOrEqual(value): return Self.isValue(key, like: value) && !ByteOrder.less(key, value)
        case let .between(low, high):
            return Self.isValue(key, like: low) && !ByteOrder.less(key, low) && !ByteOrder.less(high, key)
        case let .within(values): return values.contains(key)
        case let .hasPrefix(prefix): return key.starts(with: prefix)
        case .isNil: return key == [IndexKeyBytes.nilTag]
        }
    }

    /// The ranges of keys (first and last, inclusive, as entry bounds: a key followed by any
    /// rowID falls inside) that hold exactly the values that pass, or nil when the test needs
    /// more than a few ranges (`!=`).
    var keyRanges: [(start: [UInt8], end: [UInt8])]? {
        if comparesWithNil { return [] }
        switch test {
        case let .equal(value): return [(value, IndexKeyBytes.through(value))]
        case .notEqual: return nil
        case let .less(value): return [(Self.lowest(like: value), value)]
        case let .lessOrEqual(value): return [(Self.lowest(like: value), IndexKeyBytes.through(value))]
        case let .greater(value): return [(IndexKeyBytes.through(value), Self.highest(like: value))]
        case let .greaterOrEqual(value): return [(value, Self.highest(like: value))]
        case let .between(low, high):
            guard !ByteOrder.less(high, low) else { return [] }
            return [(low, IndexKeyBytes.through(high))]
        case let .within(values):
            return Set(values).sorted(by: ByteOrder.less).map { ($0, IndexKeyBytes.through($0)) }
        case let .hasPrefix(prefix): return [(prefix, IndexKeyBytes.through(prefix))]
        case .isNil:
            let nilKey = [IndexKeyBytes.nilTag]
            return [(nilKey, IndexKeyBytes.through(nilKey))]
        }
    }

    /// Whether the test orders values against nil or NaN (`<`, `between`...), which no value
    /// passes.
    private var comparesWithNil: Bool {
        switch test {
        case let .less(value), let .lessOrEqual(value), let .greater(value), let .greaterOrEqual(value): return Self.isUnordered(value)
        case let .between(low, high): return Self.isUnordered(low) || Self.isUnordered(high)
        default: return false
        }
    }

    /// Whether `key` is nil's or NaN's, which have no place in an order.
    private static func isUnordered(_ key: [UInt8]) -> Bool {
        key.count == 1 && (key[0] == IndexKeyBytes.nilTag || key[0] == IndexKeyBytes.nanTag)
    }

    /// Whether ``equalKeys`` is not nil, without making the keys (planning asks it of every
    /// condition for every index).
    var isEquality: Bool {
        switch test {
        case .equal, .within, .isNil: return true
        default: return false
        }
    }

    /// Whether ``keyRanges`` is not nil, without making the ranges.
    var hasKeyRanges: Bool {
        if case .notEqual = test { return false }
        return true
    }

    /// How many keys ``equalKeys`` holds, without making them for a single value; 0 for a
    /// test that is no equality.
    var equalKeyCount: Int {
        switch test {
        case .equal, .isNil: return 1
        case let .within(values): return Set(values).count
        default: return 0
        }
    }

    /// Whether the test is an equality (one or a few exact keys), which a compound index can
    /// go on after.
    var equalKeys: [[UInt8]]? {
        switch test {
        case let .equal(value): return [value]
        case let .within(values): return Set(values).sorted(by: ByteOrder.less)
        case .isNil: return [[IndexKeyBytes.nilTag]]
        default: return nil
        }
    }

    /// Whether `key` is a value of the type `sample` is a value of (not nil, not NaN; nothing
    /// is when `sample` is nil or NaN).
    private static func isValue(_ key: [UInt8], like sample: [UInt8]) -> Bool {
        guard let tag = key.first, let sampleTag = sample.first, !isUnordered(sample) else { return false }
        return isBool(tag) ? isBool(sampleTag) : tag == sampleTag
    }

    private static func isBool(_ tag: UInt8) -> Bool {
        tag == IndexKeyBytes.falseTag || tag == IndexKeyBytes.trueTag
    }

    /// The lowest key of a value of `sample`'s type.
    private static func lowest(like sample: [UInt8]) -> [UInt8] {
        guard let tag = sample.first else { return IndexKeyBytes.firstValue }
        return [isBool(tag) ? IndexKeyBytes.falseTag : tag]
    }

    /// A bound after every key of a value of `sample`'s type.
    private static func highest(like sample: [UInt8]) -> [UInt8] {
        guard let tag = sample.first else { return IndexKeyBytes.prefixEnd }
        return IndexKeyBytes.through([isBool(tag) ? IndexKeyBytes.trueTag : tag])
    }
}
