// `larder export` and `larder import`: a store's objects (or a collection) written to a file by
// the binary, read back by it into a new store, and exported again byte for byte; encrypted
// sources and targets; bad input reported as FILE:LINE:COLUMN with nothing left behind; targets
// that are not empty, files and parents that do not exist.

import Foundation
import Testing
import Larder
import LarderDocuments

@Suite struct ExportImportCommandTests {
    /// A library of 30 songs in 3 playlists and a named buffer "greeting", plus 5 songs in no
    /// playlist of which rowIDs 31, 33 and 35 are deleted, and a second named buffer "numbers".
    private func makeLibraryWithGaps(_ store: TestStore, passphrase: String? = nil) throws {
        try store.makeLibrary(songs: 30, passphrase: passphrase)
        var configuration = Store.Configuration(durability: .noSync, encryptionKey: passphrase)
        configuration.keyDerivationIterations = 1_000
        let objects = try Store(path: store.path, configuration: configuration)
        try objects.register(Song.self)
        try objects.register(Playlist.self)
        let extra = (31 ... 35).map { Song(title: "Extra \($0)", seconds: UInt32($0 * 100)) }
        for song in extra { try objects.insert(song) }
        try objects.saveChanges()
        for song in extra where song.rowID % 2 == 1 { try objects.delete(song) }
        try objects.saveChanges()
        var numbers = DataBuffer()
        numbers.write(UInt32(7))
        numbers.write(UInt32(11))
        try objects.setDataBuffer(numbers, forName: "numbers")
        try objects.close()
    }

    /// Every song (rowID, title, seconds), the playlists' song rowIDs and the named buffers'
    /// bytes of the object store at `path`.
    private func contents(ofLibraryAt path: String, passphrase: String? = nil) throws -> [String] {
        let objects = try Store(path: path, configuration: .init(durability: .noSync, encryptionKey: passphrase))
        defer { try? objects.close() }
        try objects.register(Song.self)
        try objects.register(Playlist.self)
        var lines = try objects.allObjects(of: Song.self).map { "song \($0.rowID) \($0.title) \($0.seconds)" }
        lines += try objects.allObjects(of: Playlist.self).map { "\($0.title): \($0.songs.map(\.rowID))" }
        for name in try objects.dataBufferNames().sorted() {
            lines.append("buffer \(name) \(try #require(try objects.dataBuffer(forName: name)).bytes)")
        }
        return lines
    }

    private func bytes(_ path: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: path))
    }

    @Test func objectsRoundTripByteForByte() throws {
        let source = TestStore("export-source")
        try makeLibraryWithGaps(source)
        let files = TestStore("export-files")
        try FileManager.default.createDirectory(atPath: files.path, withIntermediateDirectories: false)
        let first = files.file("music.json")
        let export = try Tool.run(["export", source.path, first, "--json"])
        #expect(export.status == 0, "\(export.error)")
        #expect(try export.json()["count"] as? Int == 3 + 30 + 2)
        #expect(export.error.isEmpty)

        let copy = TestStore("import-copy")
        let run = try Tool.run(["import", copy.path, first])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.output == "imported 35 objects into new store \(copy.path)\n")

        let second = files.file("copy.json")
        #expect(try Tool.run(["export", copy.path, second]).status == 0)
        #expect(try bytes(second) == bytes(first))
        #expect(try bytes(first).count > 1_000)

        let expected = try contents(ofLibraryAt: source.path)
        #expect(expected.count == 30 + 2 + 3 + 2)
        #expect(expected.contains("song 34 Extra 34 3400"))
        #expect(!expected.contains { $0.hasPrefix("song 33 ") })
        #expect(try contents(ofLibraryAt: copy.path) == expected)

        // The deleted rowIDs stay deleted: the next insert gets rowID 36, as in the source.
        let objects = try Store(path: copy.path, configuration: .init(durability: .noSync))
        try objects.register(Song.self)
        #expect(try objects.object(of: Song.self, rowID: 33) == nil)
        let next = Song(title: "Next", seconds: 1)
        try objects.insert(next)
        try objects.saveChanges()
        #expect(next.rowID == 36)
        #expect(try objects.count(of: Song.self, where: \.seconds > 3000) == 2)
        try objects.close()
        #expect(try Tool.run(["verify", copy.path]).status == 0)
    }

    @Test func aCollectionRoundTripsWithItsIndexes() throws {
        let source = TestStore("export-people")
        try source.makePeople()
        do {
            let documents = try DocumentStore(path: source.path, configuration: .init(durability: .noSync))
            #expect(try documents.collection("people").delete(where: "[name] = ?", arguments: ["Alan"]) == 1)
            try documents.close()
        }
        let files = TestStore("export-files")
        try FileManager.default.createDirectory(atPath: files.path, withIntermediateDirectories: false)
        let first = files.file("people.jsonl")

        let noCollection = try Tool.run(["export", source.path, first])
        #expect(noCollection.status == 64)
        #expect(noCollection.error == "larder: the store holds documents: give --collection NAME (collections: people)\n")
        let unknown = try Tool.run(["export", source.path, first, "--collection", "pets"])
        #expect(unknown.status == 66)
        #expect(!FileManager.default.fileExists(atPath: first))

        let export = try Tool.run(["export", source.path, first, "--collection", "people"])
        #expect(export.status == 0, "\(export.error)")
        #expect(export.output == "exported 3 documents of people from \(source.path) to \(first)\n")
        #expect(try String(decoding: bytes(first), as: UTF8.self).split(separator: "\n").count == 4)

        let copy = TestStore("import-people")
        let run = try Tool.run(["import", copy.path, first, "--collection", "people", "--json"])
        #expect(run.status == 0, "\(run.error)")
        let result = try run.json()
        #expect(result["count"] as? Int == 3)
        #expect(result["created"] as? Bool == true)
        #expect(result["encrypted"] as? Bool == false)

        let second = files.file("copy.jsonl")
        #expect(try Tool.run(["export", copy.path, second, "--collection", "people"]).status == 0)
        #expect(try bytes(second) == bytes(first))

        let original = try DocumentStore(path: source.path, configuration: .init(durability: .noSync))
        let expected = try original.collection("people").find(orderBy: "[__rowid__]")
        try original.close()
        let documents = try DocumentStore(path: copy.path, configuration: .init(durability: .noSync))
        defer { try? documents.close() }
        let people = try documents.collection("people")
        let found = try people.find(orderBy: "[__rowid__]")
        #expect(found == expected)
        #expect(found.map { $0["name"].stringValue } == ["Ada", "Grace", "Linus"])
        #expect(try people.explain(where: "[age] > ?", arguments: [30]).hasPrefix("index [age]"))
        #expect(try people.find(where: "[age] > ?", arguments: [30]).count == 2)
        #expect(try people.find(where: "country = ?", arguments: ["UK"]).map { $0["name"].stringValue } == ["Ada"])
        #expect(throws: (any Error).self) { try people.insert(["email": "ada@example.com"]) }
        #expect(try people.insert(["name": "New"]) == 5)
    }

    @Test func anEncryptedSourceIntoAnEncryptedTarget() throws {
        let source = TestStore("export-secret")
        try makeLibraryWithGaps(source, passphrase: "old horse")
        let files = TestStore("export-files")
        try FileManager.default.createDirectory(atPath: files.path, withIntermediateDirectories: false)
        let file = files.file("music.json")
        let locked = try Tool.run(["export", source.path, file])
        #expect(locked.status == 77)
        #expect(!FileManager.default.fileExists(atPath: file))
        let export = try Tool.run(["export", source.path, file], environment: ["LARDER_PASSPHRASE": "old horse"])
        #expect(export.status == 0, "\(export.error)")
        // Written decrypted: Song 34's record as the class wrote it, in base64.
        var record = DataBuffer()
        Song(title: "Extra 34", seconds: 3400).writeContent(to: &record)
        #expect(try String(decoding: bytes(file), as: UTF8.self).contains(Data(record.bytes).base64EncodedString()))

        let target = TestStore("import-secret")
        // --encrypt without a new passphrase (and no terminal) creates nothing.
        let noPassphrase = try Tool.run(["import", target.path, file, "--encrypt"])
        #expect(noPassphrase.status == 77)
        #expect(noPassphrase.error.contains("LARDER_NEW_PASSPHRASE"))
        #expect(!FileManager.default.fileExists(atPath: target.path))

        let run = try Tool.run(["import", target.path, file, "--encrypt"], environment: ["LARDER_NEW_PASSPHRASE": "new horse"])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.output == "imported 35 objects into new store \(target.path) (encrypted)\n")
        let info = try Tool.run(["info", target.path, "--json"], environment: ["LARDER_PASSPHRASE": "new horse"])
        #expect(try info.json()["encrypted"] as? Bool == true)
        #expect(try Tool.run(["info", target.path], environment: ["LARDER_PASSPHRASE": "old horse"]).status == 77)
        #expect(try contents(ofLibraryAt: target.path, passphrase: "new horse")
            == contents(ofLibraryAt: source.path, passphrase: "old horse"))
        let again = files.file("again.json")
        #expect(try Tool.run(["export", target.path, again], environment: ["LARDER_PASSPHRASE": "new horse"]).status == 0)
        #expect(try bytes(again) == bytes(file))

        // --encrypt is for a new store only.
        let existing = try Tool.run(["import", target.path, file, "--encrypt"], environment: ["LARDER_NEW_PASSPHRASE": "x"])
        #expect(existing.status == 64)
        #expect(existing.error.contains("--encrypt makes a new store"))

        // An existing empty encrypted store is opened with its passphrase, as by other commands.
        let empty = TestStore("import-empty-secret")
        do {
            var configuration = Store.Configuration(durability: .noSync, encryptionKey: "empty horse")
            configuration.keyDerivationIterations = 1_000
            try Store(path: empty.path, configuration: configuration).close()
        }
        #expect(try Tool.run(["import", empty.path, file]).status == 77)
        let intoEmpty = try Tool.run(["import", empty.path, file, "--json"], environment: ["LARDER_PASSPHRASE": "empty horse"])
        #expect(intoEmpty.status == 0, "\(intoEmpty.error)")
        #expect(try intoEmpty.json()["created"] as? Bool == false)
        #expect(try intoEmpty.json()["encrypted"] as? Bool == true)
        #expect(try contents(ofLibraryAt: empty.path, passphrase: "empty horse")
            == contents(ofLibraryAt: source.path, passphrase: "old horse"))
    }

    @Test func malformedInputGivesItsPositionAndLeavesNothing() throws {
        let files = TestStore("import-files")
        try FileManager.default.createDirectory(atPath: files.path, withIntermediateDirectories: false)
        let bad = files.file("bad.json")
        try Data("{\n  \"format\": \"larder-interchange\",\n  \"version\": 1,\n  \"classes\": [ oops ]\n}\n".utf8)
            .write(to: URL(fileURLWithPath: bad))

        // A new path: nothing is created.
        let target = TestStore("import-bad")
        let run = try Tool.run(["import", target.path, bad])
        #expect(run.status == 65)
        // Line 4, column 16: the "o" of oops.
        #expect(run.error == "larder: \(bad):4:16: malformed JSON: expected a value\n")
        #expect(run.output.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: target.path))

        // An existing empty store keeps no class.
        try Store(path: target.path, configuration: .init(durability: .noSync)).close()
        #expect(try Tool.run(["import", target.path, bad]).status == 65)
        let info = try Tool.run(["info", target.path, "--json"])
        #expect((try info.json()["classes"] as? [Any])?.isEmpty == true, "\(info.output)")

        // A collection's second document is not an object: line 3 of the JSON Lines.
        let source = TestStore("export-people")
        try source.makePeople()
        let good = files.file("people.jsonl")
        #expect(try Tool.run(["export", source.path, good, "--collection", "people"]).status == 0)
        var lines = try String(decoding: bytes(good), as: UTF8.self).split(separator: "\n").map(String.init)
        lines[2] = "[1, 2]"
        let badLines = files.file("bad.jsonl")
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: badLines))
        let people = TestStore("import-bad-people")
        let collection = try Tool.run(["import", people.path, badLines, "--collection", "people"])
        #expect(collection.status == 65)
        #expect(collection.error.hasPrefix("larder: \(badLines):3:1: "), "\(collection.error)")
        #expect(!FileManager.default.fileExists(atPath: people.path))

        // Alan's email made Ada's: the documents break the unique index on [email].
        let text = try String(decoding: bytes(good), as: UTF8.self)
        #expect(text.contains("alan@example.com"))
        let twins = files.file("twins.jsonl")
        try Data(text.replacingOccurrences(of: "alan@example.com", with: "ada@example.com").utf8).write(to: URL(fileURLWithPath: twins))
        let unique = try Tool.run(["import", people.path, twins, "--collection", "people"])
        #expect(unique.status == 65)
        #expect(unique.error == "larder: \(twins):3:1: document 2: unique index [email] already has \"ada@example.com\"\n")
        #expect(!FileManager.default.fileExists(atPath: people.path))

        let badName = try Tool.run(["import", people.path, good, "--collection", "no/slash"])
        #expect(badName.status == 64, "\(badName.error)")
        #expect(!FileManager.default.fileExists(atPath: people.path))
    }

    @Test func encryptAsksForTheNewPassphraseTwiceOnATerminal() throws {
        let source = TestStore("export-source")
        try source.makeLibrary(songs: 5)
        let files = TestStore("export-files")
        try FileManager.default.createDirectory(atPath: files.path, withIntermediateDirectories: false)
        let file = files.file("music.json")
        #expect(try Tool.run(["export", source.path, file]).status == 0)
        let target = TestStore("import-typed")
        let prompt = "Passphrase for the new store \(target.path): "
        guard let differ = try Tool.runOnTerminal(["import", target.path, file, "--encrypt"],
                                                  answering: [(prompt, "one"), ("Repeat it: ", "two")]) else { return }
        #expect(differ.status == 77)
        #expect(differ.output.contains("the two new passphrases differ"), "\(differ.output)")
        #expect(!FileManager.default.fileExists(atPath: target.path))
        let same = try #require(try Tool.runOnTerminal(["import", target.path, file, "--encrypt", "--no-progress"],
                                                       answering: [(prompt, "typed twice"), ("Repeat it: ", "typed twice")]))
        #expect(same.status == 0, "\(same.output)")
        #expect(try contents(ofLibraryAt: target.path, passphrase: "typed twice") == contents(ofLibraryAt: source.path))
    }

    @Test func aProgressBarOnATerminalOnly() throws {
        let source = TestStore("export-source")
        try source.makeLibrary(songs: 20)
        let files = TestStore("export-files")
        try FileManager.default.createDirectory(atPath: files.path, withIntermediateDirectories: false)
        let file = files.file("music.json")
        #expect(try Tool.run(["export", source.path, file]).status == 0)
        let first = TestStore("import-bar")
        guard let run = try Tool.runOnTerminal(["import", first.path, file]) else { return }
        #expect(run.status == 0)
        #expect(run.output.contains("\rimporting ["), "\(run.output)")
        #expect(run.output.contains("imported 22 objects into new store"))
        let second = TestStore("import-no-bar")
        let quiet = try #require(try Tool.runOnTerminal(["import", second.path, file, "--no-progress"]))
        #expect(quiet.status == 0)
        #expect(!quiet.output.contains("importing ["), "\(quiet.output)")
        // Not on a terminal: no bar.
        let third = TestStore("import-pipe")
        let piped = try Tool.run(["import", third.path, file])
        #expect(piped.status == 0)
        #expect(piped.error.isEmpty)
    }

    @Test func aTargetThatIsNotEmptyIsRefused() throws {
        let source = TestStore("export-source")
        try makeLibraryWithGaps(source)
        let files = TestStore("export-files")
        try FileManager.default.createDirectory(atPath: files.path, withIntermediateDirectories: false)
        let file = files.file("music.json")
        #expect(try Tool.run(["export", source.path, file]).status == 0)
        let before = try contents(ofLibraryAt: source.path)

        let run = try Tool.run(["import", source.path, file])
        #expect(run.status == 73)
        #expect(run.error == "larder: cannot import into \(source.path): it is not empty (class Playlist is registered); "
            + "import into a new path or an empty store\n")
        #expect(try contents(ofLibraryAt: source.path) == before)

        // Objects into a document store, a collection into a store that has it.
        let people = TestStore("people")
        try people.makePeople()
        let objects = try Tool.run(["import", people.path, file])
        #expect(objects.status == 73)
        #expect(objects.error.contains("it holds document collections"))
        let jsonl = files.file("people.jsonl")
        #expect(try Tool.run(["export", people.path, jsonl, "--collection", "people"]).status == 0)
        let twice = try Tool.run(["import", people.path, jsonl, "--collection", "people"])
        #expect(twice.status == 73)
        #expect(twice.error.contains("collection people has documents or definitions"), "\(twice.error)")
        // Another collection of the same store is empty: it takes the file.
        let other = try Tool.run(["import", people.path, jsonl, "--collection", "friends", "--json"])
        #expect(other.status == 0, "\(other.error)")
        #expect(try other.json()["count"] as? Int == 4)
        // A collection into an object store.
        #expect(try Tool.run(["import", source.path, jsonl, "--collection", "people"]).status == 73)
    }

    @Test func missingFilesParentsAndDirectoriesThatAreNotStores() throws {
        let target = TestStore("import-missing")
        let missing = try Tool.run(["import", target.path, target.path + "-no-such.json"])
        #expect(missing.status == 66)
        #expect(missing.error == "larder: \(target.path)-no-such.json: no such file\n")
        #expect(!FileManager.default.fileExists(atPath: target.path))

        let files = TestStore("import-files")
        try FileManager.default.createDirectory(atPath: files.path, withIntermediateDirectories: false)
        let directory = try Tool.run(["import", target.path, files.path])
        #expect(directory.status == 66)
        #expect(directory.error == "larder: \(files.path): is a directory\n")
        #expect(!FileManager.default.fileExists(atPath: target.path))
        let file = files.file("empty.json")
        try Data("{}".utf8).write(to: URL(fileURLWithPath: file))
        let orphan = target.path + "/inner/store"
        let noParent = try Tool.run(["import", orphan, file])
        #expect(noParent.status == 66)
        #expect(noParent.error.contains("is not a Larder store"))
        #expect(!FileManager.default.fileExists(atPath: target.path))

        // An existing directory that is not a store is refused, and left as it was.
        let notAStore = try Tool.run(["import", files.path, file])
        #expect(notAStore.status == 66)
        #expect(notAStore.error == "larder: \(files.path) is not a Larder store: the directory has no _store.tch\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: files.path) == ["empty.json"])

        // Export into a directory that does not exist fails as I/O.
        let source = TestStore("export-source")
        try source.makeLibrary(songs: 3)
        let unwritable = try Tool.run(["export", source.path, orphan])
        #expect(unwritable.status == 74)
        #expect(unwritable.error.hasPrefix("larder: \(orphan)"), "\(unwritable.error)")
    }
}
