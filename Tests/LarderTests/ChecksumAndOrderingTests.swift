// The record checksum (Larder's own CRC-32: tables, and blocks folded by carry-less
// multiplication where the processor has it) must equal zlib's for every length, alignment
// and split, or stores written before it would read as damaged; and allObjects must come back
// in rowID order whatever order the file holds them in.

import CZlib
import Testing
@testable import Larder
import LarderTestSupport

@Suite struct ChecksumAndOrderingTests {
    private func zlibCRC(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBufferPointer { UInt32(truncatingIfNeeded: CZlib.crc32(0, $0.baseAddress, UInt32($0.count))) }
    }

    @Test func checksumEqualsZlibForEveryLengthAndSplit() {
        var generator = SplitMix(seed: 42)
        for length in Array(0 ... 80) + [511, 512, 513, 4_000] {
            let bytes = (0 ..< length).map { _ in UInt8.random(in: 0 ... 255, using: &generator) }
            let expected = zlibCRC(bytes)
            #expect(bytes.withUnsafeBytes { Checksum.crc32($0) } == expected, "length \(length)")
            let split = length / 3
            let twoParts = bytes.withUnsafeBytes { all in
                Checksum.crc32(UnsafeRawBufferPointer(rebasing: all[..<split]), UnsafeRawBufferPointer(rebasing: all[split...]))
            }
            #expect(twoParts == expected, "length \(length) split at \(split)")
        }
        // The check value of CRC-32/ISO-HDLC.
        #expect(Array("123456789".utf8).withUnsafeBytes { Checksum.crc32($0) } == 0xCBF4_3926)
    }

    @Test func checksumEqualsZlibAtEveryAlignmentAndFromEveryState() {
        var generator = SplitMix(seed: 7)
        let bytes = (0 ..< 4_096 + 16).map { _ in UInt8.random(in: 0 ... 255, using: &generator) }
        var mismatches: [String] = []
        bytes.withUnsafeBytes { all in
            for length in 0 ... 4_096 {
                // Each length at one of the 16 alignments, and carried on from a running CRC.
                let start = length % 16
                let input = UnsafeRawBufferPointer(rebasing: all[start ..< start + length])
                let state = UInt32(truncatingIfNeeded: length &* 2_654_435_761)
                let expected = UInt32(truncatingIfNeeded: CZlib.crc32(UInt(state), input.baseAddress?.assumingMemoryBound(to: UInt8.self),
                                                                      UInt32(length)))
                // Folded where this processor can, and from the tables alone.
                for folding in Set([Checksum.canFold, false]) where Checksum.update(state, with: input, folding: folding) != expected {
                    mismatches.append("length \(length) at \(start), folding \(folding)")
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
        // Inputs of one repeated byte and of zeros: no remainder may cancel out.
        for byte: UInt8 in [0x00, 0xFF, 0x80, 0x01] {
            let run = [UInt8](repeating: byte, count: 1_000)
            #expect(run.withUnsafeBytes { Checksum.crc32($0) } == zlibCRC(run), "\(byte)")
        }
    }

    @Test func allObjectsComeBackInRowIDOrderAfterUpdatesMoveRecords() throws {
        let directory = TemporaryDirectory()
        let store = try directory.openStore()
        let (songs, _) = try insertLibrary(into: store, songs: 300, perPlaylist: 10)
        // Longer records move in a hash file: rewrite every other song with a long title.
        for (index, song) in songs.enumerated() where index % 2 == 0 {
            song.title = String(repeating: "long title ", count: 20) + "\(index)"
        }
        try store.delete(songs[7])
        try store.saveChanges()
        try store.close()

        let reopened = try directory.openStore()
        let fetched = try reopened.allObjects(of: Song.self)
        #expect(fetched.count == 299)
        #expect(fetched.map(\.rowID) == songs.map(\.rowID).filter { $0 != songs[7].rowID })
        #expect(fetched[0].title.hasPrefix("long title"))
        try reopened.close()
    }

    @Test func allObjectsPlacesPagesStoredOutOfRowIDOrderByRowIDEachOnce() throws {
        let directory = TemporaryDirectory()
        let store = try directory.openStore()
        // Three pages of 32 songs.
        let songs = (1 ... 96).map { Song(title: "Song \($0)", seconds: UInt32($0)) }
        for song in songs { try store.insert(song) }
        try store.saveChanges()
        // The first page grows: Tokyo Cabinet moves it past the others in the hash file.
        for song in songs.prefix(32) { song.title = String(repeating: "moved ", count: 30) + song.title }
        try store.saveChanges()
        try store.close()

        let reopened = try directory.openStore()
        var storageOrder: [UInt64] = []
        try reopened.forEachObject(of: Song.self) { storageOrder.append($0.rowID) }
        #expect(storageOrder != storageOrder.sorted(), "the test needs pages stored out of rowID order")
        // A live object before the fetch, a pending delete and a pending insert.
        let live = try #require(try reopened.object(of: Song.self, rowID: 40))
        try reopened.delete(try #require(try reopened.object(of: Song.self, rowID: 50)))
        let inserted = Song(title: "Inserted", seconds: 1)
        try reopened.insert(inserted)

        let fetched = try reopened.allObjects(of: Song.self)
        #expect(fetched.map(\.rowID) == Array(1 ... 49) + Array(51 ... 97))
        #expect(Set(fetched.map(ObjectIdentifier.init)).count == fetched.count)
        #expect(fetched[39] === live)
        #expect(fetched.last === inserted)
        #expect(fetched[0].title.hasPrefix("moved ") && fetched[0].title.hasSuffix("Song 1"))
        #expect(fetched[94].title == "Song 96" && fetched[94].seconds == 96)
        // Every object is the store's live instance of its rowID.
        for song in fetched { #expect(try reopened.object(of: Song.self, rowID: song.rowID) === song) }
        reopened.discardChanges()
        try reopened.close()
    }

    @Test func allObjectsKeepsAnObjectInsertedWhileTheFetchReads() throws {
        let directory = TemporaryDirectory()
        let store = try directory.openStore([Spawner.self])
        for name in ["a", "spawn", "c"] {
            let spawner = Spawner()
            spawner.name = name
            try store.insert(spawner)
        }
        try store.saveChanges()
        try store.close()

        // Reading "spawn" inserts a fourth object, whose rowID is past the fetch's table.
        let reopened = try directory.openStore([Spawner.self])
        let fetched = try reopened.allObjects(of: Spawner.self)
        #expect(fetched.map(\.rowID) == [1, 2, 3, 4])
        #expect(fetched.map(\.name) == ["a", "spawn", "c", "child"])
        reopened.discardChanges()
        try reopened.close()
    }

    @Test func allObjectsOfSparseRowIDsComeBackInRowIDOrder() throws {
        let directory = TemporaryDirectory()
        let store = try directory.openStore()
        let songs = (1 ... 9_000).map { Song(title: "Song \($0)", seconds: UInt32($0)) }
        for song in songs { try store.insert(song) }
        try store.saveChanges()
        // 10 of 9,000 left: too sparse for a table by rowID, so the fetch sorts instead.
        for (index, song) in songs.enumerated() where index % 900 != 0 { try store.delete(song) }
        try store.saveChanges()
        try store.close()

        let reopened = try directory.openStore()
        let fetched = try reopened.allObjects(of: Song.self)
        #expect(fetched.map(\.rowID) == stride(from: 1, through: 9_000, by: 900).map(UInt64.init))
        #expect(fetched.map(\.title) == stride(from: 1, through: 9_000, by: 900).map { "Song \($0)" })
        try reopened.close()
    }

    @Test func orderingFallsBackToSortingForSparseRowIDs() {
        let objects = [900_000, 3, 50_000, 1].map { rowID -> StoredObject in
            let object = StoredObject()
            object.rowID = UInt64(rowID)
            return object
        }
        var ordered = objects
        Store.orderByRowID(&ordered, rowIDLimit: 900_001)
        #expect(ordered.map(\.rowID) == [1, 3, 50_000, 900_000])
        var dense = objects.filter { $0.rowID < 100 }.reversed() as [StoredObject]
        Store.orderByRowID(&dense, rowIDLimit: 100)
        #expect(dense.map(\.rowID) == [1, 3])
        #expect(ordered.allSatisfy { object in objects.contains { $0 === object } })
    }
}

/// Inserts a new object of its own class when it reads a record named "spawn", as any
/// `readContent` may.
private final class Spawner: StoredObject {
    @Stored var name = ""

    override func writeContent(to buffer: inout DataBuffer) {
        buffer.write(name)
    }

    override func readContent(from buffer: inout DataBuffer, in store: Store) throws {
        name = try buffer.readString()
        guard name == "spawn" else { return }
        let child = Spawner()
        child.name = "child"
        try store.insert(child)
    }
}
