// The interchange of @StoredModel classes: their objects are exported by named fields (with
// references as $ref) and their schemas with their classes, so that an import into an empty
// store, with no class registered, writes the same records and schemas, and exports the same
// file again; a named field the schema refuses (unknown, of the wrong kind, out of range) is an
// error at its object's position, and the target stays empty.

import Foundation
import LarderModel
import LarderTestSupport
import Testing
@testable import Larder

@Suite struct StoredModelInterchangeTests {
    private let model: [StoredObject.Type] = [Album.self, Song.self, EveryType.self, Note.self]

    /// A store of every kind of field, a reference, a relationship and a hand-written class.
    private func fill(_ store: Store) throws {
        let album = Album()
        album.title = "Kind of Blue"
        album.year = 1959
        let first = Song(title: "So What", seconds: 545)
        first.album = album
        first.tags = ["modal", "jazz"]
        let second = Song(title: "Blue in Green", seconds: 337)
        second.songs = [first]
        let every = EveryType()
        every.flag = true
        every.int8 = -8
        every.uint64 = .max
        every.int = -1
        every.float = 1.5
        every.double = 0.1
        every.string = "déjà vu"
        every.data = Data([0, 1, 254, 255])
        every.date = Date(timeIntervalSince1970: 1_000_000_000.25)
        every.optionalInt = nil
        every.optionalString = "here"
        every.numbers = [1, -2, 3]
        every.flags = [true, false]
        every.blobs = [Data([9]), Data()]
        every.reference = album
        every.references = [album, album]
        let note = Note()
        note.text = "hand-written"
        for object in [album, first, second, every, note] as [StoredObject] { try store.insert(object) }
        try store.saveChanges()
        try store.delete(second)
        try store.saveChanges()
        try store.insert(Song(title: "Freddie Freeloader", seconds: 589))
        try store.saveChanges()
    }

    @Test(arguments: BackendKind.allCases) func namedFieldsAndSchemasRoundTripWithoutTheClasses(_ backend: BackendKind) throws {
        let source = ModelStore(backend)
        let store = try source.open(model)
        try fill(store)
        let directory = NSTemporaryDirectory() + "larder-model-interchange-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = URL(fileURLWithPath: directory + "/first.json")
        try store.exportInterchange(to: first)
        let text = try String(contentsOf: first, encoding: .utf8)
        #expect(text.contains(#""fields":{"title":"So What","seconds":545,"album":{"$ref":{"class":"Album","rowID":1}},"tags":["modal","jazz"],"songs":[]}"#))
        #expect(text.contains(#"{"name":"seconds","tag":\#(StoredField.tag(forName: "seconds")),"type":"UInt32"}"#))
        #expect(text.contains(#"{"name":"references","tag":\#(StoredField.tag(forName: "references")),"type":{"array":{"reference":"Album"}}}"#))
        #expect(text.contains(#""string":"déjà vu","data":{"$data":"AAH+/w=="}"#))
        #expect(text.contains(#""optionalInt":null,"optionalString":"here""#))
        // The hand-written class goes as bytes, and has no schema.
        #expect(text.contains(#"{"class":"Note","rowID":1,"version":1,"bytes":"#))

        // Into an empty store that registers nothing: the records and the schemas arrive.
        let target = ModelStore(backend)
        let copy = try target.open([])
        try copy.importInterchange(from: first)
        #expect(copy.schema(ofClassNamed: "Song") == Song.storedModelSchema)
        #expect(copy.schema(ofClassNamed: "Note") == nil)
        let second = URL(fileURLWithPath: directory + "/second.json")
        try copy.exportInterchange(to: second)
        #expect(try Data(contentsOf: second) == Data(contentsOf: first))
        try copy.close()

        // The classes read the imported records as they were saved.
        let reopened = try target.open(model)
        let songs = try reopened.allObjects(of: Song.self).sorted { $0.rowID < $1.rowID }
        #expect(songs.map(\.title) == ["So What", "Freddie Freeloader"])
        #expect(songs[0].album?.title == "Kind of Blue" && songs[0].tags == ["modal", "jazz"])
        let every = try #require(try reopened.allObjects(of: EveryType.self).first)
        let original = try #require(try store.allObjects(of: EveryType.self).first)
        #expect(every.content == original.content)
        #expect(every.date == original.date && every.uint64 == .max && every.optionalInt == nil)
        #expect(every.references.map(\.rowID) == [1, 1])
        #expect(try reopened.allObjects(of: Note.self).map(\.text) == ["hand-written"])
        #expect(try reopened.verify().isHealthy)
    }

    @Test func aNamedFieldTheSchemaRefusesIsAnErrorAtItsObject() throws {
        let source = ModelStore(.memory)
        let store = try source.open(model)
        try fill(store)
        let directory = NSTemporaryDirectory() + "larder-model-interchange-bad-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let exported = URL(fileURLWithPath: directory + "/good.json")
        try store.exportInterchange(to: exported)
        let text = try String(contentsOf: exported, encoding: .utf8)
        let good = #""title":"So What","seconds":545,"#
        #expect(text.contains(good))
        let line = try #require(text.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains(good) }) + 1
        for (bad, problem) in [(#""title":"So What","seconds":"long","#, "seconds"),
                               (#""title":"So What","seconds":-1,"#, "seconds"),
                               (#""title":"So What","tempo":120,"#, "tempo"),
                               (#""title":7,"seconds":545,"#, "title")] {
            let file = URL(fileURLWithPath: directory + "/bad.json")
            try text.replacingOccurrences(of: good, with: bad).write(to: file, atomically: true, encoding: .utf8)
            let target = try ModelStore(.memory).open([])
            do {
                try target.importInterchange(from: file)
                Issue.record("\(bad) was imported")
            } catch let error as InterchangeError {
                guard case let .invalidStructure(reason, position) = error else {
                    Issue.record("\(bad): \(error)")
                    continue
                }
                #expect(reason.contains(problem), "\(reason)")
                #expect(position.line == line)
            }
            #expect(try target.registryEntries().isEmpty)
            #expect(target.schema(ofClassNamed: "Song") == nil)
        }
    }

    @Test func aSchemaInTheFileIsCheckedBeforeAnythingIsWritten() throws {
        let source = ModelStore(.memory)
        let store = try source.open(model)
        try fill(store)
        let directory = NSTemporaryDirectory() + "larder-model-interchange-schema-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let exported = URL(fileURLWithPath: directory + "/good.json")
        try store.exportInterchange(to: exported)
        let text = try String(contentsOf: exported, encoding: .utf8)
        let secondsTag = StoredField.tag(forName: "seconds")
        let titleTag = StoredField.tag(forName: "title")
        for (good, bad) in [(#""type":"UInt32""#, #""type":"UInt33""#),
                            (#"{"name":"seconds","tag":\#(secondsTag)"#, #"{"name":"seconds","tag":\#(titleTag)"#),
                            (#""type":{"array":{"reference":"Album"}}"#, #""type":{"array":{"optional":"Int64"}}"#)] {
            #expect(text.contains(good))
            let file = URL(fileURLWithPath: directory + "/bad.json")
            try text.replacingOccurrences(of: good, with: bad).write(to: file, atomically: true, encoding: .utf8)
            let target = try ModelStore(.memory).open([])
            #expect(throws: InterchangeError.self, "\(bad)") { try target.importInterchange(from: file) }
            #expect(try target.registryEntries().isEmpty)
        }
    }
}
