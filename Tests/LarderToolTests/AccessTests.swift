// Opening a store from the shell: encrypted stores and their passphrases (from the environment,
// never the command line), stores held by another process, and paths that are not stores.

import Foundation
import Testing
import Larder
import LarderDocuments

@Suite struct PassphraseTests {
    @Test func anEncryptedStoreOpensWithItsPassphraseOnly() throws {
        let store = TestStore()
        try store.makeLibrary(songs: 10, passphrase: "right horse")
        let right = try Tool.run(["info", store.path, "--json"], environment: ["LARDER_PASSPHRASE": "right horse"])
        #expect(right.status == 0, "\(right.error)")
        #expect(try right.json()["encrypted"] as? Bool == true)
        #expect((try right.json()["classes"] as? [[String: Any]])?.map { $0["records"] as? Int } == [1, 10])

        let wrong = try Tool.run(["info", store.path], environment: ["LARDER_PASSPHRASE": "wrong horse"])
        #expect(wrong.status == 77)
        #expect(wrong.error == "larder: wrong passphrase for \(store.path)\n")
        #expect(wrong.output.isEmpty)

        // No variable and no terminal to ask on.
        let none = try Tool.run(["verify", store.path])
        #expect(none.status == 77)
        #expect(none.error.contains("set LARDER_PASSPHRASE"), "\(none.error)")

        let empty = try Tool.run(["info", store.path], environment: ["LARDER_PASSPHRASE": ""])
        #expect(empty.status == 77)

        let dump = try Tool.run(["dump", store.path, "--class", "Song", "--rowid", "1"], environment: ["LARDER_PASSPHRASE": "right horse"])
        #expect(dump.output.hasPrefix("Song 1  version 1  11 bytes\n"), "decrypted: \(dump.output) \(dump.error)")
    }

    @Test func aPlaintextStoreIsNeverGivenTheKeyInTheEnvironment() throws {
        let store = TestStore()
        try store.makeLibrary(songs: 5)
        for command in [["info", store.path], ["verify", store.path], ["compact", store.path]] {
            let run = try Tool.run(command, environment: ["LARDER_PASSPHRASE": "unused"])
            #expect(run.status == 0, "\(command): \(run.error)")
        }
        let info = try Tool.run(["info", store.path, "--json"])
        #expect(try info.json()["encrypted"] as? Bool == false)
    }

    @Test func rekeyChangesThePassphraseAndDecryptRemovesIt() throws {
        let store = TestStore()
        try store.makeLibrary(songs: 20, passphrase: "old")
        let rekey = try Tool.run(["rekey", store.path], environment: ["LARDER_PASSPHRASE": "old", "LARDER_NEW_PASSPHRASE": "new"])
        #expect(rekey.status == 0, "\(rekey.error)")
        #expect(rekey.output == "\(store.path) is encrypted under the new passphrase\n")
        #expect(try Tool.run(["info", store.path], environment: ["LARDER_PASSPHRASE": "old"]).status == 77)
        #expect(try Tool.run(["verify", store.path], environment: ["LARDER_PASSPHRASE": "new"]).status == 0)
        do {
            let objects = try Store(path: store.path, configuration: .init(encryptionKey: "new"))
            try objects.register(Song.self)
            try objects.register(Playlist.self)
            #expect(try objects.allObjects(of: Song.self).map(\.title) == (1 ... 20).map { "Song \($0)" })
            // The index on seconds, resealed without the class registered, still serves queries.
            #expect(try objects.verify().isHealthy)
            #expect(try objects.count(of: Song.self, where: \.seconds > 15) == 5)
            try objects.close()
        }

        // The new passphrase is required: without it (and no terminal) nothing changes.
        let noNew = try Tool.run(["rekey", store.path], environment: ["LARDER_PASSPHRASE": "new"])
        #expect(noNew.status == 77)
        #expect(noNew.error.contains("LARDER_NEW_PASSPHRASE"))

        let decrypt = try Tool.run(["rekey", store.path, "--decrypt"], environment: ["LARDER_PASSPHRASE": "new"])
        #expect(decrypt.status == 0, "\(decrypt.error)")
        let info = try Tool.run(["info", store.path, "--json"])
        #expect(info.status == 0)
        #expect(try info.json()["encrypted"] as? Bool == false)
    }

    @Test func aPlaintextStoreCanBeEncrypted() throws {
        let store = TestStore()
        try store.makeLibrary(songs: 3)
        #expect(try Tool.run(["rekey", store.path], environment: ["LARDER_NEW_PASSPHRASE": "fresh"]).status == 0)
        #expect(try Tool.run(["info", store.path]).status == 77)
        let info = try Tool.run(["info", store.path, "--json"], environment: ["LARDER_PASSPHRASE": "fresh"])
        #expect(try info.json()["encrypted"] as? Bool == true)
    }

    @Test func anEncryptedDocumentStoreToo() throws {
        let store = TestStore()
        try store.makePeople(passphrase: "documents")
        let right = try Tool.run(["find", store.path, "people", "--count"], environment: ["LARDER_PASSPHRASE": "documents"])
        #expect(right.output == "4\n", "\(right.error)")
        let wrong = try Tool.run(["find", store.path, "people", "--count"], environment: ["LARDER_PASSPHRASE": "guess"])
        #expect(wrong.status == 77)
        let info = try Tool.run(["info", store.path, "--json"], environment: ["LARDER_PASSPHRASE": "documents"])
        #expect(try info.json()["kind"] as? String == "documents")
        #expect(try info.json()["encrypted"] as? Bool == true)
    }
}

@Suite struct LockingTests {
    @Test func aStoreOpenForWritingElsewhereIsReportedLocked() throws {
        let store = TestStore()
        try store.makeLibrary(songs: 5)
        // This test's process is the other process: it holds the store for writing.
        let writer = try Store(path: store.path)
        for command in [["info", store.path], ["verify", store.path], ["compact", store.path]] {
            let run = try Tool.run(command)
            #expect(run.status == 75, "\(command)")
            #expect(run.error.hasPrefix("larder: \(store.path) is locked: another process has it open"), "\(run.error)")
        }
        try writer.close()
        #expect(try Tool.run(["info", store.path]).status == 0)
    }

    @Test func readersShareTheStoreButCompactionWaitsForThem() throws {
        let store = TestStore()
        try store.makeLibrary(songs: 5)
        let reader = try Store(path: store.path, configuration: .init(readOnly: true))
        #expect(try Tool.run(["info", store.path]).status == 0)
        #expect(try Tool.run(["verify", store.path]).status == 0)
        #expect(try Tool.run(["dump", store.path, "--class", "Song", "--rowid", "1"]).status == 0)
        #expect(try Tool.run(["compact", store.path]).status == 75)
        try reader.close()
    }

    @Test func waitGivesTheOtherProcessTimeToLetGo() throws {
        let store = TestStore()
        try store.makeLibrary(songs: 5)
        let writer = HeldStore(try Store(path: store.path))
        let release = Thread {
            Thread.sleep(forTimeInterval: 0.5)
            try? writer.store.close()
        }
        release.start()
        let started = Date()
        let run = try Tool.run(["info", store.path, "--wait", "20"])
        #expect(run.status == 0, "\(run.error)")
        #expect(Date().timeIntervalSince(started) >= 0.4)
    }
}

@Suite struct NotAStoreTests {
    @Test func aMissingPathIsNotCreated() throws {
        let store = TestStore()
        for command in [["info", store.path], ["compact", store.path], ["rekey", store.path]] {
            let run = try Tool.run(command, environment: ["LARDER_NEW_PASSPHRASE": "x"])
            #expect(run.status == 66, "\(command)")
            #expect(run.error == "larder: \(store.path) is not a Larder store: no such file or directory\n")
        }
        #expect(!FileManager.default.fileExists(atPath: store.path))
    }

    @Test func aFileOrAnEmptyDirectoryIsNotAStore() throws {
        let store = TestStore()
        try FileManager.default.createDirectory(atPath: store.path, withIntermediateDirectories: true)
        let empty = try Tool.run(["compact", store.path])
        #expect(empty.status == 66)
        #expect(empty.error.contains("has no _store.tch"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.path).isEmpty, "nothing created")

        let file = store.file("notes.txt")
        try Data("hello".utf8).write(to: URL(fileURLWithPath: file))
        let run = try Tool.run(["info", file])
        #expect(run.status == 66)
        #expect(run.error == "larder: \(file) is not a Larder store: not a directory\n")
    }

    @Test func aForeignStoreFileIsReported() throws {
        let store = TestStore()
        try FileManager.default.createDirectory(atPath: store.path, withIntermediateDirectories: true)
        try Data(repeating: 0x42, count: 4_096).write(to: URL(fileURLWithPath: store.file("_store.tch")))
        let run = try Tool.run(["info", store.path])
        #expect(run.status == 65, "\(run.error)")
        #expect(run.error.hasPrefix("larder: \(store.path) is not a Larder store, or is damaged"), "\(run.error)")
    }
}

@Suite struct CompactCommandTests {
    @Test func compactionKeepsEveryObject() throws {
        let store = TestStore()
        try store.makeLibrary(songs: 2_000)
        do {
            let objects = try Store(path: store.path)
            try objects.register(Song.self)
            try objects.register(Playlist.self)
            for playlist in try objects.allObjects(of: Playlist.self).dropFirst() {
                for song in playlist.songs { try objects.delete(song) }
                try objects.delete(playlist)
            }
            try objects.saveChanges()
            try objects.close()
        }
        let run = try Tool.run(["compact", store.path, "--json"])
        #expect(run.status == 0, "\(run.error)")
        let result = try run.json()
        let before = try #require(result["bytesBefore"] as? Int)
        let after = try #require(result["bytesAfter"] as? Int)
        #expect(after < before)
        #expect(try Tool.run(["verify", store.path]).status == 0)
        let info = try Tool.run(["info", store.path, "--json"])
        #expect((try info.json()["classes"] as? [[String: Any]])?.map { $0["records"] as? Int } == [1, 10])
    }
}

@Suite struct HelpTests {
    @Test(arguments: ["info", "verify", "dump", "find", "search", "compact", "rekey", "export", "import"])
    func everyCommandHasHelp(_ command: String) throws {
        let run = try Tool.run([command, "--help"])
        #expect(run.status == 0)
        #expect(run.output.contains("USAGE: larder \(command)"), "\(run.output)")
        #expect(run.output.contains("Example: "))
    }

    @Test func theToolListsItsCommands() throws {
        let run = try Tool.run(["--help"])
        #expect(run.status == 0)
        for command in ["info", "verify", "dump", "find", "search", "compact", "rekey", "export", "import"] {
            #expect(run.output.contains("  \(command) "), "\(command)")
        }
        let wrong = try Tool.run(["info"])
        #expect(wrong.status == 64, "a missing PATH is a usage error")
        #expect(wrong.error.contains("Missing expected argument"))
    }
}

/// A store handed to another thread, which alone uses it from then on (to close it).
private final class HeldStore: @unchecked Sendable {
    let store: Store

    init(_ store: Store) {
        self.store = store
    }
}

@Suite struct PromptTests {
    @Test func aTerminalIsAskedWithoutEcho() throws {
        let store = TestStore()
        try store.makeLibrary(songs: 4, passphrase: "typed secret")
        let prompt = "Passphrase for \(store.path): "
        guard let run = try Tool.runOnTerminal(["info", store.path], answering: [(prompt, "typed secret")]) else { return }
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains(prompt))
        #expect(run.output.contains("encrypted (AES-256-GCM)"))
        #expect(!run.output.contains("typed secret"), "the passphrase was echoed: \(run.output)")
    }

    @Test func rekeyAsksForTheNewPassphraseTwice() throws {
        let store = TestStore()
        try store.makeLibrary(songs: 4)
        let prompt = "New passphrase for \(store.path): "
        guard let differ = try Tool.runOnTerminal(["rekey", store.path], answering: [(prompt, "one"), ("Repeat it: ", "two")]) else { return }
        #expect(differ.status == 77, "\(differ.output)")
        #expect(differ.output.contains("the two new passphrases differ"))
        #expect(try Tool.run(["info", store.path]).status == 0, "still plaintext")

        let same = try #require(try Tool.runOnTerminal(["rekey", store.path], answering: [(prompt, "twice"), ("Repeat it: ", "twice")]))
        #expect(same.status == 0, "\(same.output)")
        #expect(!same.output.contains("twice"))
        #expect(try Tool.run(["info", store.path], environment: ["LARDER_PASSPHRASE": "twice"]).status == 0)
    }
}
