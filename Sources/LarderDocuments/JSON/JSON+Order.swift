// JSON+Order: the one total order across JSON values that queries, orderBy and indexes share:
// null < false < true < numbers < strings < arrays < objects. Ints and doubles compare
// numerically (exactly, even past 2^53); NaN sorts below every other number; strings compare
// by UTF-8 bytes; arrays element by element; objects by their members sorted by key.

extension JSON {
    /// The rank of the value's type in the total order.
    var typeRank: Int {
        switch self {
        case .null: return 0
        case let .bool(value): return value ? 2 : 1
        case .int, .double: return 3
        case .string: return 4
        case .array: return 5
        case .object: return 6
        }
    }

    /// -1, 0 or 1 as `left` sorts before, equal to, or after `right` in the total order.
    ///
    /// ```swift
    /// JSON.compare(.int(2), .double(2.0))     // 0
    /// JSON.compare(.string("a"), .int(99))    // 1: strings sort after numbers
    /// ```
    public static func compare(_ left: JSON, _ right: JSON) -> Int {
        let leftRank = left.typeRank, rightRank = right.typeRank
        if leftRank != rightRank { return leftRank < rightRank ? -1 : 1 }
        switch (left, right) {
        case let (.int(a), .int(b)): return a < b ? -1 : (a == b ? 0 : 1)
        case let (.double(a), .double(b)): return compareDoubles(a, b)
        case let (.int(a), .double(b)): return compareInt(a, toDouble: b)
        case let (.double(a), .int(b)): return -compareInt(b, toDouble: a)
        case let (.string(a), .string(b)): return compareUTF8(a, b)
        case let (.array(a), .array(b)):
            for (x, y) in zip(a, b) {
                let order = compare(x, y)
                if order != 0 { return order }
            }
            return a.count < b.count ? -1 : (a.count == b.count ? 0 : 1)
        case let (.object(a), .object(b)):
            let sortedA = a.sorted { compareUTF8($0.key, $1.key) < 0 }
            let sortedB = b.sorted { compareUTF8($0.key, $1.key) < 0 }
            for (x, y) in zip(sortedA, sortedB) {
                let keyOrder = compareUTF8(x.key, y.key)
                if keyOrder != 0 { return keyOrder }
                let valueOrder = compare(x.value, y.value)
                if valueOrder != 0 { return valueOrder }
            }
            return a.count < b.count ? -1 : (a.count == b.count ? 0 : 1)
        default: return 0   // null, false, true: equal within their rank
        }
    }

    /// True when the two values are equal in the total order (`2 == 2.0`).
    ///
    /// ```swift
    /// JSON.int(2).isOrderEqual(to: .double(2))   // true
    /// ```
    public func isOrderEqual(to other: JSON) -> Bool {
        JSON.compare(self, other) == 0
    }

    static func compareUTF8(_ a: String, _ b: String) -> Int {
        var left = a.utf8.makeIterator(), right = b.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case let (x?, y?): if x != y { return x < y ? -1 : 1 }
            }
        }
    }

    /// NaN is below every number and equal to itself; -0 equals 0.
    static func compareDoubles(_ a: Double, _ b: Double) -> Int {
        if a.isNaN || b.isNaN { return a.isNaN ? (b.isNaN ? 0 : -1) : 1 }
        return a < b ? -1 : (a == b ? 0 : 1)
    }

    /// Exact comparison of an integer with a double (no rounding of the integer).
    static func compareInt(_ a: Int64, toDouble b: Double) -> Int {
        if b.isNaN { return 1 }
        if b >= 9_223_372_036_854_775_808.0 { return -1 }   // 2^63: above every Int64
        if b < -9_223_372_036_854_775_808.0 { return 1 }
        let whole = b.rounded(.towardZero)
        let integral = Int64(whole)   // in range: checked above
        if a != integral { return a < integral ? -1 : 1 }
        let fraction = b - whole
        return fraction > 0 ? -1 : (fraction < 0 ? 1 : 0)
    }
}
