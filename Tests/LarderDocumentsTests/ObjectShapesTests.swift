// Decoding with ObjectShapes: objects of a known key set are copied from a template and
// filled by index. Every case must decode to exactly what member-by-member decoding gives,
// and damage must still be refused.

import Testing
import LarderTestSupport
import Larder
@testable import LarderDocuments

@Suite struct ObjectShapesTests {
    /// `bytes` decoded without and with `shapes`, which must agree.
    private func decodeBothWays(_ bytes: [UInt8], rowID: Int64?, shapes: ObjectShapes) throws -> JSON {
        try bytes.withUnsafeBytes { raw in
            let plain = try JSONBinary.decode(raw, addingRowID: rowID)
            let shaped = try JSONBinary.decode(raw, addingRowID: rowID, shapes: shapes)
            #expect(shaped == plain)
            return shaped
        }
    }

    @Test func documentsOfSharedKeySetsDecodeAsMemberByMember() throws {
        var generator = SplitMix(seed: 11)
        let keySets = [["first_name", "last_name", "age", "address", "tags"], ["name", "age"], ["a", "b", "c"],
                       ["name", "city"], ["x"], ["first_name", "last_name", "age", "address", "email"]]
        let shapes = ObjectShapes()
        for round in 0 ..< 2_000 {
            let keys = keySets[Int(generator.next() % UInt64(keySets.count))]
            var members: [String: JSON] = [:]
            // Inserting in a random order, from dictionaries of random capacity, stores the
            // keys in many orders.
            members.reserveCapacity(Int(generator.next() % 40))
            for key in keys.shuffled(using: &generator) {
                switch generator.next() % 5 {
                case 0: members[key] = .int(Int64(round))
                case 1: members[key] = ["country": "FR", "city": .string("c\(round)")]
                case 2: members[key] = [.string("t\(round % 7)"), "u"]
                case 3: members[key] = ["country": .string("c\(round)")]
                default: members[key] = .string("v\(round)")
                }
            }
            let rowID: Int64? = round % 3 == 0 ? nil : Int64(round)
            let decoded = try decodeBothWays(JSONBinary.encode(.object(members)), rowID: rowID, shapes: shapes)
            var expected = members
            if let rowID { expected[FieldPath.rowIDField] = .int(rowID) }
            #expect(decoded == .object(expected))
        }
        // Nearly every object after the first of its key set came from a template.
        #expect(shapes.hits > 2_000)
        #expect(shapes.misses < 100)
    }

    @Test func keySetsThatDifferInOneKeyOrAreSubsetsAreNotConfused() throws {
        let shapes = ObjectShapes()
        let documents: [JSON] = [
            ["a": 1, "b": 2, "c": 3], ["a": 1, "b": 2, "d": 3], ["a": 1, "b": 2], ["a": 1, "b": 2, "c": 3, "d": 4],
            ["b": 5, "c": 6, "a": 7], ["a": ["a": 1, "b": 2, "c": 3]], [:], ["": 1, "a": 2, "b": 3], ["ab": 1, "a": 2, "b": 3],
        ]
        for _ in 0 ..< 3 {
            for document in documents {
                #expect(try decodeBothWays(JSONBinary.encode(document), rowID: nil, shapes: shapes) == document)
                var withRowID = document
                withRowID[FieldPath.rowIDField] = 9
                #expect(try decodeBothWays(JSONBinary.encode(document), rowID: 9, shapes: shapes) == withRowID)
            }
        }
    }

    @Test func aStoredRowIDMemberAndRepeatedKeysDecodeAsMemberByMember() throws {
        let shapes = ObjectShapes()
        // A document holding its own "__rowid__" (the reader's rowID wins), before and after
        // its key set is known.
        for _ in 0 ..< 3 {
            let own = JSONBinary.encode(["__rowid__": 1, "a": 2])
            #expect(try decodeBothWays(own, rowID: 5, shapes: shapes) == ["__rowid__": 5, "a": 2])
            #expect(try decodeBothWays(JSONBinary.encode(["a": 2]), rowID: 5, shapes: shapes) == ["__rowid__": 5, "a": 2])
        }
        // A hand-made object with one key twice (no writer makes one): the last one wins, and
        // one of a known set's keys twice does not fill the set.
        let twice: [UInt8] = [JSONBinary.object, 2, 1, UInt8(ascii: "a"), JSONBinary.int, 2, 1, UInt8(ascii: "a"), JSONBinary.int, 4]
        _ = try decodeBothWays(JSONBinary.encode(["a": 0, "b": 0]), rowID: nil, shapes: shapes)
        for _ in 0 ..< 2 {
            #expect(try decodeBothWays(twice, rowID: nil, shapes: shapes) == ["a": 2])
        }
    }

    @Test func manyKeySetsAndWideObjectsStillDecode() throws {
        let shapes = ObjectShapes()
        // More key sets than are kept, each seen twice, then objects wider than a set holds.
        for round in 0 ..< 2 {
            for set in 0 ..< ObjectShapes.capacity * 3 {
                let document = JSON.object(["k\(set)": .int(Int64(round)), "shared": "s"])
                #expect(try decodeBothWays(JSONBinary.encode(document), rowID: nil, shapes: shapes) == document)
            }
        }
        for width in [ObjectShapes.maximumKeys - 1, ObjectShapes.maximumKeys, ObjectShapes.maximumKeys + 1] {
            let document = JSON.object(Dictionary(uniqueKeysWithValues: (0 ..< width).map { ("key\($0)", JSON.int(Int64($0))) }))
            for rowID in [nil, Int64(3)] {
                _ = try decodeBothWays(JSONBinary.encode(document), rowID: rowID, shapes: shapes)
                _ = try decodeBothWays(JSONBinary.encode(document), rowID: rowID, shapes: shapes)
            }
        }
    }

    @Test func damageIsRefusedOnTheShapedPathToo() throws {
        let shapes = ObjectShapes()
        let document: JSON = ["name": "Ada", "tags": ["a", "b"], "address": ["country": "UK"]]
        let bytes = JSONBinary.encode(document)
        _ = try decodeBothWays(bytes, rowID: 1, shapes: shapes)
        for cut in 0 ..< bytes.count {
            #expect(throws: JSONBinary.DecodingFailure.self) {
                try Array(bytes[..<cut]).withUnsafeBytes { try JSONBinary.decode($0, addingRowID: 1, shapes: shapes) }
            }
        }
        // Every single-byte change either fails or decodes as member-by-member decoding does.
        for position in bytes.indices {
            for delta: UInt8 in [1, 0x80, 0xff] {
                var damaged = bytes
                damaged[position] &+= delta
                let plain = try? damaged.withUnsafeBytes { try JSONBinary.decode($0, addingRowID: 1) }
                let shaped = try? damaged.withUnsafeBytes { try JSONBinary.decode($0, addingRowID: 1, shapes: shapes) }
                #expect(shaped == plain)
            }
        }
    }
}

extension ObjectShapesTests {
    @Test func keySetsLearnedElsewhereAreTakenUpOnce() throws {
        let learner = ObjectShapes()
        let documents: [JSON] = [["name": "a", "age": 1], ["name": "b", "address": ["city": "x", "zip": "1"]]]
        for document in documents {
            _ = try decodeBothWays(JSONBinary.encode(document), rowID: 1, shapes: learner)
        }
        #expect(learner.shapes.count == 3)   // {name, age, __rowid__}, {name, address, __rowid__}, {city, zip}
        let table = ObjectShapes()
        _ = try decodeBothWays(JSONBinary.encode(["name": "c", "age": 3]), rowID: 2, shapes: table)
        table.adopt(learner)
        table.adopt(learner)
        #expect(table.shapes.count == 3)
        // The adopted sets serve the next decodes: no more misses.
        let misses = table.misses
        for document in documents + [["name": "d", "age": 4]] {
            _ = try decodeBothWays(JSONBinary.encode(document), rowID: 5, shapes: table)
        }
        #expect(table.misses == misses)
        #expect(table.hits >= 4)
    }

    @Test(arguments: BackendKind.allCases) func aBigFindTeachesTheCollectionItsKeySets(_ backend: BackendKind) throws {
        let temporary = try TemporaryStore(backend: backend)
        let c = try temporary.store.collection("people")
        try c.setCacheSize(0)
        try c.addIndex("[age]")
        try c.insertBatch((1 ... 5_000).map { ["name": .string("p\($0)"), "age": .int(Int64($0 % 90))] })
        #expect(try c.withState { $0.documents.shapes.shapes.count } == 0)
        // Through the index: the documents are decoded on every core, not with the collection's sets.
        #expect(try c.find(where: "[age] >= ?", arguments: [0]).count == 5_000)
        #expect(try c.withState { $0.documents.shapes.shapes.count } == 1)
        // A small find now decodes from the learned set.
        let misses = try c.withState { $0.documents.shapes.misses }
        #expect(try c.find(where: "[name] = ?", arguments: ["p7"]) == [["name": "p7", "age": 7, "__rowid__": 7]])
        #expect(try c.withState { $0.documents.shapes.misses } == misses)
    }

    /// An object nested `depth` levels as `{"a": {...}, "b": 1}`, 1 innermost.
    private static func nestedAB(_ depth: Int) -> JSON {
        var value: JSON = 1
        for _ in 0 ..< depth { value = ["a": value, "b": 1] }
        return value
    }

    /// A collection holding 62 documents of different key sets, `{"x": {"a": 1, "c": 1}}`,
    /// then `nested`, reopened. A scan then decodes them in that order: the collection's key
    /// sets hold `{a, c}`, which an `{a, b}` object matches up to its second key, and after
    /// 64 objects of new key sets they learn no more (issue 19, defect 3).
    private static func collectionEndingWith(_ nested: JSON, in temporary: TemporaryStore,
                                             name: String) throws -> (DocumentCollection, RowID) {
        let written = try temporary.store.collection(name)
        _ = try written.insertBatch((0 ..< 62).map { i -> JSON in .object(["k\(i)": .int(Int64(i))]) })
        _ = try written.insert(["x": ["a": 1, "c": 1]])
        let rowID = try written.insert(nested)
        let collection = try temporary.reopen().collection(name)
        try collection.setCacheSize(0)
        return (collection, rowID)
    }

    @Test(arguments: BackendKind.allCases) func aNestedDocumentDecodesEachObjectOnce(_ backend: BackendKind) throws {
        let temporary = try TemporaryStore(backend: backend)
        let depth = 16
        let (collection, rowID) = try Self.collectionEndingWith(Self.nestedAB(depth), in: temporary, name: "nested")
        let decodedBefore = try collection.withState { $0.documents.shapes.hits + $0.documents.shapes.misses }
        let read = try #require(try collection.findOne(where: "[b] = ?", arguments: [1]))
        let decoded = try collection.withState { $0.documents.shapes.hits + $0.documents.shapes.misses } - decodedBefore
        #expect(read["a"] == Self.nestedAB(depth - 1) && read["b"] == 1 && read.rowID == rowID)
        // Every object the scan decodes, once: 65 documents and their inner objects.
        #expect(decoded <= 65 + 1 + depth, "\(decoded) objects decoded")
    }

    @Test(arguments: BackendKind.allCases) func aDocumentAtTheNestingLimitReadsInUnderTenMilliseconds(_ backend: BackendKind) throws {
        let temporary = try TemporaryStore(backend: backend)
        let depth = 100   // README: documents nest at most 100 levels
        let (collection, rowID) = try Self.collectionEndingWith(Self.nestedAB(depth), in: temporary, name: "deep")
        // A scan fills the key sets as above; then the best of three reads by rowID is timed.
        #expect(try collection.findOne(where: "[b] = ?", arguments: [1])?.rowID == rowID)
        let clock = ContinuousClock()
        let best = try (0 ..< 3).map { _ in
            try clock.measure { _ = try collection.document(id: rowID) }
        }.min()
        #expect(try #require(best) < .milliseconds(10), "best read took \(String(describing: best))")
    }
}
