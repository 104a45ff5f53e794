// `larder info` on object and document stores, as a table and as JSON, run as a child process.

import Foundation
import Testing
import Larder
import LarderDocuments

@Suite struct InfoCommandTests {
    @Test func describesAnObjectStoresClassesBuffersAndState() throws {
        let store = TestStore()
        try store.makeLibrary(songs: 30)
        let run = try Tool.run(["info", store.path, "--json"])
        #expect(run.status == 0, "\(run.error)")
        let info = try run.json()
        #expect(info["kind"] as? String == "objects")
        #expect(info["formatVersion"] as? Int == 8)
        #expect(info["encrypted"] as? Bool == false)
        // One save of songs and playlists, one named buffer write.
        #expect(info["changeSequence"] as? Int == 2)
        let classes = try #require(info["classes"] as? [[String: Any]])
        #expect(classes.map { $0["name"] as? String } == ["Playlist", "Song"])
        #expect(classes.map { $0["records"] as? Int } == [3, 30])
        #expect(classes.map { $0["nextRowID"] as? Int } == [4, 31])
        let songIndexes = try #require(classes[1]["indexes"] as? [[String: Any]])
        #expect(songIndexes.map { $0["name"] as? String } == ["seconds"])
        #expect(classes.allSatisfy { ($0["fileBytes"] as? Int ?? 0) > 0 })
        #expect((classes[1]["indexBytes"] as? Int ?? 0) > 0, "Song's index file")
        #expect(classes[0]["indexBytes"] as? Int == 0, "Playlist has no index")
        let buffers = try #require(info["namedBuffers"] as? [[String: Any]])
        #expect(buffers.map { $0["name"] as? String } == ["greeting"])
        // "hello": a varint length and five bytes.
        #expect(buffers.map { $0["bytes"] as? Int } == [6])

        let table = try Tool.run(["info", store.path])
        #expect(table.status == 0)
        #expect(table.output.contains("format   8"))
        #expect(table.output.contains("plaintext"))
        #expect(table.output.contains("last change sequence number  2"))
        let songLine = try #require(table.output.split(separator: "\n").first { $0.hasPrefix("Song ") })
        #expect(songLine.split(separator: " ", omittingEmptySubsequences: true).prefix(4) == ["Song", "30", "0", "31"])
        #expect(table.error.isEmpty)
    }

    @Test func describesADocumentStoresCollectionsAndIndexes() throws {
        let store = TestStore()
        try store.makePeople()
        let run = try Tool.run(["info", store.path, "--json"])
        #expect(run.status == 0, "\(run.error)")
        let info = try run.json()
        #expect(info["kind"] as? String == "documents")
        let collections = try #require(info["collections"] as? [[String: Any]])
        #expect(collections.map { $0["name"] as? String } == ["people"])
        #expect(collections.first?["documents"] as? Int == 4)
        #expect(collections.first?["indexes"] as? [String] == ["[age]", "UNIQUE [email]"])
        #expect(collections.first?["aliases"] as? [String: String] == ["country": "[address.country]"])

        let table = try Tool.run(["info", store.path])
        #expect(table.output.contains("people"))
        #expect(table.output.contains("UNIQUE [email]"))
    }

    @Test func readsAStoreWithoutChangingIt() throws {
        let store = TestStore()
        try store.makeLibrary(songs: 5)
        let before = try FileManager.default.contentsOfDirectory(atPath: store.path).sorted()
        let modified = try FileManager.default.attributesOfItem(atPath: store.file("_store.tch"))[.modificationDate] as? Date
        #expect(try Tool.run(["info", store.path]).status == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.path).sorted() == before)
        #expect(try FileManager.default.attributesOfItem(atPath: store.file("_store.tch"))[.modificationDate] as? Date == modified)
    }
}

@Suite struct MixedStoreTests {
    @Test func objectsAndDocumentsInOneDirectoryAreBothShown() throws {
        let store = TestStore()
        try store.makeLibrary(songs: 3)
        do {
            let documents = try DocumentStore(path: store.path)
            _ = try documents.collection("notes").insert(["text": "hello"])
            try documents.close()
        }
        let run = try Tool.run(["info", store.path, "--json"])
        #expect(run.status == 0, "\(run.error)")
        let info = try run.json()
        #expect(info["kind"] as? String == "objects and documents")
        #expect((info["classes"] as? [[String: Any]])?.map { $0["name"] as? String } == ["Playlist", "Song"])
        #expect((info["collections"] as? [[String: Any]])?.map { $0["documents"] as? Int } == [1])
        #expect(try Tool.run(["verify", store.path]).status == 0)
        let rekey = try Tool.run(["rekey", store.path], environment: ["LARDER_NEW_PASSPHRASE": "x"])
        #expect(rekey.status == 70)
        #expect(rekey.error.contains("holds both objects and documents"))
    }
}
