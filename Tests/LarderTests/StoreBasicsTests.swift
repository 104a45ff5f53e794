// Inserting, saving, reopening, counting and fetching objects.

import Foundation
import LarderTestSupport
import Testing
@testable import Larder

@Suite struct StoreBasicsTests {
    @Test(arguments: BackendKind.withEtcd) func insertedObjectsGetAscendingRowIDsFromOne(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory(backend: backend)
        let store = try directory.openStore()
        let songs = (1 ... 3).map { Song(title: "S\($0)", seconds: UInt32($0)) }
        #expect(songs.map(\.rowID) == [0, 0, 0])
        for song in songs { try store.insert(song) }
        #expect(songs.map(\.rowID) == [1, 2, 3])
        #expect(songs.allSatisfy { $0.store === store })
        #expect(store.hasUnsavedChanges)
        try store.saveChanges()
        #expect(!store.hasUnsavedChanges)
    }

    @Test(arguments: BackendKind.withEtcd) func savedObjectsSurviveReopening(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory(backend: backend)
        do {
            let store = try directory.openStore()
            for i in 1 ... 2_000 {
                try store.insert(Song(title: "Song \(i)", seconds: UInt32(i * 3)))
            }
            try store.saveChanges()
            try store.close()
        }
        let store = try directory.openStore()
        #expect(try store.count(of: Song.self) == 2_000)
        let songs = try store.allObjects(of: Song.self)
        #expect(songs.count == 2_000)
        #expect(songs.map(\.rowID) == Array(1 ... 2_000))
        for (index, song) in songs.enumerated() {
            #expect(song.title == "Song \(index + 1)")
            #expect(song.seconds == UInt32((index + 1) * 3))
        }
        let song = try #require(try store.object(of: Song.self, rowID: 1_234))
        #expect(song.title == "Song 1234")
        #expect(try store.object(of: Song.self, rowID: 2_001) == nil)
        #expect(try store.object(of: Song.self, rowID: 0) == nil)
    }

    @Test(arguments: BackendKind.withEtcd) func everyValueTypeRoundTripsThroughTheStore(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory(backend: backend)
        let uuid = UUID()
        let nanPayload = Double(bitPattern: 0x7ff8_0000_0000_1234)
        do {
            let store = try directory.openStore([Everything.self])
            let object = Everything()
            object.u8 = 255
            object.i64 = .min
            object.int = .max
            object.flag = true
            object.float = -1.5
            object.double = nanPayload
            object.text = "Café ☕ 日本語"
            object.optionalText = ""
            object.data = Data()
            object.date = Date(timeIntervalSinceReferenceDate: 0)
            object.uuid = uuid
            object.blob = [0, 1, 254, 255]
            try store.insert(object)
            try store.saveChanges()
            try store.close()
        }
        let store = try directory.openStore([Everything.self])
        let object = try #require(try store.object(of: Everything.self, rowID: 1))
        #expect(object.u8 == 255)
        #expect(object.i64 == .min)
        #expect(object.int == .max)
        #expect(object.flag)
        #expect(object.float == -1.5)
        #expect(object.double.bitPattern == nanPayload.bitPattern)
        #expect(object.text == "Café ☕ 日本語")
        #expect(object.optionalText == "")
        #expect(object.data == Data())
        #expect(object.date == Date(timeIntervalSinceReferenceDate: 0))
        #expect(object.uuid == uuid)
        #expect(object.blob == [0, 1, 254, 255])
    }

    @Test(arguments: BackendKind.withEtcd) func countsAndFetchesIncludeUnsavedInsertsAndExcludeUnsavedDeletes(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory(backend: backend)
        let store = try directory.openStore()
        for i in 1 ... 10 { try store.insert(Song(title: "\(i)", seconds: 0)) }
        try store.saveChanges()
        let extra = Song(title: "extra", seconds: 0)
        try store.insert(extra)
        let doomed = try #require(try store.object(of: Song.self, rowID: 4))
        try store.delete(doomed)
        #expect(try store.count(of: Song.self) == 10)
        let titles = try store.allObjects(of: Song.self).map(\.title)
        #expect(titles == ["1", "2", "3", "5", "6", "7", "8", "9", "10", "extra"])
        #expect(try store.object(of: Song.self, rowID: 4) == nil)
        #expect(try store.object(of: Song.self, rowID: 11) === extra)
    }

    @Test func aNewClassKnowsItsCountWithoutReadingItsFile() throws {
        let directory = TemporaryDirectory()
        let store = try directory.openStore()
        for i in 1 ... 100 { try store.insert(Song(title: "\(i)", seconds: 0)) }
        try store.saveChanges()
        try store.delete(try #require(try store.object(of: Song.self, rowID: 7)))
        try store.saveChanges()
        // Page 0 overwritten behind the store's back: a count that read the file would see it.
        var batch = WriteBatch()
        batch.put([0x50, 40, 0], forKey: RecordPage.key(forPage: 0), in: "Song")
        try store.backend.apply(batch)
        #expect(try store.count(of: Song.self) == 99)
        #expect(throws: StoreError.corruptRecord(class: "Song", rowID: 0)) { _ = try store.allObjects(of: Song.self) }
        try store.close()
        // Reopened, a class with rowIDs handed out counts its file.
        let reopened = try directory.openStore()
        #expect(throws: StoreError.corruptRecord(class: "Song", rowID: 0)) { _ = try reopened.count(of: Song.self) }
    }

    @Test(arguments: BackendKind.withEtcd) func forEachObjectVisitsEveryObjectAndKeepsNoneAlive(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory(backend: backend)
        let store = try directory.openStore()
        for i in 1 ... 5_000 { try store.insert(Song(title: "Song \(i)", seconds: UInt32(i))) }
        try store.saveChanges()
        try store.close()

        let reopened = try directory.openStore()
        var total: UInt64 = 0
        var visited = 0
        weak var firstSeen: Song?
        try reopened.forEachObject(of: Song.self) { song in
            if visited == 0 { firstSeen = song }
            visited += 1
            total += UInt64(song.seconds)
        }
        #expect(visited == 5_000)
        #expect(total == UInt64(5_000 * 5_001 / 2))
        // Nothing retained the objects: the identity map does not keep them alive.
        #expect(firstSeen == nil)
        let song = try #require(try reopened.object(of: Song.self, rowID: 1))
        #expect(song.title == "Song 1")
    }

    @Test(arguments: BackendKind.withEtcd) func saveInsideForEachObjectIsRefused(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory(backend: backend)
        let store = try directory.openStore()
        try store.insert(Song(title: "a", seconds: 1))
        try store.saveChanges()
        #expect(throws: StoreError.saveDuringEnumeration) {
            try store.forEachObject(of: Song.self) { song in
                song.title = "b"
                try store.saveChanges()
            }
        }
        try store.saveChanges()
        store.discardChanges()
    }

    @Test(arguments: BackendKind.withEtcd) func errorsThrownByTheEnumerationBodyStopItAndPropagate(_ backend: BackendKind) throws {
        struct Stop: Error {}
        let directory = TemporaryDirectory(backend: backend)
        let store = try directory.openStore()
        for i in 1 ... 100 { try store.insert(Song(title: "\(i)", seconds: 0)) }
        try store.saveChanges()
        var visited = 0
        #expect(throws: Stop.self) {
            try store.forEachObject(of: Song.self) { _ in
                visited += 1
                if visited == 10 { throw Stop() }
            }
        }
        #expect(visited == 10)
    }

    @Test(arguments: BackendKind.withEtcd) func closeWithUnsavedChangesThrowsAndKeepsThem(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory(backend: backend)
        let store = try directory.openStore()
        let song = Song(title: "keep me", seconds: 1)
        try store.insert(song)
        #expect(throws: StoreError.unsavedChanges) { try store.close() }
        try store.saveChanges()
        try store.close()
        #expect(song.store == nil)
        #expect(throws: StoreError.closed) { try store.count(of: Song.self) }
        let reopened = try directory.openStore()
        #expect(try reopened.object(of: Song.self, rowID: 1)?.title == "keep me")
    }

    @Test(arguments: BackendKind.withEtcd) func aStoreThatGoesAwayDetachesItsObjects(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory(backend: backend)
        var song: Song?
        do {
            let store = try directory.openStore()
            try store.insert(Song(title: "x", seconds: 1))
            try store.saveChanges()
            song = try store.object(of: Song.self, rowID: 1)
        }
        #expect(song?.store == nil)
        #expect(song?.title == "x")
        // The files were closed: the directory opens again in this process.
        let store = try directory.openStore()
        #expect(try store.count(of: Song.self) == 1)
    }
}
