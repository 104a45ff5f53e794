// The JSON text fuzz target: JSON text decoded into a `JSON` value (Foundation's parser, then
// JSON's Decodable conformance), as an application decodes what it receives. It decodes or
// throws; a value decoded stores (JSONBinary) and reads back the same.

import Foundation
import Larder

extension FuzzTarget {
    /// The input's bytes as JSON text.
    package static let jsonText = FuzzTarget(name: "jsonText", seeds: jsonTextSeeds) { input throws(FuzzViolation) in
        guard let value = try? JSONDecoder().decode(JSON.self, from: Data(input)) else { return false }
        _ = value.description
        // JSONBinary refuses values deeper than its limit.
        guard !value.nestsDeeper(than: JSONBinary.maximumDepth - 1) else { return true }
        let again = try? JSONBinary.decode(JSONBinary.encode(value))
        try FuzzViolation.check(same(value, again), "\(value) does not survive storing")
        return true
    }

    @Sendable private static func jsonTextSeeds() -> [[UInt8]] {
        [#"{"name":"Ada","age":36,"tags":["math","poetry"],"address":{"country":"UK","city":null}}"#,
         #"[1, -2.5e3, true, false, null, "\u00e9\n", {}, []]"#, #""日本語""#, "9223372036854775807"].map { Array($0.utf8) }
    }
}
