// `larder verify`: exit status 0 only for a healthy store, the problems of a damaged one, a
// progress bar on a terminal and none in a pipe.

import Foundation
import Testing
import Larder

@Suite struct VerifyCommandTests {
    @Test func aHealthyStoreExitsWithZero() throws {
        let store = TestStore()
        try store.makeLibrary(songs: 40)
        let run = try Tool.run(["verify", store.path, "--json"])
        #expect(run.status == 0, "\(run.error)")
        let summary = try run.json()
        #expect(summary["healthy"] as? Bool == true)
        #expect(summary["problems"] as? [String] == [])
        let classes = try #require(summary["classes"] as? [[String: Any]])
        #expect(classes.map { $0["name"] as? String } == ["Playlist", "Song"])
        #expect(classes.map { $0["records"] as? Int } == [4, 40])
        #expect(summary["namedBuffers"] as? Int == 1)

        let table = try Tool.run(["verify", store.path])
        #expect(table.status == 0)
        #expect(table.output.hasSuffix("\(store.path): healthy\n"))
        // Piped: no progress bar, no carriage return.
        #expect(table.error.isEmpty)
    }

    @Test func aDamagedStoreExitsWithOneAndNamesTheDamage() throws {
        let store = TestStore()
        try store.makeLibrary(songs: 30)
        try Damage.flip(Array("Song 17".utf8), in: store.file("Song.tch"))
        let run = try Tool.run(["verify", store.path])
        #expect(run.status == 1, "\(run.output) \(run.error)")
        #expect(run.output.contains("problem"))
        #expect(run.output.contains("Song 0: damaged record"), "the first page (rowIDs 0-31) is damaged: \(run.output)")

        let json = try Tool.run(["verify", store.path, "--json"])
        #expect(json.status == 1)
        #expect(try json.json()["healthy"] as? Bool == false)
        #expect((try json.json()["problems"] as? [String])?.contains("Song 0: damaged record") == true)

        // Reading the damaged class fails with a clear message and the damage status.
        let dump = try Tool.run(["dump", store.path, "--class", "Song"])
        #expect(dump.status == 65)
        #expect(dump.error.contains("is damaged"), "\(dump.error)")
        #expect(dump.error.contains("larder verify"))
    }

    @Test func aDocumentStoreIsCheckedDocumentByDocument() throws {
        let store = TestStore()
        try store.makePeople()
        let healthy = try Tool.run(["verify", store.path, "--json"])
        #expect(healthy.status == 0, "\(healthy.error)")
        let collections = try #require(try healthy.json()["collections"] as? [[String: Any]])
        #expect(collections.first?["documents"] as? Int == 4)
        #expect(collections.first?["indexes"] as? Int == 2)

        try Damage.flip(Array("grace@example.com".utf8), in: store.file("people.tch"))
        let damaged = try Tool.run(["verify", store.path])
        #expect(damaged.status == 1, "\(damaged.output)")
        #expect(damaged.output.contains("collection people:"))
    }

    @Test func aTerminalGetsAProgressBar() throws {
        let store = TestStore()
        try store.makeLibrary(songs: 100)
        guard let run = try Tool.runOnTerminal(["verify", store.path]) else { return }
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("verifying ["), "\(run.output)")
        #expect(run.output.contains("\r"))
        #expect(run.output.contains("healthy"))

        let quiet = try #require(try Tool.runOnTerminal(["verify", store.path, "--no-progress"]))
        #expect(!quiet.output.contains("verifying ["))
    }
}

/// Damage done to a store's file behind Larder's back, as a disk or a stray program could.
enum Damage {
    /// Flips a byte of every occurrence of `pattern` in the file at `path`; the pattern must
    /// occur.
    static func flip(_ pattern: [UInt8], in path: String) throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var found = 0
        var start = 0
        while start + pattern.count <= bytes.count {
            if bytes[start ..< start + pattern.count].elementsEqual(pattern) {
                bytes[start + pattern.count - 1] ^= 0x55
                found += 1
            }
            start += 1
        }
        try #require(found > 0, "the pattern is not in \(path)")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }
}
