// JSONBinary.lookUp: the values at field paths of an encoded document, read without decoding
// it whole, must be exactly what FieldPath.lookup finds in the decoded document (repeated
// keys, canonically equivalent keys, array positions, a stored "__rowid__" member), and damage
// must still be refused.

import Testing
import LarderTestSupport
import Larder
@testable import LarderDocuments

@Suite struct JSONPathLookupTests {
    private static let pathTexts = ["a", "b", "a.b", "a.c", "a.0", "a.1", "a.01", "a.-1", "t", "t.0", "t.2", "t.0.x",
                                    "caf\u{e9}", "__rowid__.x", "n", "a.b.c"]

    /// The paths found by lookUp in `bytes`, next to those FieldPath.lookup finds in the
    /// decoded document (nil: missing).
    private func bothWays(_ bytes: [UInt8], _ texts: [String] = pathTexts) throws -> (lookedUp: [JSON?], decoded: [JSON?]) {
        let paths = texts.compactMap(FieldPath.init)
        let lookup = try #require(JSONBinary.LookupPaths(paths))
        return try bytes.withUnsafeBytes { raw in
            let (values, found) = try JSONBinary.lookUp(lookup, inDocument: raw)
            // (JSON takes a nil literal: the missing are made nil explicitly.)
            let lookedUp: [JSON?] = values.indices.map { found & (1 << UInt64($0)) != 0 ? Optional(values[$0]) : Optional<JSON>.none }
            let document = try JSONBinary.decode(raw, addingRowID: 7)
            return (lookedUp, paths.map { $0.lookup(in: document) })
        }
    }

    /// An object of `members` in order, repeated keys and all.
    private func object(_ members: [(String, JSON)]) -> [UInt8] {
        var bytes: [UInt8] = [JSONBinary.object]
        bytes.appendVarInt(UInt64(members.count))
        for (key, value) in members {
            JSONBinary.appendString(key, to: &bytes)
            JSONBinary.append(value, to: &bytes)
        }
        return bytes
    }

    @Test func randomDocumentsLookUpAsDecoded() throws {
        var generator = SplitMix(seed: 21)
        func value(_ depth: Int) -> JSON {
            switch generator.next() % (depth > 2 ? 4 : 7) {
            case 0: return .int(Int64(generator.next() % 100))
            case 1: return .string("s\(generator.next() % 10)")
            case 2: return .null
            case 3: return .double(1.5)
            case 4: return .array((0 ..< Int(generator.next() % 4)).map { _ in value(depth + 1) })
            default:
                var members: [String: JSON] = [:]
                for _ in 0 ..< Int(generator.next() % 5) { members[["a", "b", "c", "x", "0", "1"].randomElement(using: &generator) ?? "a"] = value(depth + 1) }
                return .object(members)
            }
        }
        for _ in 0 ..< 500 {
            var members: [String: JSON] = [:]
            for key in ["a", "b", "t", "n", "z"] where generator.next() % 3 != 0 { members[key] = value(0) }
            var bytes: [UInt8] = []
            JSONBinary.append(.object(members), to: &bytes)
            let (lookedUp, decoded) = try bothWays(bytes)
            #expect(lookedUp == decoded)
        }
    }

    @Test func theLastOfARepeatedKeyWinsAsInDecoding() throws {
        // The later "a" has no "b": the earlier one's must not be found.
        let bytes = object([("a", ["b": 1, "c": 2]), ("b", "x"), ("a", ["c": 3]), ("b", "y")])
        let (lookedUp, decoded) = try bothWays(bytes)
        #expect(lookedUp == decoded)
        #expect(decoded[0] == ["c": 3] && decoded[1] == "y" && decoded[2] == nil && decoded[3] == 3)
    }

    @Test func keysMatchAsSwiftStringsDo() throws {
        // A decomposed key is the precomposed path's member, as in a dictionary.
        let bytes = object([("cafe\u{301}", "decomposed"), ("a", [10, 20])])
        let (lookedUp, decoded) = try bothWays(bytes)
        #expect(lookedUp == decoded)
        #expect(decoded[12] == "decomposed")
        // Positions are read as Int reads them: "01" is 1, "-1" none.
        #expect(decoded[4] == 10 && decoded[5] == 20 && decoded[6] == 20 && decoded[7] == nil)
    }

    @Test func aStoredRowIDMemberIsReplacedAsInDecoding() throws {
        let bytes = object([("__rowid__", ["x": 5]), ("n", 1)])
        let (lookedUp, decoded) = try bothWays(bytes)
        #expect(lookedUp == decoded)
        #expect(decoded[13] == nil && decoded[14] == 1)
    }

    @Test func damageIsRefused() throws {
        var bytes: [UInt8] = []
        JSONBinary.append(["a": ["b": "text"], "t": [1, 2, 3], "z": .double(2.5)], to: &bytes)
        let path = try #require(FieldPath("a.b"))
        let lookup = try #require(JSONBinary.LookupPaths([path]))
        for length in 0 ..< bytes.count {
            #expect(throws: JSONBinary.DecodingFailure.self) {
                try Array(bytes.prefix(length)).withUnsafeBytes { _ = try JSONBinary.lookUp(lookup, inDocument: $0) }
            }
        }
        #expect(throws: JSONBinary.DecodingFailure.self) {
            try (bytes + [0]).withUnsafeBytes { _ = try JSONBinary.lookUp(lookup, inDocument: $0) }
        }
        // Nesting past the decoder's limit, on a path or off it.
        var deep: [UInt8] = [JSONBinary.object, 1]
        JSONBinary.appendString("z", to: &deep)
        for _ in 0 ... JSONBinary.maximumDepth { deep += [JSONBinary.array, 1] }
        deep.append(JSONBinary.null)
        #expect(throws: JSONBinary.DecodingFailure.self) {
            try deep.withUnsafeBytes { _ = try JSONBinary.lookUp(lookup, inDocument: $0) }
        }
    }
}
