// A hand-written class can take the @StoredModel record form without the macro: it writes tagged
// fields itself (DataBuffer's writeField, keys from StoredFieldWire and StoredField.tag) and
// declares its storedModelSchema. The store then records the schema, the interchange exchanges
// its objects by named fields, and an import with no class registered writes the same records.

import Foundation
import LarderTestSupport
import Testing
@testable import Larder

/// A note written by hand in the tagged form: text, then stars.
final class TaggedNote: StoredObject {
    @Stored var text = ""
    @Stored var stars: Int32 = 0

    private static let textKey = StoredFieldWire.bytes.key(forTag: StoredField.tag(forName: "text"))
    private static let starsKey = StoredFieldWire.fixed32.key(forTag: StoredField.tag(forName: "stars"))

    override class var storedModelSchema: StoredModelSchema? {
        StoredModelSchema(fields: [StoredField(name: "text", type: .string),
                                   StoredField(name: "stars", type: .int(bits: 32, signed: true))])
    }

    override func writeContent(to buffer: inout DataBuffer) {
        buffer.writeField(Self.textKey, text)
        buffer.writeField(Self.starsKey, stars)
    }

    override func readContent(from buffer: inout DataBuffer, in store: Store) throws {
        while let key = try buffer.readFieldKey() {
            switch key {
            case Self.textKey: text = try buffer.readString()
            case Self.starsKey: stars = try buffer.readInt32()
            default: try buffer.skipField(key: key)
            }
        }
    }
}

@Suite struct HandWrittenSchemaTests {
    @Test(arguments: BackendKind.allCases) func aHandWrittenTaggedClassIsExchangedByNamedFields(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory("hand-written-schema", backend: backend)
        let store = try directory.openStore([TaggedNote.self])
        for (text, stars) in [("first", Int32(3)), ("second", -1)] {
            let note = TaggedNote()
            note.text = text
            note.stars = stars
            try store.insert(note)
        }
        try store.saveChanges()
        #expect(store.schema(ofClassNamed: "TaggedNote") == TaggedNote.storedModelSchema)

        let files = NSTemporaryDirectory() + "larder-hand-written-schema-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: files, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: files) }
        let first = URL(fileURLWithPath: files + "/first.json")
        try store.exportInterchange(to: first)
        let text = try String(contentsOf: first, encoding: .utf8)
        #expect(text.contains(#"{"class":"TaggedNote","rowID":2,"version":1,"fields":{"text":"second","stars":-1}}"#))

        let target = TemporaryDirectory("hand-written-schema-copy", backend: backend)
        let copy = try target.openStore([])
        try copy.importInterchange(from: first)
        let second = URL(fileURLWithPath: files + "/second.json")
        try copy.exportInterchange(to: second)
        #expect(try Data(contentsOf: second) == Data(contentsOf: first))
        try copy.close()
        let reopened = try target.openStore([TaggedNote.self])
        #expect(try reopened.allObjects(of: TaggedNote.self).sorted { $0.rowID < $1.rowID }.map { "\($0.text) \($0.stars)" }
                    == ["first 3", "second -1"])
    }
}
