// The interchange format (docs/INTERCHANGE.md): export, import into an empty store and export
// again gives the same bytes, on both backends and in encrypted stores, with references between
// classes, deleted rowIDs, versions and named buffers; the classes need not be registered; the
// named-field seam with a field coder; and every kind of bad input refused with its position,
// leaving the target as it was (a good import into it then succeeds).

import Foundation
import LarderTestSupport
import Testing
@testable import Larder

@Suite struct InterchangeTests {
    // MARK: Round trips

    @Test(arguments: BackendKind.allCases)
    func exportImportExportGivesTheSameFile(backend: BackendKind) throws {
        let source = TemporaryDirectory("interchange-source", backend: backend)
        let files = TemporaryDirectory("interchange-files")
        try FileManager.default.createDirectory(atPath: files.path, withIntermediateDirectories: true)
        try Self.fillMusicStore(source)
        let first = URL(fileURLWithPath: files.path + "/first.json")
        try source.openStore(Self.classes).exportInterchange(to: first)

        let target = TemporaryDirectory("interchange-target", backend: backend)
        try target.store().importInterchange(from: first)
        let second = URL(fileURLWithPath: files.path + "/second.json")
        try target.store().exportInterchange(to: second)
        #expect(try Data(contentsOf: first) == Data(contentsOf: second))

        let copy = try target.openStore(Self.classes)
        try Self.expectMusicStore(copy)
    }

    @Test(arguments: BackendKind.allCases)
    func encryptedStoresExportDecryptedAndImportSealed(backend: BackendKind) throws {
        let source = TemporaryDirectory("interchange-secret", backend: backend)
        let files = TemporaryDirectory("interchange-files")
        try FileManager.default.createDirectory(atPath: files.path, withIntermediateDirectories: true)
        try Self.fillMusicStore(source, configuration: .quickKey("source key"))
        let encrypted = URL(fileURLWithPath: files.path + "/encrypted.json")
        try source.store(configuration: .quickKey("source key")).exportInterchange(to: encrypted)
        // The export is the same as that of the same objects in a plaintext store.
        let plain = TemporaryDirectory("interchange-plain", backend: backend)
        try Self.fillMusicStore(plain)
        let plainFile = URL(fileURLWithPath: files.path + "/plain.json")
        try plain.store().exportInterchange(to: plainFile)
        #expect(try Data(contentsOf: encrypted) == Data(contentsOf: plainFile))

        let target = TemporaryDirectory("interchange-sealed", backend: backend)
        try target.store(configuration: .quickKey("target key")).importInterchange(from: encrypted)
        #expect(throws: StoreError.encryptionKeyRequired) { _ = try target.openStore(Self.classes).allObjects(of: Song.self) }
        let copy = try target.openStore(Self.classes, configuration: .quickKey("target key"))
        try Self.expectMusicStore(copy)
        let again = URL(fileURLWithPath: files.path + "/again.json")
        try copy.exportInterchange(to: again)
        #expect(try Data(contentsOf: encrypted) == Data(contentsOf: again))
    }

    @Test(arguments: BackendKind.allCases)
    func classesNeedNotBeRegistered(backend: BackendKind) throws {
        let source = TemporaryDirectory("interchange-unregistered", backend: backend)
        try Self.fillMusicStore(source)
        let registered = try Self.exportText(of: source.openStore(Self.classes))
        let unregistered = try Self.exportText(of: source.store())
        #expect(registered == unregistered)
        // Its parts, read without the classes.
        let store = try source.store()
        let classes = try store.registryEntries()
        #expect(classes.map(\.name) == ["Song", "Playlist", "Artist", "Bookmark"])
        #expect(classes[0].nextRowID == 6 && classes[0].deletedRowIDs == [2 ... 3])
        var rowIDs: [UInt64] = []
        try store.forEachRawRecord(ofClassNamed: "Song") { rowIDs.append($0.rowID) }
        #expect(rowIDs == [1, 4, 5])
        let record = try #require(try store.rawRecord(ofClassNamed: "Song", rowID: 4))
        var buffer = DataBuffer(bytes: record.content, versionOfData: record.version)
        #expect(try buffer.readString() == "All Blues")
        #expect(try store.rawRecord(ofClassNamed: "Song", rowID: 2) == nil)
        #expect(throws: StoreError.classNotRegistered("Album")) { _ = try store.rawRecord(ofClassNamed: "Album", rowID: 1) }
    }

    @Test(arguments: BackendKind.allCases)
    func importsInSeveralBatchesKeepEveryRecord(backend: BackendKind) throws {
        let source = TemporaryDirectory("interchange-batches", backend: backend)
        let store = try source.openStore([Song.self])
        for number in 0 ..< 3_000 { try store.insert(Song(title: "song \(number)", seconds: UInt32(number))) }
        try store.saveChanges()
        for rowID: UInt64 in [7, 500, 501, 2_999] { try store.delete(try #require(try store.object(of: Song.self, rowID: rowID))) }
        try store.saveChanges()
        let text = try Self.exportText(of: store)

        let target = TemporaryDirectory("interchange-batches-target", backend: backend)
        var reports: [InterchangeProgress] = []
        try target.store().importInterchange(reading: { JSONTextReader(bytes: text) }, batchRecords: 100) { reports.append($0) }
        // Checking reports its end; writing each batch, rising to every object.
        #expect(reports.first == InterchangeProgress(phase: .checking, objects: 2_996, totalObjects: 2_996))
        let written = reports.dropFirst().map(\.objects)
        #expect(reports.dropFirst().allSatisfy { $0.phase == .writing && $0.totalObjects == 2_996 })
        #expect(written.count >= 10 && written == written.sorted() && written.last == 2_996, "\(written)")
        let copy = try target.openStore([Song.self])
        #expect(try Self.exportText(of: copy) == text)
        let songs = try copy.allObjects(of: Song.self)
        #expect(songs.count == 2_996)
        #expect(songs.first { $0.rowID == 1_234 }?.title == "song 1233")
        // The registry is exact: the next insert gets the next rowID of the source.
        let song = Song(title: "new", seconds: 1)
        try copy.insert(song)
        #expect(song.rowID == 3_001)
    }

    @Test(arguments: BackendKind.allCases)
    func namedFieldsGoThroughTheClassFieldCoder(backend: BackendKind) throws {
        let source = TemporaryDirectory("interchange-fields", backend: backend)
        try Self.fillMusicStore(source)
        let store = try source.store()
        store.interchangeFields = ArtistFields()
        let text = try Self.exportText(of: store)
        let line = try #require(String(decoding: text, as: UTF8.self).split(separator: "\n").first { $0.contains(#""class":"Artist""#) })
        #expect(line == #"{"class":"Artist","rowID":1,"version":1,"fields":{"name":"Miles","favorite":{"$ref":{"class":"Song","rowID":4}}}},"#)

        let target = TemporaryDirectory("interchange-fields-target", backend: backend)
        let copy = try target.store()
        copy.interchangeFields = ArtistFields()
        try copy.importInterchange(reading: { JSONTextReader(bytes: text) })
        #expect(try Self.exportText(of: copy) == text)
        try copy.register(Song.self)
        try copy.register(Artist.self)
        let artist = try #require(try copy.object(of: Artist.self, rowID: 1))
        #expect(artist.name == "Miles" && artist.favorite?.title == "All Blues")

        // Without a field coder, named fields cannot become a record.
        let plain = TemporaryDirectory("interchange-fields-plain", backend: backend)
        let position = Self.position(of: #"{"name":"Miles""#, in: text)
        #expect(throws: InterchangeError.noFieldSchema(class: "Artist", at: position)) {
            try plain.store().importInterchange(reading: { JSONTextReader(bytes: text) })
        }
        // A reference to an object the file does not hold.
        let dangling = Self.replacing(#""rowID":4}}}}"#, with: #""rowID":2}}}}"#, in: text)
        let unchanged = TemporaryDirectory("interchange-fields-dangling", backend: backend)
        let target2 = try unchanged.store()
        target2.interchangeFields = ArtistFields()
        #expect(throws: InterchangeError.danglingReference(class: "Song", rowID: 2, at: position)) {
            try target2.importInterchange(reading: { JSONTextReader(bytes: dangling) })
        }
        try Self.expectEmpty(target2, classes: ["Song", "Artist"])
    }

    @Test(arguments: BackendKind.allCases)
    func derivedIndexesAreBuiltAfterTheImport(backend: BackendKind) throws {
        let source = TemporaryDirectory("interchange-indexes", backend: backend)
        let store = try source.openStore([TimedSong.self, FormatExampleSong.self])
        for number in 0 ..< 200 { try store.insert(TimedSong(title: "song \(number)", seconds: UInt32(number))) }
        for title in ["Blue in Green", "Bluebird", "So What"] {
            let song = FormatExampleSong()
            song.title = title
            try store.insert(song)
        }
        try store.saveChanges()
        let text = try Self.exportText(of: store)

        let target = TemporaryDirectory("interchange-indexes-target", backend: backend)
        let copy = try target.store()
        try copy.importInterchange(reading: { JSONTextReader(bytes: text) })
        try copy.register(TimedSong.self)
        try copy.register(FormatExampleSong.self)
        // The object index is built from the imported objects when the class registers.
        #expect(try copy.explain(of: TimedSong.self, where: \.seconds > 190).description.contains("index \"seconds\""))
        #expect(try copy.objects(of: TimedSong.self, where: \.seconds > 196).map(\.title) == ["song 197", "song 198", "song 199"])
        // The full-text index, by rebuildTextIndex(of:).
        try copy.rebuildTextIndex(of: FormatExampleSong.self)
        #expect(try copy.objects(of: FormatExampleSong.self, matchingText: "[[blue*]]", forAttribute: "title").map(\.title)
            == ["Blue in Green", "Bluebird"])
        #expect(try copy.verify().isHealthy)
    }

    // MARK: Bad input

    @Test(arguments: BackendKind.allCases)
    func badInputIsATypedErrorWithItsPositionAndChangesNothing(backend: BackendKind) throws {
        let source = TemporaryDirectory("interchange-bad-source", backend: backend)
        try Self.fillMusicStore(source)
        let good = try Self.exportText(of: source.store())
        let target = TemporaryDirectory("interchange-bad-target", backend: backend)
        let store = try target.store()

        func refused(_ text: [UInt8], _ expected: InterchangeError, sourceLocation: SourceLocation = #_sourceLocation) throws {
            #expect(throws: expected, sourceLocation: sourceLocation) {
                try store.importInterchange(reading: { JSONTextReader(bytes: text) }, batchRecords: 2)
            }
            try Self.expectEmpty(store, classes: ["Song", "Playlist", "Artist", "Bookmark"])
        }
        // Malformed JSON: cut in the middle of the objects.
        let cut = Array(good.prefix(Self.offset(of: #"{"class":"Song","rowID":4"#, in: good) + 10))
        try refused(cut, .malformedJSON(reason: "the text ends inside a string", at: Self.end(of: cut)))
        try refused(Array(#"{"format":"larder-interchange","version":1,"classes":[}"#.utf8),
                    .malformedJSON(reason: "expected a value", at: TextPosition(line: 1, column: 55, byteOffset: 54)))
        try refused(Array(#"{"format":"larder-interchange","version":2,"#.utf8),
                    .invalidStructure(reason: "interchange version 2 is not supported (this Larder reads 1)",
                                      at: TextPosition(line: 1, column: 42, byteOffset: 41)))
        try refused(good + Array("x".utf8), .malformedJSON(reason: "unexpected text after the end", at: Self.end(of: good)))
        // An object of a class the file does not declare.
        let unknown = Self.replacing(#"{"class":"Song","rowID":4"#, with: #"{"class":"Album","rowID":4"#, in: good)
        try refused(unknown, .unknownClass("Album", at: Self.position(of: #""Album","rowID":4"#, in: unknown)))
        // A rowID twice.
        let duplicate = Self.replacing(#"{"class":"Song","rowID":5"#, with: #"{"class":"Song","rowID":4"#, in: good)
        let second = Self.offset(of: #"{"class":"Song","rowID":4"#, in: duplicate, last: true) + #"{"class":"Song","rowID":"#.utf8.count
        try refused(duplicate, .duplicateRowID(class: "Song", rowID: 4, at: Self.position(atOffset: second, in: duplicate)))
        // A deleted rowID.
        let deleted = Self.replacing(#"{"class":"Song","rowID":4"#, with: #"{"class":"Song","rowID":3"#, in: good)
        let third = Self.offset(of: #"{"class":"Song","rowID":3"#, in: deleted) + #"{"class":"Song","rowID":"#.utf8.count
        try refused(deleted, .rowIDOutsideRegistry(class: "Song", rowID: 3, at: Self.position(atOffset: third, in: deleted)))
        // An object missing.
        let songLine = Self.line(containing: #"{"class":"Song","rowID":5"#, in: good)
        let missing = Self.replacing(songLine + "\n", with: "", in: good)
        try refused(missing, .missingObjects(class: "Song", expected: 3, found: 2, at: Self.position(of: "]", in: missing,
                                                                                                     after: #""objects":["#)))
        // Bytes that are not base64.
        let notBase64 = Self.replacing(#""bytes":""#, with: #""bytes":"!"#, in: good)
        try refused(notBase64, .invalidStructure(reason: "\"bytes\" must be a base64 string",
                                                 at: Self.position(of: #""!"#, in: notBase64)))
        // A class declared twice.
        let classLine = Self.line(containing: #"{"name":"Song""#, in: good)
        let twice = Self.replacing(classLine, with: classLine + "\n" + classLine, in: good)
        try refused(twice, .invalidStructure(reason: "class Song or class ID 1 is declared twice",
                                             at: Self.position(of: classLine, in: twice, last: true)))

        // The target is as it was: the good file goes in.
        try store.importInterchange(reading: { JSONTextReader(bytes: good) })
        #expect(try Self.exportText(of: store) == good)
    }

    @Test(arguments: BackendKind.allCases)
    func aTargetThatIsNotEmptyIsRefused(backend: BackendKind) throws {
        let source = TemporaryDirectory("interchange-full-source", backend: backend)
        try Self.fillMusicStore(source)
        let good = try Self.exportText(of: source.store())
        let target = TemporaryDirectory("interchange-full-target", backend: backend)
        let withClass = try target.openStore([Song.self])
        #expect(throws: InterchangeError.targetNotEmpty(reason: "class Song is registered")) {
            try withClass.importInterchange(reading: { JSONTextReader(bytes: good) })
        }
        let other = TemporaryDirectory("interchange-full-buffers", backend: backend)
        let withBuffer = try other.store()
        try withBuffer.setDataBuffer(DataBuffer(bytes: [1]), forName: "kept")
        #expect(throws: InterchangeError.targetNotEmpty(reason: "it holds named buffers")) {
            try withBuffer.importInterchange(reading: { JSONTextReader(bytes: good) })
        }
        #expect(try withBuffer.dataBuffer(forName: "kept")?.bytes == [1])
    }

    @Test(arguments: BackendKind.allCases)
    func damageInTheStoreFailsTheExportAndLeavesNoFile(backend: BackendKind) throws {
        let source = TemporaryDirectory("interchange-damaged", backend: backend)
        try Self.fillMusicStore(source)
        let store = try source.store()
        let raw = RawRecords(store, "Song")
        var page = try #require(try raw.pages()[0])
        page[page.count - 3] ^= 0x40
        try raw.putPage(page, number: 0)
        let files = TemporaryDirectory("interchange-damaged-files")
        try FileManager.default.createDirectory(atPath: files.path, withIntermediateDirectories: true)
        let file = URL(fileURLWithPath: files.path + "/damaged.json")
        #expect(throws: StoreError.corruptRecord(class: "Song", rowID: 0)) { try store.exportInterchange(to: file) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: files.path).isEmpty)
        // A class file emptied behind the store's back.
        var emptied = WriteBatch()
        emptied.removeValue(forKey: RecordPage.key(forPage: 0), in: "Song")
        try store.backend.apply(emptied)
        #expect(throws: StoreError.missingRecords(table: "Song", expected: 3, found: 0)) { try store.exportInterchange(to: file) }
    }

    @Test func aReadOnlyStoreRefusesAnImport() throws {
        let directory = TemporaryDirectory("interchange-read-only")
        try directory.store().close()
        let store = try directory.store(configuration: Store.Configuration(readOnly: true))
        #expect(throws: StoreError.readOnly) {
            try store.importInterchange(reading: { JSONTextReader(bytes: Array("{}".utf8)) })
        }
    }

    @Test func aFileThatCannotBeReadIsAFileFailure() throws {
        let target = TemporaryDirectory("interchange-no-file")
        let path = target.path + "-missing.json"
        #expect(throws: InterchangeError.fileFailure(path: path, reason: "No such file or directory")) {
            try target.store().importInterchange(from: URL(fileURLWithPath: path))
        }
    }

    // MARK: The model

    static let classes: [StoredObject.Type] = [Song.self, Playlist.self, Artist.self, Bookmark.self]

    /// Songs 1-5 (2 and 3 deleted), a playlist of songs, an artist with a favorite, a bookmark
    /// to objects of two classes, named buffers; saved in four saves.
    static func fillMusicStore(_ directory: TemporaryDirectory, configuration: Store.Configuration = .init()) throws {
        let store = try directory.openStore(classes, configuration: configuration)
        let songs = ["So What", "Freddie Freeloader", "Blue in Green", "All Blues", "Flamenco Sketches"]
            .enumerated().map { Song(title: $0.element, seconds: UInt32(300 + $0.offset)) }
        for song in songs { try store.insert(song) }
        try store.saveChanges()
        try store.delete(songs[1])
        try store.delete(songs[2])
        try store.saveChanges()
        let playlist = Playlist()
        playlist.title = "Kind of Blue"
        playlist.songs = [songs[4], songs[0], songs[3]]
        try store.insert(playlist)
        let artist = Artist()
        artist.name = "Miles"
        artist.favorite = songs[3]
        try store.insert(artist)
        try store.saveChanges()
        let bookmark = Bookmark()
        bookmark.label = "start"
        bookmark.target = playlist
        bookmark.extras = [songs[0], artist]
        try store.insert(bookmark)
        try store.saveChanges()
        var current = DataBuffer()
        current.writeReference(playlist)
        try store.setDataBuffer(current, forName: "current-playlist")
        try store.setDataBuffer(DataBuffer(bytes: [0, 255, 10]), forName: "bytes\n\"quoted\"")
        try store.close()
    }

    static func expectMusicStore(_ store: Store) throws {
        #expect(try store.allObjects(of: Song.self).map(\.title) == ["So What", "All Blues", "Flamenco Sketches"])
        #expect(try store.allObjects(of: Song.self).map(\.rowID) == [1, 4, 5])
        let playlist = try #require(try store.object(of: Playlist.self, rowID: 1))
        #expect(playlist.title == "Kind of Blue")
        #expect(playlist.songs.map(\.title) == ["Flamenco Sketches", "So What", "All Blues"])
        let artist = try #require(try store.object(of: Artist.self, rowID: 1))
        try artist.fetchContent()
        #expect(artist.name == "Miles" && artist.favorite?.title == "All Blues")
        let bookmark = try #require(try store.object(of: Bookmark.self, rowID: 1))
        #expect(bookmark.target === playlist)
        #expect(bookmark.extras.map(\.rowID) == [1, 1])
        #expect(bookmark.extras.last === artist)
        #expect(try store.dataBufferNames() == ["bytes\n\"quoted\"", "current-playlist"])
        var current = try #require(try store.dataBuffer(forName: "current-playlist"))
        #expect(try current.readReference(to: Playlist.self, in: store) === playlist)
        #expect(try store.dataBuffer(forName: "bytes\n\"quoted\"")?.bytes == [0, 255, 10])
        // Deleted rowIDs stay deleted: the next song is rowID 6.
        let song = Song(title: "new", seconds: 1)
        try store.insert(song)
        #expect(song.rowID == 6)
        store.discardChanges()
        #expect(try store.verify().isHealthy)
    }

    // MARK: Helpers

    static func exportText(of store: Store) throws -> [UInt8] {
        var writer = JSONTextWriter()
        try store.exportInterchange(into: &writer)
        return writer.bytes
    }

    /// The store holds nothing: no class, no named buffer, no record in the class files.
    static func expectEmpty(_ store: Store, classes: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(try store.registryEntries().isEmpty, sourceLocation: sourceLocation)
        #expect(try store.dataBufferNames().isEmpty, sourceLocation: sourceLocation)
        for name in classes {
            #expect(try store.backend.recordCount(in: name) == 0, "\(name)", sourceLocation: sourceLocation)
        }
    }

    static func replacing(_ old: String, with new: String, in text: [UInt8]) -> [UInt8] {
        Array(String(decoding: text, as: UTF8.self).replacingOccurrences(of: old, with: new).utf8)
    }

    static func line(containing part: String, in text: [UInt8]) -> String {
        String(String(decoding: text, as: UTF8.self).split(separator: "\n").first { $0.contains(part) } ?? "")
    }

    /// The byte offset of the first (or last) occurrence of `part` (after `after`).
    static func offset(of part: String, in text: [UInt8], last: Bool = false, after: String? = nil) -> Int {
        let string = String(decoding: text, as: UTF8.self)
        var searched = string.startIndex ..< string.endIndex
        if let after, let found = string.range(of: after) { searched = found.upperBound ..< string.endIndex }
        guard let range = string.range(of: part, options: last ? .backwards : [], range: searched) else { return -1 }
        return string.utf8.distance(from: string.startIndex, to: range.lowerBound)
    }

    static func position(of part: String, in text: [UInt8], last: Bool = false, after: String? = nil) -> TextPosition {
        position(atOffset: offset(of: part, in: text, last: last, after: after), in: text)
    }

    static func end(of text: [UInt8]) -> TextPosition { position(atOffset: text.count, in: text) }

    static func position(atOffset offset: Int, in text: [UInt8]) -> TextPosition {
        let before = text.prefix(offset)
        let lineStart = (before.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 }) ?? 0
        return TextPosition(line: before.filter { $0 == UInt8(ascii: "\n") }.count + 1, column: offset - lineStart + 1, byteOffset: offset)
    }
}

private struct MissingField: Error {}

/// A field coder for Artist (a name, then a reference to a Song), as a schema would give one.
private struct ArtistFields: InterchangeFieldCoding {
    func coder(for registered: RegistryEntry, in store: Store) throws -> ClassFieldCoder? {
        guard registered.name == "Artist" else { return nil }
        return ClassFieldCoder(fields: { content, version in
            var buffer = DataBuffer(bytes: content, versionOfData: version)
            let name = try buffer.readString()
            let favorite = try buffer.readVarInt()
            return [InterchangeField(name: "name", value: .string(name)),
                    InterchangeField(name: "favorite", value: favorite == 0 ? .null : .reference(className: "Song", rowID: favorite))]
        }, content: { fields, version in
            var buffer = DataBuffer()
            guard case let .string(name)? = fields.first(where: { $0.name == "name" })?.value else { throw MissingField() }
            buffer.write(name)
            switch fields.first(where: { $0.name == "favorite" })?.value {
            case let .reference(_, rowID)?: buffer.writeVarInt(rowID)
            default: buffer.writeVarInt(0)
            }
            return buffer.bytes
        })
    }
}

/// The example of docs/INTERCHANGE.md is a real file: it imports, reads as it says, and
/// exports as it is written.
@Suite struct InterchangeDocumentationTests {
    @Test func theDocumentedExampleImportsAndExportsAsWritten() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/INTERCHANGE.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        let start = try #require(text.range(of: "```json\n{\"format\":\"larder-interchange\""))
        let end = try #require(text.range(of: "```\n", range: start.upperBound ..< text.endIndex))
        let example = Array(text[text.index(start.lowerBound, offsetBy: 8) ..< end.lowerBound].utf8)
        let directory = TemporaryDirectory("interchange-docs", backend: .memory)
        let store = try directory.store()
        try store.importInterchange(reading: { JSONTextReader(bytes: example) })
        #expect(try InterchangeTests.exportText(of: store) == example)
        try store.register(Song.self)
        try store.register(Playlist.self)
        #expect(try store.allObjects(of: Song.self).map(\.title) == ["So What", "All Blues", "Flamenco Sketches"])
        #expect(try store.allObjects(of: Song.self).map(\.seconds) == [545, 485, 465])
        let playlist = try #require(try store.object(of: Playlist.self, rowID: 1))
        #expect(playlist.title == "Kind of Blue" && playlist.songs.map(\.rowID) == [5, 1])
        var current = try #require(try store.dataBuffer(forName: "current-playlist"))
        #expect(try current.readReference(to: Playlist.self, in: store) === playlist)
    }
}
