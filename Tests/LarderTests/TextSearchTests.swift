// Full-text search: each query operator, Unicode matching, updates and deletes reflected in
// results, reopening, rebuilds, encryption, verify, and a randomized comparison with a
// brute-force filter over the objects.

import Foundation
import LarderTestSupport
import Testing
@testable import Larder

/// A song with an indexed title and artist.
final class IndexedSong: StoredObject {
    @Stored var title = ""
    @Stored var artist = ""

    convenience init(_ title: String, artist: String = "") {
        self.init()
        self.title = title
        self.artist = artist
    }

    override func writeContent(to buffer: inout DataBuffer) {
        buffer.write(title)
        buffer.write(artist)
    }

    override func readContent(from buffer: inout DataBuffer, in store: Store) throws {
        title = try buffer.readString()
        artist = try buffer.readString()
    }

    override func indexedText() -> [String: String] {
        ["title": title, "artist": artist]
    }
}

/// A note that indexes its body only once a test says so (to exercise rebuildTextIndex). The switch is shared by the whole
/// process: only one test uses it, and its cases run one at a time.
final class LateIndexedNote: StoredObject {
    nonisolated(unsafe) static var indexesBody = false
    @Stored var body = ""

    override func writeContent(to buffer: inout DataBuffer) { buffer.write(body) }
    override func readContent(from buffer: inout DataBuffer, in store: Store) throws { body = try buffer.readString() }
    override func indexedText() -> [String: String] { Self.indexesBody ? ["body": body] : [:] }
}

let indexedTitles = [
    "Kind of Blue",                 // 1
    "Blue in Green",                // 2
    "So What",                      // 3
    "Freddie Freeloader",           // 4
    "All Blues",                    // 5
    "Flamenco Sketches",            // 6
    "Bluebird",                     // 7
    "Green Onions",                 // 8
    "Rock-n-Roll Blueprint",        // 9
    "What a Wonderful World",       // 10
]

func makeIndexedStore(_ directory: TemporaryDirectory, titles: [String] = indexedTitles,
                      configuration: Store.Configuration = .init()) throws -> Store {
    let store = try directory.store(configuration: configuration)
    try store.register(IndexedSong.self)
    for title in titles { try store.insert(IndexedSong(title, artist: "Miles Davis")) }
    try store.saveChanges()
    return store
}

extension Store {
    /// The rowIDs of the songs whose title matches `query`.
    func titleMatches(_ query: String) throws -> [UInt64] {
        let songs = try objects(of: IndexedSong.self, matchingText: query, forAttribute: "title")
        #expect(try countOfObjects(of: IndexedSong.self, matchingText: query, forAttribute: "title") == songs.count)
        return songs.map(\.rowID)
    }
}

@Suite struct TextSearchTests {
    @Test(arguments: BackendKind.withEtcd) func eachOperatorAndTermForm(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory("fts", backend: backend)
        let store = try makeIndexedStore(directory)
        #expect(try store.titleMatches("blue") == [1, 2, 5, 7, 9])          // substring
        #expect(try store.titleMatches("[[blue]]") == [1, 2])                // whole token
        #expect(try store.titleMatches("[[blue*]]") == [1, 2, 5, 7, 9])      // token prefix
        #expect(try store.titleMatches("[[*s]]") == [5, 6, 8])               // token suffix
        #expect(try store.titleMatches("[[*ee*]]") == [2, 4, 8])                // token substring
        #expect(try store.titleMatches("[[*reel*]]") == [4])
        #expect(try store.titleMatches("blue green") == [2])                 // space is AND
        #expect(try store.titleMatches("blue && green") == [2])
        #expect(try store.titleMatches("what || sketches") == [3, 6, 10])    // OR
        #expect(try store.titleMatches("blue !! green") == [1, 5, 7, 9])     // NOT
        #expect(try store.titleMatches("blue !! [[blue]]") == [5, 7, 9])
        // OR binds tighter than AND and NOT; AND and NOT go left to right.
        #expect(try store.titleMatches("blue green || kind") == [1, 2])
        #expect(try store.titleMatches("[[blue*]] !! green || bird") == [1, 5, 9])
        #expect(try store.titleMatches("\"of blue\"") == [1])                // phrase
        #expect(try store.titleMatches("\"f blu\"") == [1])                  // phrase cut inside tokens
        #expect(try store.titleMatches("\"blue of\"") == [])
        #expect(try store.titleMatches("n-roll") == [9])                     // a term of several tokens
        #expect(try store.titleMatches("-n-") == [9])
        #expect(try store.titleMatches("--") == [])                          // no letters: a scan
        #expect(try store.titleMatches("nothing") == [])
        #expect(try store.objects(of: IndexedSong.self, matchingText: "davis", forAttribute: "artist").count == 10)
        #expect(try store.objects(of: IndexedSong.self, matchingText: "blue", forAttribute: "artist").isEmpty)
        #expect(try store.objects(of: IndexedSong.self, matchingText: "blue", forAttribute: "nope").isEmpty)
        // Results are faults until used, in rowID order, unique with the live objects.
        let found = try store.objects(of: IndexedSong.self, matchingText: "[[green]]", forAttribute: "title")
        #expect(found.map(\.title) == ["Blue in Green", "Green Onions"])
        #expect(try store.object(of: IndexedSong.self, rowID: 2) === found[0])
        try store.close()
    }

    @Test(arguments: BackendKind.withEtcd) func malformedQueriesThrowWithTheirPosition(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory("fts", backend: backend)
        let store = try makeIndexedStore(directory, titles: ["a"])
        let cases: [(String, Int)] = [
            ("", 0), ("   ", 0), ("blue &&", 5), ("|| blue", 0), ("blue && || green", 8),
            ("blue !! !! green", 8), ("\"kind of", 0), ("[[blue", 0), ("[[]]", 0), ("[[*]]", 0),
            ("[[two words]]", 0), ("x [[blue]]y", 10), ("\"a\"b", 3), ("\"\"", 0), ("blue ||", 5),
        ]
        for (query, position) in cases {
            do {
                _ = try store.titleMatches(query)
                Issue.record("'\(query)' parsed")
            } catch let error as SearchQueryError {
                #expect(error.position == position, "'\(query)': \(error)")
                #expect(!error.message.isEmpty)
            }
        }
        try store.close()
    }

    @Test(arguments: BackendKind.withEtcd) func unicodeCaseFoldingAndNormalization(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory("fts", backend: backend)
        let store = try makeIndexedStore(directory, titles: [
            "CAFÉ DEL MAR", "Un cafe\u{301} noir", "Cafe Society", "Straße der Lieder", "ΣΟΦΊΑ", "東京 Tokyo",
        ])
        #expect(try store.titleMatches("Café") == [1, 2])
        #expect(try store.titleMatches("[[café]]") == [1, 2])
        #expect(try store.titleMatches("[[CAFE\u{301}]]") == [1, 2])
        #expect(try store.titleMatches("cafe") == [3])                      // accents are kept apart
        #expect(try store.titleMatches("STRASSE") == [4])                   // full case folding
        #expect(try store.titleMatches("[[σοφία]]") == [5])
        #expect(try store.titleMatches("東京") == [6])
        #expect(try store.titleMatches("[[tok*]]") == [6])
        try store.close()
    }

    @Test(arguments: BackendKind.withEtcd) func updatesDeletesAndReopenAreReflected(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory("fts", backend: backend)
        do {
            let store = try makeIndexedStore(directory)
            let kind = try #require(try store.object(of: IndexedSong.self, rowID: 1))
            kind.title = "Kind of Green"
            try store.delete(try #require(try store.object(of: IndexedSong.self, rowID: 2)))
            // The index follows saves; an object deleted and not saved is left out at once.
            #expect(try store.titleMatches("[[blue]]") == [1])
            try store.saveChanges()
            #expect(try store.titleMatches("[[blue]]") == [])
            #expect(try store.titleMatches("[[green]]") == [1, 8])
            try store.insert(IndexedSong("Blue Train"))
            try store.saveChanges()
            #expect(try store.titleMatches("[[blue]]") == [11])
            try store.close()
        }
        let store = try directory.store()
        try store.register(IndexedSong.self)
        #expect(try store.titleMatches("[[blue]]") == [11])
        #expect(try store.titleMatches("green") == [1, 8])
        #expect(try store.titleMatches("[[blue*]]") == [5, 7, 9, 11])
        let report = try store.verify()
        #expect(report.isHealthy, "\(report.problems)")
        try store.close()
    }

    @Test func unindexedClassesWriteNoIndex() throws {
        let directory = TemporaryDirectory("fts")
        let store = try directory.openStore()
        try insertLibrary(into: store, songs: 10, perPlaylist: 5)
        #expect(try store.objects(of: Song.self, matchingText: "song", forAttribute: "title").isEmpty)
        try store.close()
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(!files.contains { $0.hasPrefix("_text") }, "\(files)")
    }

    // Serialized: both cases switch `LateIndexedNote.indexesBody`, which the whole process shares.
    @Test(.serialized, arguments: BackendKind.withEtcd) func rebuildIndexesObjectsSavedBeforeTheirClassDeclaredText(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory("fts", backend: backend)
        LateIndexedNote.indexesBody = false
        do {
            let store = try directory.store()
            try store.register(LateIndexedNote.self)
            for body in ["buy milk", "call mom", "milk the cow"] {
                let note = LateIndexedNote()
                note.body = body
                try store.insert(note)
            }
            try store.saveChanges()
            try store.close()
        }
        LateIndexedNote.indexesBody = true
        defer { LateIndexedNote.indexesBody = false }
        let store = try directory.store()
        try store.register(LateIndexedNote.self)
        #expect(try store.objects(of: LateIndexedNote.self, matchingText: "milk", forAttribute: "body").isEmpty)
        let note = LateIndexedNote()
        note.body = "milk again"
        try store.insert(note)
        try store.saveChanges()
        #expect(try store.objects(of: LateIndexedNote.self, matchingText: "milk", forAttribute: "body").map(\.rowID) == [4])
        // The three notes saved before are not in the index: verify says so.
        #expect(try store.verify().problems.contains { "\($0)".contains("3 rows are not indexed, the first 1") })
        try store.rebuildTextIndex(of: LateIndexedNote.self)
        #expect(try store.objects(of: LateIndexedNote.self, matchingText: "milk", forAttribute: "body").map(\.rowID) == [1, 3, 4])
        #expect(try store.verify().isHealthy)
        try store.close()
    }

    @Test func encryptedIndexesKeepTheirWordsSealed() throws {
        let directory = TemporaryDirectory("fts")
        let configuration = Store.Configuration.quickKey("secret")
        do {
            let store = try makeIndexedStore(directory, titles: ["Zanzibar Xylophone"], configuration: configuration)
            #expect(try store.titleMatches("[[zanz*]]") == [1])
            try store.close()
        }
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) where name.hasPrefix("_text") {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: directory.file(name)))
            #expect(bytes.range(of: Data("zanzibar".utf8)) == nil, "\(name) holds the word in plaintext")
        }
        let store = try directory.store(configuration: configuration)
        try store.register(IndexedSong.self)
        #expect(try store.titleMatches("xylo") == [1])
        try store.rekey(to: nil)
        #expect(try store.titleMatches("xylo") == [1])
        #expect(try store.verify().isHealthy)
        try store.close()
    }

    @Test(arguments: BackendKind.withEtcd) func verifyFindsAnIndexThatDisagreesWithItsObjects(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory("fts", backend: backend)
        let store = try makeIndexedStore(directory)
        #expect(try store.verify().isHealthy)
        // Remove one posting record behind the store's back.
        let index = try #require(try store.entry(for: IndexedSong.self).textIndex)
        var keys: [[UInt8]] = []
        try store.backend.forEachRecord(in: index.postingsTable) { key, _ in
            keys.append(Array(key))
            return true
        }
        var batch = WriteBatch()
        batch.removeValue(forKey: keys[0], in: index.postingsTable)
        try store.backend.apply(batch)
        let report = try store.verify()
        #expect(!report.isHealthy)
        #expect(report.problems.contains { if case .textIndexMismatch = $0 { true } else { false } })
        try store.close()
    }
}

/// The class of docs/FORMAT.md's example (section 15.6).
final class FormatExampleSong: StoredObject {
    @Stored var title = ""
    override class var storageName: String { "Song" }
    override func writeContent(to buffer: inout DataBuffer) { buffer.write(title) }
    override func readContent(from buffer: inout DataBuffer, in store: Store) throws { title = try buffer.readString() }
    override func indexedText() -> [String: String] { ["title": title] }
}

@Suite struct TextSearchFormatTests {
    @Test func theBytesOfTheFormatDocumentsExample() throws {
        let directory = TemporaryDirectory("fts-format")
        let store = try directory.store()
        try store.register(FormatExampleSong.self)
        let song = FormatExampleSong()
        song.title = "Kind of Blue"
        try store.insert(song)
        try store.saveChanges()
        func hex(_ key: [UInt8], in table: String) throws -> String {
            try store.backend.withValue(forKey: key, in: table) { value in
                value.map { $0.map { String(format: "%02x", $0) }.joined(separator: " ") } ?? "none"
            }
        }
        let title: [UInt8] = [0x05] + Array("title".utf8)
        #expect(try hex(Array("text/Song".utf8), in: "_store") == "02 01 01 80 20 06 0a f5 1d 8e")
        #expect(try hex([0, 0, 0, 0, 0, 0, 0, 0], in: "_textrows.Song")
            == "02 01 01 01 01 05 74 69 74 6c 65 0c 6b 69 6e 64 20 6f 66 20 62 6c 75 65 0e f5 f8 5e")
        #expect(try hex(title + [0, 0, 0, 3], in: "_textvocab.Song") == "02 01 04 62 6c 75 65 01 01 00 01 71 50 a2 18")
        #expect(try hex(title + [0, 0, 0, 3, 0, 0, 0, 0], in: "_text.Song") == "02 01 01 01 67 93 e9 b5")
        #expect(try store.backend.recordCount(in: "_textvocab.Song") == 3)
        try store.close()
    }
}

extension TextSearchFormatTests {
    /// README's example, with its results.
    @Test func theReadmeExample() throws {
        let directory = TemporaryDirectory("fts-readme")
        let store = try directory.store()
        try store.register(IndexedSong.self)
        for (title, artist) in [("Blue in Green", "Miles Davis"), ("Bluebird", "Charlie Parker"),
                                ("Café Blue", "Patricia Barber")] {
            try store.insert(IndexedSong(title, artist: artist))
        }
        try store.saveChanges()
        let blue = try store.objects(of: IndexedSong.self, matchingText: "[[blue]]", forAttribute: "title")
        #expect(blue.map(\.title) == ["Blue in Green", "Café Blue"])
        #expect(try store.countOfObjects(of: IndexedSong.self, matchingText: "[[blue*]] !! bird", forAttribute: "title") == 2)
        #expect(try store.countOfObjects(of: IndexedSong.self, matchingText: "[[parker]]", forAttribute: "artist") == 1)
        try store.close()
    }
}

@Suite struct TextSearchDamageTests {
    /// Damaged index records give typed errors and verify() problems, never a crash.
    @Test func damagedIndexRecordsThrowTypedErrors() throws {
        let directory = TemporaryDirectory("fts-damage")
        do {
            let store = try makeIndexedStore(directory)
            try store.close()
        }
        let garbage: [[UInt8]] = [[], [0x02], [0x02, 0x01, 0xff, 0xff, 0xff], [0x09, 0x01, 0x00], Array(repeating: 0xff, count: 40)]
        for (round, bytes) in garbage.enumerated() {
            for table in TextIndex.tables(for: "IndexedSong") {
                let store = try directory.store()
                try store.register(IndexedSong.self)
                var keys: [[UInt8]] = []
                try store.backend.forEachRecord(in: table) { key, _ in
                    keys.append(Array(key))
                    return true
                }
                let saved = try store.backend.withValue(forKey: keys[round % keys.count], in: table) { $0.map(Array.init) ?? [] }
                var batch = WriteBatch()
                batch.put(bytes, forKey: keys[round % keys.count], in: table)
                try store.backend.apply(batch)
                do {
                    for query in ["blue", "[[*e*]]", "\"of blue\"", "--"] { _ = try store.titleMatches(query) }
                } catch let error as StoreError {
                    guard case .corruptTextIndex = error else { throw error }
                }
                #expect(try !store.verify().isHealthy, "\(table) round \(round)")
                var repair = WriteBatch()
                repair.put(saved, forKey: keys[round % keys.count], in: table)
                try store.backend.apply(repair)
                try store.close()
            }
        }
        let store = try directory.store()
        try store.register(IndexedSong.self)
        #expect(try store.verify().isHealthy)
        #expect(try store.titleMatches("blue") == [1, 2, 5, 7, 9])
        try store.close()
    }

    @Test func aReadOnlyStoreSearches() throws {
        let directory = TemporaryDirectory("fts-readonly")
        do {
            let store = try makeIndexedStore(directory)
            try store.close()
        }
        let reader = try directory.store(configuration: .init(readOnly: true))
        try reader.register(IndexedSong.self)
        #expect(try reader.titleMatches("[[green]]") == [2, 8])
        #expect(throws: StoreError.readOnly) { try reader.rebuildTextIndex(of: IndexedSong.self) }
        try reader.close()
    }
}

extension TextSearchDamageTests {
    /// Index files are created by the commit of the first indexed save, never by a read (a
    /// file created outside the journal could be left half-written by a crash).
    @Test func indexFilesAppearWithTheFirstIndexedSave() throws {
        let directory = TemporaryDirectory("fts-files")
        let store = try directory.store()
        try store.register(IndexedSong.self)
        func indexFiles() throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("_text") && $0.hasSuffix(".tch") }.sorted()
        }
        #expect(try store.titleMatches("blue").isEmpty)
        try store.insert(IndexedSong(""))   // no text: the index is still empty
        #expect(try indexFiles().isEmpty)
        try store.saveChanges()
        #expect(try indexFiles() == ["_text.IndexedSong.tch", "_textrows.IndexedSong.tch", "_textvocab.IndexedSong.tch"])
        try store.insert(IndexedSong("Blue"))
        try store.saveChanges()
        #expect(try store.titleMatches("blue") == [2])
        try store.close()
    }
}
