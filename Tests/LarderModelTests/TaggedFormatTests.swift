// The examples of docs/FORMAT.md section 21, byte for byte: the document cannot drift from what
// the macro's code and the schema record write.

import Foundation
import LarderModel
import Testing
@testable import Larder

@StoredModel
final class Tag: StoredObject {
    var name = ""
}

@Suite struct TaggedFormatTests {
    private func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined(separator: " ")
    }

    @Test func theSongOfSection21_2() {
        let song = Song(title: "So What", seconds: 562)
        #expect(hex(song.content) == "0d b5 65 98 07 53 6f 20 57 68 61 74 ea cd b6 66 32 02 00 00 "
            + "6c 28 fb 64 00 a7 eb 16 f4 01 00 27 b0 27 bd 01 00")
    }

    @Test func theSchemaRecordOfSection21_3() throws {
        let schema = try #require(Tag.storedModelSchema)
        #expect(schema.fields == [StoredField(name: "name", tag: 0x11a7_37bc, type: .string)])
        #expect(hex(schema.encoded().bytes) == "01 01 04 6e 61 6d 65 bc ef 9c 8d 01 05")
    }

    @Test func keysAreTagAndWire() {
        #expect(StoredFieldWire.bytes.key(forTag: StoredField.tag(forName: "title")) == 0x9865_b50d)
        #expect(StoredFieldWire.allCases.map(\.rawValue) == Array(0 ... 7))
    }

    @Test func longSequencesKeepTheirByteCount() throws {
        // Past 127 bytes the count takes two bytes: the payload is moved once.
        let song = Song()
        song.tags = (0 ..< 50).map { "tag \($0)" }
        let content = song.content
        let read = Song()
        var buffer = DataBuffer(bytes: content)
        try Store(backend: MemoryBackend()).withRegistered([Album.self, Song.self]) { store in
            try read.readContent(from: &buffer, in: store)
        }
        #expect(read.tags == song.tags)
    }
}

extension Store {
    /// Calls `body` with this store once `types` are registered.
    fileprivate func withRegistered(_ types: [StoredObject.Type], _ body: (Store) throws -> Void) throws {
        for type in types { try register(type) }
        try body(self)
    }
}
