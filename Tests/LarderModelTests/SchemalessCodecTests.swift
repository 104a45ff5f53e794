// The schemaless decoder and encoder (StoredModelSchema.decodeContent/encodeContent) against the
// classes' own generated code, and damaged records: a typed error, never a trap.

import Foundation
import LarderModel
import LarderTestSupport
import Testing
@testable import Larder

@Suite struct SchemalessCodecTests {
    /// A saved EveryType with every field set, in a store with its classes registered.
    private func savedEveryType(_ store: Store) throws -> EveryType {
        let album = Album()
        album.title = "A"
        let object = EveryType()
        object.flag = true
        object.int8 = -8
        object.uint16 = 65_000
        object.int32 = -7
        object.uint64 = .max
        object.int = -42
        object.float = 0.25
        object.double = 1e300
        object.string = "Café"
        object.data = Data([1, 2])
        object.date = Date(timeIntervalSinceReferenceDate: 86_400)
        object.optionalInt = nil
        object.optionalString = "s"
        object.numbers = [3, -3]
        object.flags = [false]
        object.blobs = [Data([7])]
        object.reference = album
        object.references = [album]
        try store.insert(object)
        try store.saveChanges()
        return object
    }

    @Test(arguments: BackendKind.allCases)
    func theDecoderReadsWhatTheClassWrote(_ backend: BackendKind) throws {
        let directory = ModelStore(backend)
        let store = try directory.open([Album.self, EveryType.self])
        let object = try savedEveryType(store)
        let schema = try #require(store.schema(ofClassNamed: "EveryType"))
        let values = try schema.decodeContent(object.content)
        let albumRowID = try #require(object.reference?.rowID)
        #expect(values["flag"] == .bool(true))
        #expect(values["int8"] == .integer(-8))
        #expect(values["uint8"] == .unsignedInteger(0))
        #expect(values["uint16"] == .unsignedInteger(65_000))
        #expect(values["int32"] == .integer(-7))
        #expect(values["uint64"] == .unsignedInteger(.max))
        #expect(values["int"] == .integer(-42))
        #expect(values["float"] == .double(0.25))
        #expect(values["double"] == .double(1e300))
        #expect(values["string"] == .string("Café"))
        #expect(values["data"] == .data([1, 2]))
        #expect(values["date"] == .date(Date(timeIntervalSinceReferenceDate: 86_400).timeIntervalSince1970))
        #expect(values["optionalInt"] == .null)
        #expect(values["optionalString"] == .string("s"))
        #expect(values["optionalDate"] == .null)
        #expect(values["numbers"] == .array([.integer(3), .integer(-3)]))
        #expect(values["flags"] == .array([.bool(false)]))
        #expect(values["blobs"] == .array([.data([7])]))
        #expect(values["reference"] == .reference(className: "Album", rowID: albumRowID))
        #expect(values["references"] == .array([.reference(className: "Album", rowID: albumRowID)]))
        #expect(values.count == schema.fields.count)
        try store.close()
    }

    @Test(arguments: BackendKind.allCases)
    func theClassReadsWhatTheEncoderWrote(_ backend: BackendKind) throws {
        let directory = ModelStore(backend)
        let store = try directory.open([Album.self, EveryType.self])
        let object = try savedEveryType(store)
        let schema = try #require(store.schema(ofClassNamed: "EveryType"))
        // Encoding the decoded values gives the class's own bytes back.
        let content = try schema.encodeContent(try schema.decodeContent(object.content))
        #expect(content == object.content)
        // And the class reads values written by the encoder alone.
        let written = try schema.encodeContent([
            "string": .string("from a tool"), "uint8": .unsignedInteger(255), "int16": .integer(-300),
            "optionalInt": .integer(9), "date": .date(0), "reference": .reference(className: "Album", rowID: object.reference?.rowID ?? 0),
            "numbers": .array([.unsignedInteger(1)]),
        ])
        let read = EveryType()
        var buffer = DataBuffer(bytes: written)
        try read.readContent(from: &buffer, in: store)
        #expect(read.string == "from a tool" && read.uint8 == 255 && read.int16 == -300 && read.optionalInt == 9)
        #expect(read.date == Date(timeIntervalSince1970: 0))
        #expect(read.reference === object.reference)
        #expect(read.numbers == [1])
        #expect(read.flag == false && read.double == 0)   // left out: defaults
        try store.close()
    }

    @Test func theDecoderSkipsWhatItsSchemaLacks() throws {
        let old = EvolvingV1()
        old.a = "x"
        old.b = 3
        old.c = 1.5
        let newSchema = try #require(EvolvingV2.storedModelSchema)
        let values = try newSchema.decodeContent(old.content)
        #expect(values == ["a": .string("x"), "c": .double(1.5)])
        // A field whose type changed (b read as a String) is skipped, not misread.
        let changed = StoredModelSchema(fields: [StoredField(name: "b", type: .string), StoredField(name: "a", type: .string)])
        #expect(try changed.decodeContent(old.content) == ["a": .string("x")])
    }

    @Test func theEncoderRejectsValuesThatDoNotFit() throws {
        let schema = try #require(EveryType.storedModelSchema)
        #expect(throws: StoredModelError.valueMismatch(field: "uint8", expected: .int(bits: 8, signed: false))) {
            try schema.encodeContent(["uint8": .integer(256)])
        }
        #expect(throws: StoredModelError.valueMismatch(field: "int8", expected: .int(bits: 8, signed: true))) {
            try schema.encodeContent(["int8": .unsignedInteger(200)])
        }
        #expect(throws: StoredModelError.valueMismatch(field: "string", expected: .string)) {
            try schema.encodeContent(["string": .integer(1)])
        }
        #expect(throws: StoredModelError.valueMismatch(field: "string", expected: .string)) {
            try schema.encodeContent(["string": .null])
        }
        #expect(throws: StoredModelError.valueMismatch(field: "references", expected: .array(.reference(className: "Album")))) {
            try schema.encodeContent(["references": .array([.reference(className: "Song", rowID: 1)])])
        }
        #expect(throws: StoredModelError.unknownField("rating")) {
            try schema.encodeContent(["rating": .integer(1)])
        }
        let duplicate = StoredModelSchema(fields: [StoredField(name: "a", type: .bool), StoredField(name: "a", type: .string)])
        #expect(throws: StoredModelError.duplicateField("a")) { try duplicate.decodeContent([]) }
        let nested = StoredModelSchema(fields: [StoredField(name: "a", type: .array(.array(.bool)))])
        #expect(throws: StoredModelError.unsupportedType(field: "a")) { try nested.encodeContent([:]) }
    }

    @Test(arguments: BackendKind.allCases)
    func truncatedAndDamagedRecordsThrowTypedErrors(_ backend: BackendKind) throws {
        let directory = ModelStore(backend)
        let store = try directory.open([Album.self, EveryType.self])
        let content = try savedEveryType(store).content
        let schema = try #require(EveryType.storedModelSchema)
        // Where each field starts: a cut there is a record without the later fields.
        var boundaries: Set<Int> = [0]
        var reader = DataBuffer(bytes: content)
        while let key = try reader.readFieldKey() {
            try reader.skipField(key: key)
            boundaries.insert(reader.readPosition)
        }
        #expect(boundaries.count == schema.fields.count + 1)
        for cut in 0 ..< content.count where !boundaries.contains(cut) {
            let truncated = Array(content[..<cut])
            #expect(throws: DataBufferError.self) { try schema.decodeContent(truncated) }
            var buffer = DataBuffer(bytes: truncated)
            #expect(throws: DataBufferError.self) { try EveryType().readContent(from: &buffer, in: store) }
        }
        // A sequence whose byte count says more than its elements fill.
        var damaged = DataBuffer()
        damaged.writeFieldKey(StoredFieldWire.sequence.key(forTag: StoredField.tag(forName: "numbers")))
        damaged.bytes += [10, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0]   // 10 bytes claimed, 9 used
        #expect(throws: DataBufferError.valueOutOfRange(offset: 4)) { try schema.decodeContent(damaged.bytes) }
        var buffer = damaged
        #expect(throws: DataBufferError.valueOutOfRange(offset: 4)) { try EveryType().readContent(from: &buffer, in: store) }
        // A Bool that is neither 0 nor 1.
        var badBool = DataBuffer()
        badBool.writeFieldKey(StoredFieldWire.byte.key(forTag: StoredField.tag(forName: "flag")))
        badBool.write(UInt8(2))
        #expect(throws: DataBufferError.invalidBoolean(offset: 4, byte: 2)) { try schema.decodeContent(badBool.bytes) }
        try store.close()
    }

    @Test(arguments: BackendKind.allCases)
    func mutatedRecordsNeverTrap(_ backend: BackendKind) throws {
        let directory = ModelStore(backend)
        let store = try directory.open([Album.self, EveryType.self])
        let content = try savedEveryType(store).content
        let schema = try #require(EveryType.storedModelSchema)
        var random = SplitMix(seed: 25)
        var outcomes = (decoded: 0, failed: 0)
        for _ in 0 ..< 3_000 {
            var bytes = content
            for _ in 0 ... random.next() % 3 {
                bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: random.next())
            }
            let decoded = (try? schema.decodeContent(bytes)) != nil
            var buffer = DataBuffer(bytes: bytes)
            let read = (try? EveryType().readContent(from: &buffer, in: store)) != nil
            // The class and the schemaless decoder accept and refuse the same bytes, except
            // that the class also refuses a reference it cannot resolve.
            #expect(decoded || !read)
            if decoded { outcomes.decoded += 1 } else { outcomes.failed += 1 }
        }
        #expect(outcomes.decoded > 0 && outcomes.failed > 0)
        try store.close()
    }
}
