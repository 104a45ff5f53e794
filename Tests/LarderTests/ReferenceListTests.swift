// ReferenceList: lazy ordered relationships that make objects only for the elements used.

import Foundation
import LarderTestSupport
import Testing
@testable import Larder

final class Album: StoredObject {
    @Stored var title = ""
    @Stored var tracks: ReferenceList<Song> = []

    override func writeContent(to buffer: inout DataBuffer) {
        buffer.write(title)
        buffer.writeReferences(tracks)
    }

    override func readContent(from buffer: inout DataBuffer, in store: Store) throws {
        title = try buffer.readString()
        tracks = try buffer.readReferenceList(to: Song.self, in: store)
    }
}

@Suite struct ReferenceListTests {
    private let types: [StoredObject.Type] = [Song.self, Album.self]

    @Test(arguments: BackendKind.withEtcd) func aLazyListRoundTripsInOrderAndMakesOnlyTheObjectsUsed(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory(backend: backend)
        do {
            let store = try directory.openStore(types)
            let album = Album()
            album.title = "Long"
            album.tracks = ReferenceList((1 ... 1_000).map { Song(title: "Track \($0)", seconds: UInt32($0)) })
            try store.insert(album)
            try store.saveChanges()
            #expect(try store.count(of: Song.self) == 1_000)
            try store.close()
        }
        let store = try directory.openStore(types)
        let album = try #require(try store.object(of: Album.self, rowID: 1))
        #expect(album.tracks.count == 1_000)
        #expect(album.tracks.rowID(at: 999) == 1_000)
        #expect(store.entriesByName["Song"]?.allLiveObjects().isEmpty == true)   // nothing made yet
        let tenth = album.tracks[9]
        #expect(tenth.title == "Track 10")
        #expect(album.tracks[9] === tenth)   // uniqued while alive
        #expect(store.entriesByName["Song"]?.allLiveObjects().count == 1)
        #expect(album.tracks.objects.map(\.seconds) == Array(1 ... 1_000))
    }

    @Test(arguments: BackendKind.withEtcd) func editsAreSavedAndNewObjectsInsertedByTheSave(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory(backend: backend)
        do {
            let store = try directory.openStore(types)
            let album = Album()
            album.tracks = [Song(title: "a", seconds: 1), Song(title: "b", seconds: 2), Song(title: "c", seconds: 3)]
            try store.insert(album)
            try store.saveChanges()
            try store.close()
        }
        do {
            let store = try directory.openStore(types)
            let album = try #require(try store.object(of: Album.self, rowID: 1))
            let b = album.tracks[1]
            album.tracks.removeAll(referringTo: b)
            album.tracks.insert(Song(title: "new first", seconds: 0), at: 0)
            album.tracks.append(Song(title: "new last", seconds: 9))
            let removed = album.tracks.remove(at: 1)
            #expect(removed.title == "a")
            #expect(store.hasUnsavedChanges)
            try store.saveChanges()
            try store.close()
        }
        let store = try directory.openStore(types)
        let album = try #require(try store.object(of: Album.self, rowID: 1))
        #expect(album.tracks.map(\.title) == ["new first", "c", "new last"])
        #expect(try store.verify().isHealthy)
    }

    @Test(arguments: BackendKind.withEtcd) func referencesToDeletedRowsAreLeftOutWhenRead(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory(backend: backend)
        let store = try directory.openStore(types)
        let album = Album()
        album.tracks = ReferenceList((1 ... 5).map { Song(title: "\($0)", seconds: 0) })
        try store.insert(album)
        try store.saveChanges()
        try store.delete(album.tracks[2])   // no delete rule: the album still lists rowID 3
        try store.saveChanges()
        try store.close()
        let reopened = try directory.openStore(types)
        let read = try #require(try reopened.object(of: Album.self, rowID: 1))
        #expect(read.tracks.map(\.title) == ["1", "2", "4", "5"])
    }

    @Test(arguments: BackendKind.withEtcd) func listsAndArraysShareTheirFormat(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory(backend: backend)
        let store = try directory.openStore([Song.self, Playlist.self, Album.self])
        let songs = (1 ... 3).map { Song(title: "\($0)", seconds: 0) }
        for song in songs { try store.insert(song) }
        var fromArray = DataBuffer()
        fromArray.writeReferences(songs)
        var fromList = DataBuffer()
        fromList.writeReferences(ReferenceList(songs))
        #expect(fromArray.bytes == fromList.bytes)
        var reader = DataBuffer(bytes: fromArray.bytes)
        let list = try reader.readReferenceList(to: Song.self, in: store)
        let sameObjects = list.objects.elementsEqual(songs, by: ===)
        #expect(sameObjects)
    }

    @Test(arguments: BackendKind.withEtcd) func damagedListsThrowTheVarIntErrorAtTheDamagedReference(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory(backend: backend)
        let store = try directory.openStore([Song.self, Playlist.self, Album.self])
        let songs = (1 ... 200).map { Song(title: "\($0)", seconds: 0) }
        for song in songs { try store.insert(song) }
        var buffer = DataBuffer()
        buffer.writeReferences(songs)   // count 200 (2 bytes), rowIDs 1...127 (1 byte), 128... (2 bytes)
        // Cut inside the two-byte varint of rowID 128: offset 2 + 127.
        var truncated = DataBuffer(bytes: Array(buffer.bytes[..<(2 + 127 + 1)]))
        truncated.bytes[0] = 0x80   // claim 128 references (varint 0x80 0x01), as many as bytes remain
        truncated.bytes[1] = 0x01
        #expect(throws: DataBufferError.truncated(offset: 2 + 127, needed: 2, available: 1)) {
            _ = try truncated.readReferenceList(to: Song.self, in: store)
        }
        #expect(truncated.readPosition == 2 + 127)
        var copy = DataBuffer(bytes: truncated.bytes)
        #expect(throws: DataBufferError.truncated(offset: 2 + 127, needed: 2, available: 1)) {
            _ = try copy.readReferences(to: Song.self, in: store)
        }
        // Eleven continuation bytes: not a varint.
        var malformed = DataBuffer(bytes: [2, 5] + Array(repeating: 0xff, count: 11))
        #expect(throws: DataBufferError.malformedVarInt(offset: 2)) {
            _ = try malformed.readReferenceList(to: Song.self, in: store)
        }
        // Intact, the list reads every reference in order, and the cursor ends after it.
        var intact = DataBuffer(bytes: buffer.bytes + [42])
        let list = try intact.readReferenceList(to: Song.self, in: store)
        #expect(list.count == 200 && list.rowID(at: 127) == songs[127].rowID && list.rowID(at: 199) == songs[199].rowID)
        #expect(try intact.readUInt8() == 42)
    }
}

/// Reads another object's field while decoding itself: a nested fault-in inside readContent.
final class Liner: StoredObject {
    @Stored var note = ""
    @Stored var song: Song?
    /// Copied from the song while reading: touches the song's fault during readContent.
    var songTitleWhenRead = ""

    override func writeContent(to buffer: inout DataBuffer) {
        buffer.writeReference(song)
        buffer.write(note)
    }

    override func readContent(from buffer: inout DataBuffer, in store: Store) throws {
        song = try buffer.readReference(to: Song.self, in: store)
        songTitleWhenRead = song?.title ?? ""
        note = try buffer.readString()
    }
}

@Suite struct NestedReadTests {
    @Test(arguments: BackendKind.withEtcd) func readContentMayFaultInAnotherObject(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory(backend: backend)
        do {
            let store = try directory.openStore([Song.self, Liner.self])
            let liner = Liner()
            liner.note = "recorded in one take"
            liner.song = Song(title: "Flamenco Sketches", seconds: 566)
            try store.insert(liner)
            try store.saveChanges()
            try store.close()
        }
        let store = try directory.openStore([Song.self, Liner.self])
        let liner = try #require(try store.object(of: Liner.self, rowID: 1))
        #expect(liner.songTitleWhenRead == "Flamenco Sketches")
        #expect(liner.note == "recorded in one take")
        let again = try #require(try store.object(of: Song.self, rowID: 1))
        #expect(again.seconds == 566)
    }
}
