// Object queries and indexes: the issue's API as written, each operator through an index and a
// scan, orders with nil, limits and offsets, unique indexes (nothing written on a violation),
// indexes built and dropped at registration, saved-state semantics, verify and rebuild, and
// encrypted index tables that hold no plaintext value.

import Foundation
import LarderTestSupport
import Testing
@testable import Larder

/// An album, referenced by songs.
final class QueryAlbum: StoredObject {
    @Stored var name = ""

    convenience init(_ name: String) {
        self.init()
        self.name = name
    }

    override func writeContent(to buffer: inout DataBuffer) { buffer.write(name) }
    override func readContent(from buffer: inout DataBuffer, in store: Store) throws { name = try buffer.readString() }
}

/// The fields of the test songs, written and read by hand; QuerySong indexes them, PlainQuerySong
/// (the same records) does not.
class QuerySongFields: StoredObject {
    @Stored var title = ""
    @Stored var seconds: UInt32 = 0
    @Stored var rating: Double? = nil
    @Stored var album: QueryAlbum? = nil
    @Stored var isrc = ""

    override class var storageName: String { "QuerySong" }

    override func writeContent(to buffer: inout DataBuffer) {
        buffer.write(title)
        buffer.write(seconds)
        buffer.write(rating)
        buffer.writeReference(album)
        buffer.write(isrc)
    }

    override func readContent(from buffer: inout DataBuffer, in store: Store) throws {
        title = try buffer.readString()
        seconds = try buffer.readUInt32()
        rating = try buffer.readOptionalDouble()
        album = try buffer.readReference(to: QueryAlbum.self, in: store)
        isrc = try buffer.readString()
    }
}

/// The issue's Song, with its three indexes.
final class QuerySong: QuerySongFields {
    override class var indexes: [ObjectIndex] {
        [ObjectIndex(\QuerySong.seconds),
         ObjectIndex(\QuerySong.album, \QuerySong.title),
         ObjectIndex(\QuerySong.isrc, unique: true)]
    }

    convenience init(_ title: String, seconds: UInt32, rating: Double? = nil, album: QueryAlbum? = nil, isrc: String = "") {
        self.init()
        self.title = title
        self.seconds = seconds
        self.rating = rating
        self.album = album
        self.isrc = isrc.isEmpty ? "ISRC-\(title)" : isrc
    }
}

/// The same records as QuerySong without indexes: every query scans.
final class PlainQuerySong: QuerySongFields {}

/// Fields that hold the same values on a new object, for naming key paths.
final class LookAlikeFields: StoredObject {
    @Stored var first = 0
    @Stored var second = 0
    @Stored var third: Int? = nil
    @Stored var fourth: Int? = nil
    @Stored var album: QueryAlbum? = nil
    @Stored var other: QueryAlbum? = nil
    var plain = ""
}

@Suite struct ObjectQueryTests {
    @Test func keyPathsAreNamedByTheFieldTheyRead() {
        #expect(KeyPathName.name(of: \LookAlikeFields.first) == "first")
        #expect(KeyPathName.name(of: \LookAlikeFields.second) == "second")
        #expect(KeyPathName.name(of: \LookAlikeFields.fourth) == "fourth")
        #expect(KeyPathName.name(of: \LookAlikeFields.third) == "third")
        #expect(KeyPathName.name(of: \LookAlikeFields.other) == "other")
        #expect(KeyPathName.name(of: \LookAlikeFields.album) == "album")
        #expect(KeyPathName.name(of: \LookAlikeFields.plain) == "plain")
        #expect(KeyPathName.name(of: \QuerySong.isrc) == "isrc")
        #expect(ObjectIndex(\LookAlikeFields.second, \LookAlikeFields.other).name == "second,other")
        #expect(ObjectIndex(\LookAlikeFields.first, name: "byFirst").name == "byFirst")
        // A computed property names no field: such an index needs a name.
        #expect(ObjectIndex(\LookAlikeFields.plain.count).name == nil)
    }

    /// A store with two albums and eight songs, saved.
    func makeStore(_ directory: TemporaryDirectory, configuration: Store.Configuration = .init()) throws
        -> (Store, kindOfBlue: QueryAlbum, other: QueryAlbum) {
        let store = try directory.openStore([QueryAlbum.self, QuerySong.self], configuration: configuration)
        let kindOfBlue = QueryAlbum("Kind of Blue"), other = QueryAlbum("Other")
        try store.insert(kindOfBlue)
        try store.insert(other)
        let songs = [
            QuerySong("So What", seconds: 562, rating: 5, album: kindOfBlue, isrc: "USRC17607839"),
            QuerySong("Freddie Freeloader", seconds: 586, rating: 4, album: kindOfBlue),
            QuerySong("Blue in Green", seconds: 337, rating: nil, album: kindOfBlue),
            QuerySong("All Blues", seconds: 693, rating: 4.5, album: kindOfBlue),
            QuerySong("Flamenco Sketches", seconds: 566, rating: nil, album: kindOfBlue),
            QuerySong("Solar", seconds: 60, rating: 3, album: other),
            QuerySong("Song for My Father", seconds: 120, rating: nil, album: nil),
            QuerySong("Airegin", seconds: 300, rating: 2, album: other),
        ]
        for song in songs { try store.insert(song) }
        try store.saveChanges()
        return (store, kindOfBlue, other)
    }

    @Test(arguments: BackendKind.withEtcd) func theIssuesQueriesReturnWhatTheyAskFor(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory(backend: backend)
        let (store, kindOfBlue, _) = try makeStore(directory)
        let long = try store.objects(of: QuerySong.self, where: \.seconds > 300)
        #expect(long.map(\.title) == ["So What", "Freddie Freeloader", "Blue in Green", "All Blues", "Flamenco Sketches"])
        let page = try store.objects(of: QuerySong.self, where: \.album == kindOfBlue && \.seconds >= 60,
                                     orderBy: [.ascending(\.title)], limit: 2, offset: 1)
        #expect(page.map(\.title) == ["Blue in Green", "Flamenco Sketches"])
        let n = try store.count(of: QuerySong.self, where: .between(\.seconds, 100, 350) || .isNil(\.rating))
        #expect(n == 4)   // 337, 120, 300, and the nil ratings 337, 566, 120 (337 and 120 once)
        let one = try store.firstObject(of: QuerySong.self, where: \.isrc == "USRC17607839")
        #expect(one?.title == "So What")
        let some = try store.objects(of: QuerySong.self, where: .in(\.seconds, [60, 120, 562]) && !.hasPrefix(\.title, "So"),
                                     orderBy: [.descending(\.rating), .ascending(\.title)])
        #expect(some.isEmpty)
        let others = try store.objects(of: QuerySong.self, where: .in(\.seconds, [60, 120, 562, 693]),
                                       orderBy: [.descending(\.rating), .ascending(\.title)])
        // nil first in both directions, then 4.5, 5 descending.
        #expect(others.map(\.title) == ["Song for My Father", "So What", "All Blues", "Solar"])
        let explanation = try store.explain(of: QuerySong.self, where: \.seconds > 300)
        #expect(explanation.index == "seconds")
        #expect(explanation.indexedConditions == ["seconds > 300"])
        #expect(explanation.description == "QuerySong: index \"seconds\" (seconds > 300), 1 range, counted from the index")
        // Uniquing holds: the query's instances are the store's.
        #expect(one === (try store.object(of: QuerySong.self, rowID: one?.rowID ?? 0)))
    }

    @Test(arguments: BackendKind.withEtcd) func everyOperatorAgreesBetweenIndexAndScan(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory(backend: backend)
        let (store, kindOfBlue, other) = try makeStore(directory)
        try store.close()
        let indexed = try directory.openStore([QueryAlbum.self, QuerySong.self])
        let blue = try #require(try indexed.object(of: QueryAlbum.self, rowID: kindOfBlue.rowID))
        let second = try #require(try indexed.object(of: QueryAlbum.self, rowID: other.rowID))
        func titles(_ songs: [QuerySong]) -> [String] { songs.map(\.title) }
        let indexedCases: [ObjectPredicate<QuerySong>] = [
            \.seconds == 562, \.seconds != 562, \.seconds < 300, \.seconds <= 300, \.seconds > 566, \.seconds >= 566,
            .between(\.seconds, 120, 337), .in(\.seconds, [60, 693, 1]), .hasPrefix(\.title, "So"), .isNil(\.rating),
            \.rating == nil, \.rating != nil, \.rating > 3.0, \.album == blue, \.album == second, \.album == nil,
            \.album == blue && \.title >= "F", \.album == blue && .hasPrefix(\.title, "F"), .isNil(\.album) || \.seconds < 100,
            !(\.seconds > 300), \.isrc == "ISRC-Solar", \.title < "B",
        ]
        let expected: [[String]] = [
            ["So What"], ["Freddie Freeloader", "Blue in Green", "All Blues", "Flamenco Sketches", "Solar", "Song for My Father", "Airegin"],
            ["Solar", "Song for My Father"], ["Solar", "Song for My Father", "Airegin"], ["Freddie Freeloader", "All Blues"],
            ["Freddie Freeloader", "All Blues", "Flamenco Sketches"], ["Blue in Green", "Song for My Father", "Airegin"],
            ["All Blues", "Solar"], ["So What", "Solar", "Song for My Father"], ["Blue in Green", "Flamenco Sketches", "Song for My Father"],
            ["Blue in Green", "Flamenco Sketches", "Song for My Father"], ["So What", "Freddie Freeloader", "All Blues", "Solar", "Airegin"],
            ["So What", "Freddie Freeloader", "All Blues"],
            ["So What", "Freddie Freeloader", "Blue in Green", "All Blues", "Flamenco Sketches"], ["Solar", "Airegin"], ["Song for My Father"],
            ["So What", "Freddie Freeloader", "Flamenco Sketches"], ["Freddie Freeloader", "Flamenco Sketches"],
            ["Solar", "Song for My Father"], ["Solar", "Song for My Father", "Airegin"], ["Solar"], ["All Blues", "Airegin"],
        ]
        for (predicate, titlesExpected) in zip(indexedCases, expected) {
            #expect(titles(try indexed.objects(of: QuerySong.self, where: predicate)) == titlesExpected, "\(predicate.summary)")
            #expect(try indexed.count(of: QuerySong.self, where: predicate) == titlesExpected.count, "\(predicate.summary)")
        }
        #expect(try indexed.explain(of: QuerySong.self, where: \.album == blue && \.title >= "F").index == "album,title")
        #expect(try indexed.explain(of: QuerySong.self, where: \.title < "B").index == nil)
        #expect(try indexed.explain(of: QuerySong.self, where: \.seconds != 562).index == nil)
        try indexed.close()
    }

    @Test(arguments: BackendKind.withEtcd) func ordersLimitsAndOffsetsThroughTheIndexMatchASort(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory(backend: backend)
        let (store, kindOfBlue, _) = try makeStore(directory)
        let all = try store.objects(of: QuerySong.self)
        for descending in [false, true] {
            let order: [ObjectOrder<QuerySong>] = [descending ? .descending(\.seconds) : .ascending(\.seconds)]
            let sorted = all.sorted { descending ? $0.seconds > $1.seconds : $0.seconds < $1.seconds }.map(\.title)
            for limit in [1, 3, 8, 20] {
                for offset in [0, 2, 7] {
                    let found = try store.objects(of: QuerySong.self, orderBy: order, limit: limit, offset: offset)
                    #expect(found.map(\.title) == Array(sorted.dropFirst(offset).prefix(limit)))
                }
            }
            #expect(try store.explain(of: QuerySong.self, orderBy: order, limit: 3).readsInOrder)
        }
        let byTitle = try store.objects(of: QuerySong.self, where: \.album == kindOfBlue, orderBy: [.descending(\.title)], limit: 2)
        #expect(byTitle.map(\.title) == ["So What", "Freddie Freeloader"])
        #expect(try store.explain(of: QuerySong.self, where: \.album == kindOfBlue, orderBy: [.descending(\.title)], limit: 2).readsInOrder)
        let ratings = try store.objects(of: QuerySong.self, orderBy: [.ascending(\.rating), .descending(\.title)])
        #expect(ratings.map(\.title) == ["Song for My Father", "Flamenco Sketches", "Blue in Green", "Airegin", "Solar",
                                         "Freddie Freeloader", "All Blues", "So What"])
    }

    @Test(arguments: BackendKind.withEtcd) func aUniqueViolationThrowsAndWritesNothing(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory(backend: backend)
        let (store, _, _) = try makeStore(directory)
        let copy = QuerySong("Copy", seconds: 1, isrc: "USRC17607839")
        let fine = QuerySong("Fine", seconds: 2)
        try store.insert(copy)
        try store.insert(fine)
        #expect(throws: StoreError.uniqueIndexViolation(class: "QuerySong", index: "isrc")) { try store.saveChanges() }
        // Fixed, the same unit of work saves.
        copy.isrc = "NEW"
        try store.saveChanges()
        #expect(try store.count(of: QuerySong.self, where: \.isrc == "NEW") == 1)
        // Two objects of one save taking the same value, and an update onto a taken value.
        let first = QuerySong("A", seconds: 3, isrc: "SAME"), second = QuerySong("B", seconds: 4, isrc: "SAME")
        try store.insert(first)
        try store.insert(second)
        #expect(throws: StoreError.uniqueIndexViolation(class: "QuerySong", index: "isrc")) { try store.saveChanges() }
        store.discardChanges()
        fine.isrc = "NEW"
        #expect(throws: StoreError.uniqueIndexViolation(class: "QuerySong", index: "isrc")) { try store.saveChanges() }
        // Swapping values in one save is allowed: the old entries go with it.
        copy.isrc = "ISRC-Fine"
        fine.isrc = "NEW"
        try store.saveChanges()
        try store.close()
        let reopened = try directory.openStore([QueryAlbum.self, QuerySong.self])
        #expect(try reopened.count(of: QuerySong.self) == 10)
        #expect(try reopened.firstObject(of: QuerySong.self, where: \.isrc == "NEW")?.title == "Fine")
        #expect(try reopened.firstObject(of: QuerySong.self, where: \.isrc == "ISRC-Fine")?.title == "Copy")
        #expect(try reopened.verify().isHealthy)
    }

    @Test(arguments: BackendKind.withEtcd) func queriesReadTheSavedState(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory(backend: backend)
        let (store, _, _) = try makeStore(directory)
        let solar = try #require(try store.firstObject(of: QuerySong.self, where: \.title == "Solar"))
        solar.seconds = 999
        try store.insert(QuerySong("Unsaved", seconds: 999))
        let airegin = try #require(try store.firstObject(of: QuerySong.self, where: \.title == "Airegin"))
        try store.delete(airegin)
        // Tested on its saved seconds (60), returned as the live instance.
        #expect(try store.objects(of: QuerySong.self, where: \.seconds == 60).first === solar)
        #expect(try store.objects(of: QuerySong.self, where: \.seconds == 999).isEmpty)
        #expect(try store.objects(of: QuerySong.self, where: \.seconds == 300).isEmpty)
        #expect(try store.count(of: QuerySong.self, where: \.seconds < 1_000) == 7)
        try store.saveChanges()
        #expect(try store.objects(of: QuerySong.self, where: \.seconds == 999).map(\.title).sorted() == ["Solar", "Unsaved"])
        #expect(try store.count(of: QuerySong.self, where: \.seconds < 1_000) == 8)
        #expect(try store.verify().isHealthy)
    }

    @Test func indexesAreBuiltAndDroppedWhenTheClassDeclaresThem() throws {
        let directory = TemporaryDirectory()
        let store = try Store(path: directory.path)
        try store.register(QueryAlbum.self)
        try store.register(PlainQuerySong.self)
        let album = QueryAlbum("A")
        try store.insert(album)
        for seconds in 1 ... 100 {
            let song = PlainQuerySong()
            song.title = "Song \(seconds)"
            song.seconds = UInt32(seconds)
            song.isrc = "I\(seconds)"
            song.album = seconds.isMultiple(of: 2) ? album : nil
            try store.insert(song)
        }
        try store.saveChanges()
        #expect(try store.explain(of: PlainQuerySong.self, where: \.seconds > 90).index == nil)
        try store.close()
        // The same class file, now declaring indexes: built at registration.
        let indexed = try Store(path: directory.path)
        try indexed.register(QueryAlbum.self)
        try indexed.register(QuerySong.self)
        #expect(try indexed.explain(of: QuerySong.self, where: \.seconds > 90).index == "seconds")
        #expect(try indexed.count(of: QuerySong.self, where: \.seconds > 90) == 10)
        #expect(try indexed.objects(of: QuerySong.self, where: \.seconds > 95).map(\.title) == (96 ... 100).map { "Song \($0)" })
        #expect(try indexed.verify().isHealthy)
        let tables = try indexTables(of: indexed, in: directory)
        #expect(tables.count == 3 && tables.allSatisfy { $0.value > 0 })
        try indexed.close()
        // Without them again: dropped (their tables emptied, the record gone).
        let plain = try Store(path: directory.path)
        try plain.register(QueryAlbum.self)
        try plain.register(PlainQuerySong.self)
        #expect(try indexTables(of: plain, in: directory).values.allSatisfy { $0 == 0 })
        let key = ObjectIndexRecord.key(for: "QuerySong")
        try plain.backend.readValue(forKey: key, in: Store.metadataTable) { value in
            var buffer = try key.withUnsafeBytes { try plain.openMetadata(#require(value), key: $0, name: "") }
            let record = try ObjectIndexRecord(decoding: &buffer)
            #expect(record.indexes.isEmpty && record.nextNumber == 4)
        }
        try plain.close()
    }

    @Test func aNewUniqueIndexOverDuplicatesRefusesRegistration() throws {
        let directory = TemporaryDirectory()
        let store = try Store(path: directory.path)
        try store.register(QueryAlbum.self)
        try store.register(PlainQuerySong.self)
        for title in ["x", "y"] {
            let song = PlainQuerySong()
            song.title = title
            song.isrc = "SAME"
            try store.insert(song)
        }
        try store.saveChanges()
        try store.close()
        let indexed = try Store(path: directory.path)
        try indexed.register(QueryAlbum.self)
        #expect(throws: StoreError.uniqueIndexViolation(class: "QuerySong", index: "isrc")) { try indexed.register(QuerySong.self) }
        // Nothing was built, and the class is not half-registered.
        #expect(throws: StoreError.classNotRegistered("QuerySong")) { try indexed.count(of: QuerySong.self) }
        #expect(try indexTables(of: indexed, in: directory).isEmpty)
    }

    @Test func verifyFindsADamagedIndexAndRebuildMendsIt() throws {
        let directory = TemporaryDirectory()
        let (store, _, _) = try makeStore(directory)
        let table = ObjectIndexRecord.table(number: 1, className: "QuerySong")
        var batch = WriteBatch()
        var firstKey: [UInt8] = []
        try store.backend.forEachRecord(in: table) { key, _ in
            firstKey = Array(key)
            return false
        }
        batch.removeValue(forKey: firstKey, in: table)
        try store.backend.apply(batch)
        let report = try store.verify()
        #expect(report.problems.contains { if case .objectIndexMismatch("QuerySong", "seconds", _) = $0 { true } else { false } },
                "\(report.problems)")
        try store.rebuildIndexes(of: QuerySong.self)
        #expect(try store.verify().isHealthy)
        #expect(try store.count(of: QuerySong.self, where: \.seconds > 0) == 8)
    }

    @Test func aQueryOpensEachPageOnceAndStillFindsItsDamage() throws {
        for key in [nil, "secret"] as [String?] {
            let directory = TemporaryDirectory()
            let configuration: Store.Configuration = key.map { .quickKey($0) } ?? .init()
            do {
                let store = try directory.openStore([QueryAlbum.self, QuerySong.self], configuration: configuration)
                for number in 1 ... 100 { try store.insert(QuerySong("Song \(number)", seconds: UInt32(number % 3))) }
                try store.saveChanges()
                try store.close()
            }
            let store = try directory.openStore([QueryAlbum.self, QuerySong.self], configuration: configuration)
            // Eleven or so objects from each page, read from the page opened once.
            let expected = stride(from: 1, through: 100, by: 3).map { "Song \($0)" }
            #expect(try store.objects(of: QuerySong.self, where: \.seconds == 1).map(\.title) == expected, "\(String(describing: key))")
            // The last byte of page 1 (rowIDs 32-63) flipped: its checksum or seal fails for the
            // first object the query wants from it, 34.
            let pageKey = RecordPage.key(forPage: 1)
            var bytes: [UInt8] = []
            try store.backend.readValue(forKey: pageKey, in: "QuerySong") { value in bytes = value.map(Array.init) ?? [] }
            try #require(!bytes.isEmpty)
            bytes[bytes.count - 1] ^= 0x01
            var batch = WriteBatch()
            batch.put(bytes, forKey: pageKey, in: "QuerySong")
            try store.backend.apply(batch)
            store.forgetCachedFileState()
            #expect(throws: StoreError.corruptRecord(class: "QuerySong", rowID: 34), "\(String(describing: key))") {
                _ = try store.objects(of: QuerySong.self, where: \.seconds == 1)
            }
            #expect(try store.objects(of: QuerySong.self, where: \.seconds == 1, limit: 11).map(\.title) == Array(expected.prefix(11)))
        }
    }

    @Test func encryptedIndexesHoldNoPlaintextValue() throws {
        let directory = TemporaryDirectory()
        let (store, _, _) = try makeStore(directory, configuration: .quickKey("secret"))
        #expect(try store.objects(of: QuerySong.self, where: \.isrc == "USRC17607839").map(\.title) == ["So What"])
        #expect(try store.count(of: QuerySong.self, where: .hasPrefix(\.title, "So")) == 3)
        try store.close()
        for file in try FileManager.default.contentsOfDirectory(atPath: directory.path) where file.hasPrefix("_index") {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: directory.path + "/" + file))
            #expect(bytes.range(of: Data("USRC17607839".utf8)) == nil, "\(file)")
            #expect(bytes.range(of: Data("Freddie".utf8)) == nil, "\(file)")
        }
        let reopened = try Store(path: directory.path, configuration: .quickKey("secret"))
        try reopened.register(QueryAlbum.self)
        try reopened.register(QuerySong.self)
        #expect(try reopened.firstObject(of: QuerySong.self, where: \.isrc == "USRC17607839")?.title == "So What")
        try reopened.rekey(to: "other", iterations: 1)
        #expect(try reopened.count(of: QuerySong.self, where: \.seconds > 300) == 5)
        #expect(try reopened.verify().isHealthy)
        try reopened.rekey(to: nil)
        #expect(try reopened.objects(of: QuerySong.self, where: \.album == nil).map(\.title) == ["Song for My Father"])
        #expect(try reopened.verify().isHealthy)
    }

    /// The number of records in each index table of QuerySong.
    private func indexTables(of store: Store, in directory: TemporaryDirectory) throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for number in 1 ... 3 {
            let table = ObjectIndexRecord.table(number: UInt64(number), className: "QuerySong")
            guard FileManager.default.fileExists(atPath: directory.path + "/" + table + ".tcb") else { continue }
            store.backend.declareOrderedTable(table)
            counts[table] = try store.backend.recordCount(in: table)
        }
        return counts
    }
}
