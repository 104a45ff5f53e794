// `larder dump` of a @StoredModel class: the registry's field schema decodes each record, so its
// fields print by name (values in their interchange JSON form) without the Swift class; a record
// the schema cannot decode prints why, with its bytes.

import Foundation
import LarderModel
import Testing

@StoredModel
final class ModelAlbum: StoredObject {
    override class var storageName: String { "Album" }
    var title = ""
}

@StoredModel
final class ModelTrack: StoredObject {
    override class var storageName: String { "Track" }
    var title = ""
    var seconds: UInt32 = 0
    var album: ModelAlbum?
    var tags: [String] = []
}

/// A hand-written class stored as "Track" too: its records do not follow the schema.
final class GarbledTrack: StoredObject {
    override class var storageName: String { "Track" }
    override func writeContent(to buffer: inout DataBuffer) { buffer.write(UInt8(9)) }
}

@Suite struct DumpModelTests {
    private func makeStore(_ store: TestStore) throws {
        let objects = try Store(path: store.path, configuration: .init(durability: .noSync))
        try objects.register(ModelAlbum.self)
        try objects.register(ModelTrack.self)
        let album = ModelAlbum()
        album.title = "Kind of Blue"
        let track = ModelTrack()
        track.title = "So What"
        track.seconds = 545
        track.album = album
        track.tags = ["modal", "jazz"]
        try objects.insert(album)
        try objects.insert(track)
        try objects.saveChanges()
        try objects.close()
    }

    @Test func aModelClassPrintsItsFieldsByName() throws {
        let store = TestStore("dump-model")
        try makeStore(store)
        let run = try Tool.run(["dump", store.path, "--class", "Track", "--rowid", "1"])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.output.split(separator: "\n").map(String.init) == [
            "Track 1  version 1  \(run.output.split(separator: " ")[4]) bytes",
            #"  title    "So What""#,
            "  seconds  545",
            #"  album    {"$ref":{"class":"Album","rowID":1}}"#,
            #"  tags     ["modal","jazz"]"#,
        ])

        let json = try Tool.run(["dump", store.path, "--class", "Track", "--json"])
        #expect(json.status == 0, "\(json.error)")
        let records = try #require(try json.json()["records"] as? [[String: Any]])
        let fields = try #require(records.first?["fields"] as? [String: Any])
        #expect(fields["title"] as? String == "So What")
        #expect(fields["seconds"] as? Int == 545)
        #expect(fields["tags"] as? [String] == ["modal", "jazz"])
        let reference = (fields["album"] as? [String: Any])?["$ref"] as? [String: Any]
        #expect(reference?["class"] as? String == "Album" && reference?["rowID"] as? Int == 1)
        #expect(records.first?["hex"] is String)
    }

    @Test func aRecordTheSchemaCannotDecodePrintsWhyAndItsBytes() throws {
        let store = TestStore("dump-model-garbled")
        try makeStore(store)
        // The schema of "Track" stays in the registry; a class that ignores it writes rowID 2.
        let objects = try Store(path: store.path, configuration: .init(durability: .noSync))
        try objects.register(GarbledTrack.self)
        try objects.insert(GarbledTrack())
        try objects.saveChanges()
        try objects.close()
        let run = try Tool.run(["dump", store.path, "--class", "Track", "--rowid", "2"])
        #expect(run.status == 0, "\(run.error)")
        let lines = run.output.split(separator: "\n").map(String.init)
        #expect(lines.first == "Track 2  version 1  1 bytes")
        #expect(lines.dropFirst().first?.hasPrefix("  fields: cannot decode (") == true)
        #expect(lines.last == "  00000000  09                                                |.|")
        let json = try Tool.run(["dump", store.path, "--class", "Track", "--rowid", "2", "--json"])
        let record = try #require((try json.json()["records"] as? [[String: Any]])?.first)
        #expect(record["fieldsError"] is String && record["fields"] == nil && record["hex"] as? String == "09")
    }
}
