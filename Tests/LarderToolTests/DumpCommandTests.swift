// `larder dump`: each record's version and content bytes, exactly as the class wrote them,
// without the class.

import Foundation
import Testing
import Larder

@Suite struct DumpCommandTests {
    /// The content bytes a Song writes, in hex.
    private func hex(of song: Song) -> String {
        var buffer = DataBuffer()
        song.writeContent(to: &buffer)
        return buffer.bytes.map { String(format: "%02x", $0) }.joined()
    }

    @Test func givesEveryRecordsVersionAndBytesInRowIDOrder() throws {
        let store = TestStore()
        let songs = try store.makeLibrary(songs: 40)
        let run = try Tool.run(["dump", store.path, "--class", "Song", "--json"])
        #expect(run.status == 0, "\(run.error)")
        let dump = try run.json()
        #expect(dump["class"] as? String == "Song")
        let records = try #require(dump["records"] as? [[String: Any]])
        #expect(records.map { $0["rowID"] as? Int } == Array(1 ... 40))
        #expect(records.allSatisfy { $0["version"] as? Int == 1 })
        #expect(records.map { $0["hex"] as? String } == songs.map { hex(of: $0) })
        #expect(records.map { $0["size"] as? Int } == songs.map { hex(of: $0).count / 2 })
    }

    @Test func oneRecordByRowIDAsAHexDump() throws {
        let store = TestStore()
        let songs = try store.makeLibrary(songs: 12)
        let run = try Tool.run(["dump", store.path, "--class", "Song", "--rowid", "12"])
        #expect(run.status == 0, "\(run.error)")
        let lines = run.output.split(separator: "\n")
        #expect(lines.first == "Song 12  version 1  12 bytes")
        // "Song 12" is a length byte and 7 characters, then the UInt32 12.
        #expect(lines.dropFirst().first == "  00000000  07 53 6f 6e 67 20 31 32  0c 00 00 00              |.Song 12....|")
        #expect(hex(of: songs[11]) == "07536f6e672031320c000000")
    }

    @Test func aDeletedObjectHasNoRecord() throws {
        let store = TestStore()
        try store.makeLibrary(songs: 5)
        do {
            let objects = try Store(path: store.path)
            try objects.register(Song.self)
            try objects.register(Playlist.self)
            try objects.delete(try #require(try objects.object(of: Song.self, rowID: 3)))
            try objects.saveChanges()
            try objects.close()
        }
        let run = try Tool.run(["dump", store.path, "--class", "Song", "--json"])
        let records = try #require(try run.json()["records"] as? [[String: Any]])
        #expect(records.map { $0["rowID"] as? Int } == [1, 2, 4, 5])

        let missing = try Tool.run(["dump", store.path, "--class", "Song", "--rowid", "3"])
        #expect(missing.status == 66)
        #expect(missing.error == "larder: Song 3 has no record\n")
        #expect(missing.output.isEmpty)
    }

    @Test func anUnknownClassIsAnErrorNamingTheClassesThereAre() throws {
        let store = TestStore()
        try store.makeLibrary(songs: 3)
        let run = try Tool.run(["dump", store.path, "--class", "Album"])
        #expect(run.status == 66)
        #expect(run.error == "larder: the store has no class Album (classes: Playlist, Song)\n")
    }

    @Test func aClassWithNoObjectsDumpsNothing() throws {
        let store = TestStore()
        do {
            let objects = try Store(path: store.path)
            try objects.register(Song.self)
            try objects.close()
        }
        let run = try Tool.run(["dump", store.path, "--class", "Song", "--json"])
        #expect(run.status == 0)
        #expect(try run.json()["records"] as? [Any] != nil)
        #expect((try run.json()["records"] as? [Any])?.isEmpty == true)
    }
}
