// Class files in pages of 32 rowIDs (store format 3): records across page boundaries, pages
// emptied by deletes, reads inside reads of the same class, damaged page structure, and the
// upgrade of a format 2 store (one Tokyo Cabinet record per object).

import Foundation
import Testing
@testable import Larder

@Suite struct RecordPageTests {
    /// The number of page records in a class file.
    private func pageCount(_ store: Store, _ table: String) throws -> Int {
        try store.backend.recordCount(in: table)
    }

    @Test func recordsAcrossPagesSurviveUpdatesDeletesAndReopening() throws {
        let directory = TemporaryDirectory()
        do {
            let store = try directory.openStore()
            let (songs, _) = try insertLibrary(into: store, songs: 200, perPlaylist: 10)
            // 200 songs from rowID 1: pages 0 (rowIDs 1-31) to 6 (192-200).
            #expect(try pageCount(store, "Song") == 7)
            // Empty page 1 (rowIDs 32-63) entirely; change records on both sides of a boundary.
            for song in songs where (32 ... 63).contains(song.rowID) { try store.delete(song) }
            songs[30].title = "last of page 0"
            songs[63].title = "first of page 2"
            try store.saveChanges()
            #expect(try pageCount(store, "Song") == 6)
            #expect(try store.count(of: Song.self) == 168)
            try store.close()
        }
        let store = try directory.openStore()
        #expect(try store.count(of: Song.self) == 168)
        let titles = try store.allObjects(of: Song.self).map(\.title)
        #expect(titles.count == 168)
        #expect(titles[30] == "last of page 0")
        #expect(titles[31] == "first of page 2")
        #expect(titles.last == "Song 200")
        #expect(try store.object(of: Song.self, rowID: 40) == nil)
        #expect(try store.object(of: Song.self, rowID: 31)?.title == "last of page 0")
        #expect(try store.verify().isHealthy)
        // New songs fill the last page, then start new ones.
        for i in 1 ... 40 { try store.insert(Song(title: "new \(i)", seconds: 0)) }
        try store.saveChanges()
        #expect(try store.count(of: Song.self) == 208)
        #expect(try pageCount(store, "Song") == 7)
        #expect(try store.object(of: Song.self, rowID: 224)?.title == "new 24")
        try store.close()
    }

    @Test func aReadInsideAReadOfTheSameClassSeesTheRightRecords() throws {
        let directory = TemporaryDirectory()
        do {
            let store = try directory.openStore([ChainNode.self])
            var next: ChainNode?
            for value in (1 ... 100).reversed() {
                let node = ChainNode()
                node.value = UInt32(value)
                node.next = next
                next = node
            }
            try store.insert(try #require(next))
            try store.saveChanges()
            try store.close()
        }
        let store = try directory.openStore([ChainNode.self])
        // Node 5 decodes node 6 while its own page is being read (nested reads bypass the
        // page cache); the chain ends at the last node.
        var node = try store.object(of: ChainNode.self, rowID: 5)
        var seen: [UInt32] = []
        while let current = node {
            seen.append(current.value)
            #expect(current.nextValueWhenRead == current.next?.value)
            node = current.next
        }
        #expect(seen == (5 ... 100).map { UInt32($0) })
        #expect(try store.allObjects(of: ChainNode.self).map(\.value) == (1 ... 100).map { UInt32($0) })
    }

    @Test func aDamagedPageStructureIsATypedErrorForThatPageOnly() throws {
        let directory = TemporaryDirectory()
        let store = try directory.openStore()
        try insertLibrary(into: store, songs: 100, perPlaylist: 10)
        let kept = try #require(try store.object(of: Song.self, rowID: 33))   // read before the damage
        // Page 1 (rowIDs 32-63): a slot past the page; a size past the end; an unknown format.
        let key = RecordPage.key(forPage: 1)
        for damaged: [UInt8] in [[0x50, 40, 0], [0x50, 3, 0x7f, 1, 2], [0x51, 0, 1, 2]] {
            var batch = WriteBatch()
            batch.put(damaged, forKey: key, in: "Song")
            try store.backend.apply(batch)
            store.forgetCachedFileState()
            #expect(throws: StoreError.corruptRecord(class: "Song", rowID: 40)) { _ = try store.object(of: Song.self, rowID: 40) }
            #expect(try store.object(of: Song.self, rowID: 31)?.title == "Song 31")
            #expect(try store.object(of: Song.self, rowID: 64)?.title == "Song 64")
            #expect(throws: StoreError.corruptRecord(class: "Song", rowID: 32)) { _ = try store.allObjects(of: Song.self) }
            #expect(throws: StoreError.corruptRecord(class: "Song", rowID: 32)) { _ = try store.count(of: Song.self) }
            #expect(try store.verify().problems.contains(.corruptRecord(class: "Song", rowID: 32)), "\(damaged)")
        }
        // A save that must merge into the damaged page refuses, changes nothing, stays dirty.
        kept.title = "changed"
        let other = try #require(try store.object(of: Song.self, rowID: 70))
        other.title = "also changed"
        #expect(throws: StoreError.corruptRecord(class: "Song", rowID: 32)) { try store.saveChanges() }
        #expect(store.hasUnsavedChanges)
        store.forgetCachedFileState()
        store.discardChanges()
        #expect(try store.object(of: Song.self, rowID: 70)?.title == "Song 70")
    }

    @Test func aFormat2StoreIsUpgradedWhenAWriterOpensIt() throws {
        for key in [nil, "secret"] as [String?] {
            let directory = TemporaryDirectory()
            let configuration = Store.Configuration.quickKey(key)
            do {
                let store = try Store(path: directory.path, configuration: configuration)
                try store.register(Song.self)
                try store.register(Playlist.self)
                try insertLibrary(into: store, songs: 100, perPlaylist: 10)
                try store.delete(try #require(try store.object(of: Song.self, rowID: 50)))
                try store.saveChanges()
                try store.close()
            }
            #expect(try rewriteAsFormat2(directory, passphrase: key)["Song"] == 99)
            // A reader cannot upgrade: it says so.
            var readOnly = configuration
            readOnly.readOnly = true
            #expect(throws: StoreError.formatUpgradeRequired(version: 2)) {
                _ = try Store(path: directory.path, configuration: readOnly)
            }
            // A writer upgrades in one batch: every record moves into its page (unchanged, or
            // opened and sealed in a page sealed whole in an encrypted store).
            let store = try Store(path: directory.path, configuration: configuration)
            try store.register(Song.self)
            try store.register(Playlist.self)
            #expect(try store.backend.recordCount(in: "Song") == 4)   // pages 0-3 for rowIDs 1-100
            #expect(try store.count(of: Song.self) == 99)
            #expect(try store.object(of: Song.self, rowID: 50) == nil)
            #expect(try store.object(of: Song.self, rowID: 99)?.title == "Song 99")
            #expect(try store.object(of: Playlist.self, rowID: 10)?.songs.map(\.title).last == "Song 100")
            #expect(try store.verify().isHealthy)
            try store.close()
            let reader = try Store(path: directory.path, configuration: readOnly)
            try reader.register(Song.self)
            #expect(try reader.count(of: Song.self) == 99)
            try reader.close()
        }
    }

    @Test func aStaleFileOfAnInterruptedCreationIsRemoved() throws {
        let directory = TemporaryDirectory()
        try directory.openStore().close()
        let stale = directory.file("Song.tch.creating-99999")
        try Data(repeating: 0x41, count: 1_000).write(to: URL(fileURLWithPath: stale))
        let store = try directory.openStore()
        #expect(!FileManager.default.fileExists(atPath: stale))
        try store.insert(Song(title: "after", seconds: 1))
        try store.saveChanges()
        #expect(try store.object(of: Song.self, rowID: 1)?.title == "after")
    }

    /// A save writes its pages' entries in place (``RecordPage/writeEntry(slot:envelope:into:at:)``):
    /// the same bytes ``RecordPage/appendEntry(slot:envelope:to:)`` appends, for lengths of one,
    /// two and three varint bytes, in a room that starts at one byte and must grow.
    @Test func anEntryWrittenInPlaceIsTheEntryAppended() throws {
        var room = ByteRoom(capacity: 1)
        var length = 0
        var appended: [UInt8] = []
        for (slot, size) in [(0, 0), (1, 1), (5, 127), (6, 128), (17, 300), (31, 20_000)] {
            let envelope = (0 ..< size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ slot) }
            envelope.withUnsafeBytes {
                RecordPage.appendEntry(slot: slot, envelope: $0, to: &appended)
                RecordPage.writeEntry(slot: slot, envelope: $0, into: &room, at: &length)
            }
            #expect(length == appended.count)
            #expect(Array(room.bytes(length)) == appended)
        }
        // Read back as a page: every envelope at its slot.
        var page: [UInt8] = []
        RecordPage.beginPage(in: &page, layout: .objects)
        page.appendBytes(room.bytes(length))
        RecordPage.finishPage(&page, layout: .objects)
        var slots: [(UInt64, Int)] = []
        try page.withUnsafeBytes { bytes in
            try RecordPage.forEachRecord(in: bytes, number: 0, layout: .objects) { slots.append(($0, $1.count)) }
        }
        #expect(slots.map(\.0) == [0, 1, 5, 6, 17, 31])
        #expect(slots.map(\.1) == [0, 1, 127, 128, 300, 20_000])
    }

    @Test func rowIDRangesCountTheirMembers() {
        #expect(RowIDRanges().count == 0)
        #expect(RowIDRanges().union([1, 2, 3, 10]).count == 4)
        #expect(RowIDRanges(validating: [0 ... UInt64.max])?.count == Int.max)
    }
}
