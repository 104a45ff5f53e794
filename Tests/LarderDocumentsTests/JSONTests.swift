// JSON values: literals, subscripts, Codable, the total order, and the two encodings (storage
// and index keys) agreeing with it.

import Foundation
import Testing
import Larder
@testable import LarderDocuments
import LarderTestSupport

@Suite struct JSONTests {
    /// One value of each kind, listed in ascending total order.
    static let ascending: [JSON] = [
        .null, false, true, .double(-.infinity), .int(.min), -2.5, -1, 0, 0.5, 1, .double(1.5), 2,
        .int(1 << 53), .int(1 << 53 + 1), .int(.max), .double(.infinity),
        "", "A", "a", "a\u{0}", "a\u{0}b", "ab", "é", [], [nil], [1], [1, 2], [2], ["a"], [:], ["a": 1], ["a": 2], ["a": 2, "b": 0], ["b": 0],
    ]

    @Test func literalsAndSubscriptsReadThroughMissingKeys() {
        var doc: JSON = ["name": "Ada", "age": 36, "tags": ["math", "poetry"], "address": ["country": "UK"], "x": nil, "ok": true, "pi": 3.25]
        #expect(doc["address"]["country"] == "UK")
        #expect(doc["tags"][1] == "poetry")
        #expect(doc["tags"][5] == .null)
        #expect(doc["missing"]["deeper"] == .null)
        #expect(doc["x"].isNull && doc["ok"].boolValue == true && doc["pi"].doubleValue == 3.25)
        #expect(doc["age"].intValue == 36 && JSON.double(4).intValue == 4 && JSON.double(4.5).intValue == nil)
        doc["address"]["city"] = "London"
        #expect(doc["address"] == ["country": "UK", "city": "London"])
        let text: JSON = ["b": 1, "a": [true, nil, "q\"\n"]]
        #expect(text.description == #"{"a":[true,null,"q\"\n"],"b":1}"#)
    }

    @Test func codableRoundTripsEveryKind() throws {
        let value: JSON = ["s": "x", "i": -7, "d": 2.5, "b": false, "n": nil, "a": [1, [2]], "o": ["k": "v"]]
        let data = try JSONEncoder().encode(value)
        #expect(try JSONDecoder().decode(JSON.self, from: data) == value)
        struct User: Codable, Equatable { var name: String; var age: Int }
        let doc = try JSON(encoding: User(name: "Ada", age: 36))
        #expect(doc == ["name": "Ada", "age": 36])
        var withRowID = doc
        withRowID["__rowid__"] = 9
        #expect(try withRowID.decode(as: User.self) == User(name: "Ada", age: 36))
    }

    @Test func theTotalOrderRanksTypesThenValues() {
        for (i, left) in Self.ascending.enumerated() {
            for (j, right) in Self.ascending.enumerated() {
                let expected = i < j ? -1 : (i == j ? 0 : 1)
                #expect(JSON.compare(left, right) == expected, "\(left) vs \(right)")
            }
        }
        #expect(JSON.compare(.int(2), .double(2.0)) == 0)
        #expect(JSON.compare(.double(-0.0), .int(0)) == 0)
        #expect(JSON.compare(.int(1 << 53 + 1), .double(9_007_199_254_740_992.0)) == 1)
        #expect(JSON.compare(.double(.nan), .double(-.infinity)) == -1)
        #expect(JSON.compare(.double(.nan), .double(.nan)) == 0)
        #expect(JSON.compare(.double(.nan), true) == 1)
    }

    @Test func indexKeysSortAsTheTotalOrderAscendingAndDescending() {
        for (i, left) in Self.ascending.enumerated() {
            for (j, right) in Self.ascending.enumerated() {
                let expected = i < j ? -1 : (i == j ? 0 : 1)
                let a = IndexKey.encode(left), b = IndexKey.encode(right)
                #expect(order(a, b) == expected, "\(left) vs \(right)")
                let da = IndexKey.encode(left, descending: true) + [0x00], db = IndexKey.encode(right, descending: true) + [0xFF]
                // Descending reverses the order, and what follows a component never changes it.
                if i != j { #expect(order(da, db) == -expected, "desc \(left) vs \(right)") }
            }
        }
        #expect(IndexKey.encode(.int(2)) == IndexKey.encode(.double(2)))
        var key = IndexKey.encode("x")
        IndexKey.appendRowID(0x0102, to: &key)
        #expect(key.withUnsafeBytes { IndexKey.rowID(in: $0) } == 0x0102)
    }

    @Test func theBinaryEncodingRoundTripsAndRefusesDamage() throws {
        for value in Self.ascending + [["deep": [[["x": [1.25, -3, "é"]]]]]] {
            let bytes = JSONBinary.encode(value)
            let decoded = try JSONBinary.decode(bytes)
            #expect(JSON.compare(decoded, value) == 0 && decoded.typeRank == value.typeRank, "\(value)")
        }
        let bytes = JSONBinary.encode(["name": "Ada", "tags": ["a", "b"], "n": 123_456_789])
        for cut in 0 ..< bytes.count {
            #expect(throws: JSONBinary.DecodingFailure.self) { try JSONBinary.decode(Array(bytes[..<cut])) }
        }
        #expect(throws: JSONBinary.DecodingFailure.self) { try JSONBinary.decode(bytes + [0]) }
        #expect(throws: JSONBinary.DecodingFailure.self) { try JSONBinary.decode([99]) }
        #expect(throws: JSONBinary.DecodingFailure.self) { try JSONBinary.decode(Array(repeating: JSONBinary.array, count: 600) + [1]) }
        // Any byte string decodes or throws, never crashes (a crash ends the run: the seed
        // replays it).
        var generator = SplitMix(seed: 2_000)
        for _ in 0 ..< 2_000 {
            var mutated = bytes
            mutated[Int.random(in: 0 ..< mutated.count, using: &generator)] = UInt8.random(in: 0 ... 255, using: &generator)
            _ = try? JSONBinary.decode(mutated)
        }
    }

    @Test func stringsOfEveryLengthDecodeAnywhereInARecord() throws {
        // Short strings and keys are read as words of the record, from their start or back
        // from their end: each length, first, in the middle and last, ASCII or not, and
        // records too short for either; objects also through known key sets (`shapes`).
        let shapes = ObjectShapes()
        for length in 0 ... 20 {
            for text in [String(repeating: "a", count: length), String(repeating: "é", count: length / 2)] {
                let key = String(repeating: "k", count: length)
                for value: JSON in [.string(text), [key: .string(text)], [.string(text), 7, .string(text)],
                                    ["first": .string(text), "middle": [key: .string(text), "n": 1], key + "z": .string(text)]] {
                    let bytes = JSONBinary.encode(value)
                    #expect(try JSONBinary.decode(bytes) == value, "\(value)")
                    for _ in 0 ..< 2 {
                        let decoded = try bytes.withUnsafeBytes { try JSONBinary.decode($0, addingRowID: nil, shapes: shapes) }
                        #expect(decoded == value, "\(value)")
                    }
                }
            }
        }
        #expect(shapes.hits > 0)
    }

    @Test func decodedArraysTakeBlocksLargerThanGlibcsFastbins() throws {
        for count in 0 ... 6 {
            let elements = (0 ..< count).map { JSON.string("tag\($0)") }
            let decoded = try JSONBinary.decode(JSONBinary.encode(["tags": .array(elements)]))
            guard case let .array(tags) = decoded["tags"] else {
                Issue.record("no array in \(decoded)")
                continue
            }
            #expect(tags == elements)
            if count == 0 {
                #expect(tags.capacity == 0, "an empty array allocates nothing")
            } else {
                // 32 bytes of header, then the elements: more than the 120 bytes that glibc
                // serves from its fastbins.
                #expect(tags.capacity >= DecodedArrayCapacity.smallest)
                #expect(32 + tags.capacity * MemoryLayout<JSON>.stride > 120, "capacity \(tags.capacity)")
            }
        }
    }

    @Test func theExamplesOfFormatMDAreTheBytesWritten() throws {
        let document: JSON = ["age": 36]
        let record = DocumentRecord.seal(document, key: DocumentTable.recordKey(7))
        #expect(record == [0x02, 0x72, 0x54, 0x69, 0xBD, 0x07, 0x01, 0x03, 0x61, 0x67, 0x65, 0x03, 0x48])
        let crc = Array([0, 0, 0, 0, 0, 0, 0, 7, 0x07, 0x01, 0x03, 0x61, 0x67, 0x65, 0x03, 0x48] as [UInt8]).withUnsafeBytes { Checksum.crc32($0) }
        #expect(Array(record[1 ..< 5]) == [UInt8(crc & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 24)])
        var key = IndexKey.encode("Li")
        IndexKey.append(3, descending: true, to: &key)
        IndexKey.appendRowID(7, to: &key)
        #expect(key == [0x30, 0x4C, 0x69, 0x00, 0x01, 0xDF, 0x3F, 0xF7, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                        0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFC, 0, 0, 0, 0, 0, 0, 0, 7])
        // Section 16.6: entries with the value "A" make one run; the 17th is the first restart point.
        func run(rowIDs: ClosedRange<Int64>, restartPoints: Bool) -> (key: [UInt8], value: [UInt8])? {
            var builder = IndexRunBuilder(restartPoints: restartPoints)
            for rowID in rowIDs {
                var entry = IndexKey.encode("A")
                IndexKey.appendRowID(rowID, to: &entry)
                builder.append(entry)
            }
            let runs = builder.finish()
            return runs.count == 1 ? runs[0] : nil
        }
        let two = run(rowIDs: 1 ... 2, restartPoints: true)
        #expect(two?.key == [0x30, 0x41, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 1])
        #expect(two.map { [$0.value[0]] + Array($0.value[5...]) } == [0x53, 0x02, 0x0B, 0x01, 0x02, 0, 0, 0, 0])
        #expect(run(rowIDs: 1 ... 2, restartPoints: false).map { [$0.value[0]] + Array($0.value[5...]) } == [0x52, 0x02, 0x0B, 0x01, 0x02])
        let seventeen = try #require(run(rowIDs: 1 ... 17, restartPoints: true)?.value)
        // 15 entries of 3 bytes after the count, then rowID 17 in full at offset 6 + 45 = 51.
        #expect(seventeen.count == 6 + 15 * 3 + 14 + 4 + 4)
        #expect(Array(seventeen[51 ..< 65]) == [0x00, 0x0C, 0x30, 0x41, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 17])
        #expect(Array(seventeen.suffix(8)) == [51, 0, 0, 0, 1, 0, 0, 0])
    }

    @Test func theFirstDocumentOfACollectionIsAloneInPageZero() throws {
        // Section 16.3's example, read from a store.
        let temporary = try TemporaryStore()
        let c = try temporary.store.collection("people")
        try c.insert(["age": 36])
        let page = try c.withState { state in
            var bytes: [UInt8] = []
            try state.backend.readValue(forKey: [0x50, 0, 0, 0, 0, 0, 0, 0, 0], in: "people") { bytes = $0.map(Array.init) ?? [] }
            return bytes
        }
        let record = DocumentRecord.seal(["age": 36], key: DocumentTable.recordKey(1))
        // The indexed page format, its directory (last slot 1, offsets of 2 bytes, the CRC-32
        // 0xE3AAF8AD of 01 02 00 00 0B 00; no entry for slot 0, slot 1's at offset 11), then
        // slot 1's entry.
        #expect(page == [0x51, 0x01, 0x02, 0xAD, 0xF8, 0xAA, 0xE3, 0x00, 0x00, 0x0B, 0x00, 0x01, 0x0D] + record)
        // RowID 200: page 1, slot 72.
        try c.insertBatch((2 ... 200).map { ["age": .int(Int64($0))] })
        let second = try c.withState { state in
            var bytes: [UInt8] = []
            try state.backend.readValue(forKey: [0x50, 0, 0, 0, 0, 0, 0, 0, 1], in: "people") { bytes = $0.map(Array.init) ?? [] }
            return bytes
        }
        let last = DocumentRecord.seal(["age": 200], key: DocumentTable.recordKey(200))
        // Its directory covers slots 0 ... 72, 2 bytes each, and points at slot 72's entry, the last.
        let lastEntry = second.count - last.count - 2
        #expect(Array(second[lastEntry...]) == [0x48, UInt8(last.count)] + last)
        #expect(Array(second[1 ..< 3]) == [72, 2])
        #expect(Array(second[(7 + 72 * 2) ..< (7 + 73 * 2)]) == [UInt8(lastEntry & 0xFF), UInt8(lastEntry >> 8)])
    }

    private func order(_ a: [UInt8], _ b: [UInt8]) -> Int {
        a.lexicographicallyPrecedes(b) ? -1 : (a == b ? 0 : 1)
    }
}
