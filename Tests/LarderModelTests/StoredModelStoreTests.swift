// @StoredModel classes saved and read back through a real store, on both backends: every field
// type, references and relationships, hand-written classes beside them, schema evolution, and
// the schema the registry keeps.

import Foundation
import LarderModel
import LarderTestSupport
import Testing
@testable import Larder

@Suite struct StoredModelStoreTests {
    @Test(arguments: BackendKind.allCases)
    func songsAlbumsAndRelationshipsRoundTrip(_ backend: BackendKind) throws {
        let directory = ModelStore(backend)
        do {
            let store = try directory.open([Album.self, Song.self, Note.self])
            let album = Album()
            album.title = "Kind of Blue"
            album.year = 1959
            let first = Song(title: "So What", seconds: 562)
            let second = Song(title: "Blue in Green", seconds: 337)
            first.album = album
            first.tags = ["modal", "", "jazz"]
            second.songs = [first, second]
            second.isPlaying = true
            let note = Note()
            note.text = "side A"
            note.song = second
            try store.insert(note)
            try store.insert(first)
            try store.saveChanges()
            try store.close()
        }
        let store = try directory.open([Album.self, Song.self, Note.self])
        let songs = try store.allObjects(of: Song.self)
        #expect(Set(songs.map(\.title)) == ["So What", "Blue in Green"])
        let soWhat = try #require(songs.first { $0.title == "So What" })
        let blue = try #require(songs.first { $0.title == "Blue in Green" })
        #expect(soWhat.seconds == 562 && blue.seconds == 337)
        #expect(soWhat.tags == ["modal", "", "jazz"])
        #expect(soWhat.album?.title == "Kind of Blue")
        #expect(soWhat.album?.year == 1959)
        #expect(blue.album == nil && blue.tags.isEmpty)
        #expect(blue.songs.map(\.title) == ["So What", "Blue in Green"])
        #expect(blue.songs[1] === blue)
        #expect(!blue.isPlaying)
        let note = try #require(try store.allObjects(of: Note.self).first)
        #expect(note.text == "side A" && note.song === blue)
        try store.close()
    }

    @Test(arguments: BackendKind.allCases)
    func everyFieldTypeRoundTrips(_ backend: BackendKind) throws {
        let directory = ModelStore(backend)
        let album = Album()
        album.title = "A"
        let stored = EveryType()
        stored.flag = true
        stored.int8 = -8
        stored.uint8 = 200
        stored.int16 = -16_000
        stored.uint16 = 65_000
        stored.int32 = -2_000_000_000
        stored.uint32 = 4_000_000_000
        stored.int64 = .min
        stored.uint64 = .max
        stored.int = -42
        stored.uint = 42
        stored.float = 1.5
        stored.double = -0.1
        stored.string = "Café ☕︎"
        stored.data = Data([0, 1, 255])
        stored.date = Date(timeIntervalSince1970: 1_234_567_890.25)
        stored.optionalInt = nil
        stored.optionalString = "here"
        stored.optionalDate = Date(timeIntervalSinceReferenceDate: -1)
        stored.numbers = [1, -1, .max]
        stored.flags = [true, false]
        stored.blobs = [Data(), Data([9])]
        stored.reference = album
        stored.references = [album, album]
        do {
            let store = try directory.open([Album.self, EveryType.self])
            try store.insert(stored)
            try store.saveChanges()
            try store.close()
        }
        let store = try directory.open([Album.self, EveryType.self])
        let read = try #require(try store.allObjects(of: EveryType.self).first)
        #expect(read.flag && read.int8 == -8 && read.uint8 == 200 && read.int16 == -16_000 && read.uint16 == 65_000)
        #expect(read.int32 == -2_000_000_000 && read.uint32 == 4_000_000_000 && read.int64 == .min && read.uint64 == .max)
        #expect(read.int == -42 && read.uint == 42 && read.float == 1.5 && read.double == -0.1)
        #expect(read.string == "Café ☕︎" && read.data == Data([0, 1, 255]))
        #expect(read.date == Date(timeIntervalSince1970: 1_234_567_890.25))
        #expect(read.optionalInt == nil && read.optionalString == "here")
        #expect(read.optionalDate == Date(timeIntervalSinceReferenceDate: -1))
        #expect(read.numbers == [1, -1, .max] && read.flags == [true, false] && read.blobs == [Data(), Data([9])])
        #expect(read.reference?.title == "A")
        #expect(read.references.count == 2 && read.references[0] === read.reference && read.references[1] === read.reference)
        try store.close()
    }

    @Test(arguments: BackendKind.allCases)
    func aNilOptionalIsNotItsDefault(_ backend: BackendKind) throws {
        // optionalInt defaults to 5: nil is stored as nil, and a record without the field reads 5.
        let directory = ModelStore(backend)
        do {
            let store = try directory.open([Album.self, EveryType.self])
            let cleared = EveryType()
            cleared.optionalInt = nil
            try store.insert(cleared)
            try store.insert(EveryType())
            try store.saveChanges()
            try store.close()
        }
        let store = try directory.open([Album.self, EveryType.self])
        let objects = try store.allObjects(of: EveryType.self).sorted { $0.rowID < $1.rowID }
        #expect(objects.map(\.optionalInt) == [nil, 5])
        var empty = DataBuffer()
        let fresh = EveryType()
        try fresh.readContent(from: &empty, in: store)
        #expect(fresh.optionalInt == 5 && fresh.string == "" && fresh.numbers.isEmpty)
        try store.close()
    }

    @Test(arguments: BackendKind.allCases)
    func updatesAreSaved(_ backend: BackendKind) throws {
        let directory = ModelStore(backend)
        do {
            let store = try directory.open([Album.self, Song.self])
            try store.insert(Song(title: "Draft", seconds: 1))
            try store.saveChanges()
            try store.close()
        }
        do {
            let store = try directory.open([Album.self, Song.self])
            let song = try #require(try store.object(of: Song.self, rowID: 1))
            song.title = "Final"   // through @Stored: faults in and marks the song updated
            song.tags.append("done")
            #expect(store.hasUnsavedChanges)
            try store.saveChanges()
            try store.close()
        }
        let store = try directory.open([Album.self, Song.self])
        let song = try #require(try store.object(of: Song.self, rowID: 1))
        #expect(song.title == "Final" && song.seconds == 1 && song.tags == ["done"])
        try store.close()
    }

    @Test(arguments: BackendKind.allCases)
    func fieldsAddedRemovedAndReorderedNeedNoVersion(_ backend: BackendKind) throws {
        let directory = ModelStore(backend)
        do {
            let store = try directory.open([EvolvingV1.self])
            let old = EvolvingV1()
            old.a = "kept"
            old.b = 99
            old.c = 2.5
            try store.insert(old)
            try store.saveChanges()
            try store.close()
        }
        let store = try directory.open([EvolvingV2.self])
        let new = try #require(try store.object(of: EvolvingV2.self, rowID: 1))
        #expect(new.a == "kept" && new.c == 2.5)
        #expect(new.d == [7])   // not in the record: its default
        // The registry now describes the class as it is.
        #expect(store.schema(ofClassNamed: "Evolving") == EvolvingV2.storedModelSchema)
        new.d = [1, 2]
        try store.saveChanges()
        try store.close()
        // And the first version reads the second's record: b, gone, is its default.
        let again = try directory.open([EvolvingV1.self])
        let old = try #require(try again.object(of: EvolvingV1.self, rowID: 1))
        #expect(old.a == "kept" && old.b == 0 && old.c == 2.5)
        try again.close()
    }

    @Test(arguments: BackendKind.allCases)
    func theRegistryKeepsTheSchemaForToolsWithoutTheClass(_ backend: BackendKind) throws {
        let directory = ModelStore(backend)
        do {
            let store = try directory.open([Album.self, Song.self, Note.self])
            #expect(store.schema(ofClassNamed: "Song") == Song.storedModelSchema)
            try store.insert(Song(title: "So What", seconds: 562))
            try store.saveChanges()
            try store.close()
        }
        // Nothing registered: the schema comes from the registry alone.
        let store = try directory.open([])
        let schema = try #require(store.schema(ofClassNamed: "Song"))
        #expect(schema == Song.storedModelSchema)
        #expect(schema.fields.map(\.name) == ["title", "seconds", "album", "tags", "songs"])
        #expect(schema.field(named: "album")?.type == .reference(className: "Album"))
        #expect(schema.field(named: "songs")?.type == .array(.reference(className: "Song")))
        #expect(store.schema(ofClassNamed: "Note") == nil)       // hand-written
        #expect(store.schema(ofClassNamed: "Nothing") == nil)
        try store.close()
    }

    @Test func anEncryptedStoreSealsTheSchema() throws {
        let directory = ModelStore(.tokyoCabinet)
        var configuration = Store.Configuration(durability: .noSync, encryptionKey: "secret")
        configuration.keyDerivationIterations = 1_000
        do {
            let store = try directory.open([Album.self, Song.self], configuration: configuration)
            try store.close()
        }
        let backend = try TokyoCabinetBackend(path: directory.path, configuration: .init(readOnly: true))
        var first: UInt8?
        try backend.readValue(forKey: StoredModelSchema.key(for: "Song"), in: Store.metadataTable) { first = $0?.first }
        try backend.close()
        #expect(first == RecordEnvelope.encryptedFormat)
        let store = try directory.open([], configuration: configuration)
        #expect(store.schema(ofClassNamed: "Song") == Song.storedModelSchema)
        try store.close()
    }

    @Test func aDamagedSchemaRecordIsReportedWhenTheStoreOpens() throws {
        let directory = ModelStore(.tokyoCabinet)
        try directory.open([Album.self, Song.self]).close()
        let backend = try TokyoCabinetBackend(path: directory.path)
        var batch = WriteBatch()
        var content = Song.storedModelSchema?.encoded() ?? DataBuffer()
        content.bytes.removeLast()
        try batch.putSealed(content, forKey: StoredModelSchema.key(for: "Song"), in: Store.metadataTable)
        try backend.apply(batch)
        try backend.close()
        #expect {
            try directory.open([])
        } throws: { error in
            guard case let StoreError.corruptMetadata(key, _) = error else { return false }
            return key == "schema/Song"
        }
    }

    @Test(arguments: BackendKind.allCases)
    func aPoolsReadersSeeModelsAndTheirSchema(_ backend: BackendKind) async throws {
        let directory = ModelStore(backend)
        let pool = backend == .memory
            ? try StorePool(backend: MemoryBackend(), configuration: .init(durability: .noSync), classes: [Album.self, Song.self])
            : try StorePool(path: directory.path, configuration: .init(durability: .noSync), classes: [Album.self, Song.self])
        try await pool.write { store in
            let song = Song(title: "So What", seconds: 562)
            song.tags = ["modal"]
            try store.insert(song)
        }
        let (titles, tags, schema) = try await pool.read { store in
            let songs = try store.allObjects(of: Song.self)
            return (songs.map(\.title), songs.flatMap(\.tags), store.schema(ofClassNamed: "Song"))
        }
        #expect(titles == ["So What"] && tags == ["modal"])
        #expect(schema == Song.storedModelSchema)
        try await pool.close()
    }

    @Test(arguments: BackendKind.allCases)
    func indexesAndTextSearchWorkOnModels(_ backend: BackendKind) throws {
        let directory = ModelStore(backend)
        let blue = Album()
        blue.title = "Kind of Blue"
        do {
            let store = try directory.open([Album.self, Track.self])
            for (title, seconds) in [("So What", 562), ("Freddie Freeloader", 589), ("Blue in Green", 337)] {
                let track = Track()
                track.title = title
                track.seconds = UInt32(seconds)
                track.album = seconds > 500 ? blue : nil
                try store.insert(track)
            }
            try store.saveChanges()
            try store.close()
        }
        let store = try directory.open([Album.self, Track.self])
        let long = try store.objects(of: Track.self, where: \.seconds > 500, orderBy: [.ascending(\.seconds)])
        #expect(long.map(\.title) == ["So What", "Freddie Freeloader"])
        let album = try #require(long.first?.album)
        #expect(try store.objects(of: Track.self, where: \.album == album).count == 2)
        #expect(try store.objects(of: Track.self, matchingText: "green", forAttribute: "title").map(\.title) == ["Blue in Green"])
        try store.close()
    }
}
