// The JSONBinary fuzz target: a stored document's bytes, as a damaged or hostile file holds
// them. Decoding gives a value or a DecodingFailure; the decode through known key sets
// (ObjectShapes, which point reads and scans use) gives the same value as the plain one; and
// a value decoded encodes to bytes that decode to it again.

import Larder

extension FuzzTarget {
    /// `[mode][bytes]`: mode bit 0 set, the value is read as a stored document (with its
    /// `__rowid__` added).
    package static let jsonBinary = FuzzTarget(name: "jsonBinary", seeds: jsonBinarySeeds) { input throws(FuzzViolation) in
        guard let mode = input.first else { return false }
        let rowID: Int64? = mode & 1 == 0 ? nil : 42
        return try withExactBytes(Array(input.dropFirst())) { bytes throws(FuzzViolation) in
            let plain = try? JSONBinary.decode(bytes, addingRowID: rowID)
            // Shapes that know the seeds' key sets; the input's own are learnt by the first
            // shaped decode and used by the second.
            let shapes = ObjectShapes()
            for seed in jsonBinaryPrimers {
                _ = try? Array(seed.dropFirst()).withUnsafeBytes { try JSONBinary.decode($0, addingRowID: 42, shapes: shapes) }
            }
            for pass in 1 ... 2 {
                let shaped = try? JSONBinary.decode(bytes, addingRowID: rowID, shapes: shapes)
                try FuzzViolation.check(same(plain, shaped), "shaped decode \(pass) gave \(String(describing: shaped)), plain \(String(describing: plain))")
            }
            guard let plain else { return false }
            guard rowID == nil else { return true }
            let again = try? JSONBinary.decode(JSONBinary.encode(plain))
            try FuzzViolation.check(same(plain, again), "\(plain) does not survive encoding")
            return true
        }
    }

    /// The seeds, made once: their key sets are taught to the shapes of every input.
    private static let jsonBinaryPrimers = jsonBinarySeeds()

    /// Whether two decoded values are the same, NaNs included (`==` finds a NaN unequal to itself).
    static func same(_ left: JSON?, _ right: JSON?) -> Bool {
        switch (left, right) {
        case (nil, nil): return true
        case let (.double(a)?, .double(b)?): return a.bitPattern == b.bitPattern
        case let (.array(a)?, .array(b)?): return a.count == b.count && zip(a, b).allSatisfy { same($0, $1) }
        case let (.object(a)?, .object(b)?): return a.count == b.count && a.allSatisfy { key, value in b[key].map { same(value, $0) } ?? false }
        case let (a?, b?): return a == b
        default: return false
        }
    }

    @Sendable private static func jsonBinarySeeds() -> [[UInt8]] {
        let person: JSON = ["name": "Ada", "age": 36, "score": 9.5, "tags": ["math", "poetry"], "active": true,
                            "address": ["country": "UK", "city": nil]]
        let nested: JSON = ["x": ["a": 1, "c": 1], "y": [[1, 2], ["a": -7]]]
        return [[0] + JSONBinary.encode(person), [1] + JSONBinary.encode(person), [1] + JSONBinary.encode(nested),
                [0] + JSONBinary.encode(["é": "日本語", "": .double(-0.0)])]
    }
}
