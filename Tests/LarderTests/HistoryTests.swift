// History (StoredObject.keepsHistory): each save appends the versions of its objects in its own
// commit, under the change feed's sequence number; history(of:) gives them oldest first with
// detached objects, a deletion as a nil object; object(of:rowID:asOf:) answers for any date;
// pruneHistory keeps what later dates need; a failed save leaves no version; old class versions
// decode; classes without history write nothing.

import Foundation
import LarderTestSupport
import Testing
@testable import Larder

@Suite struct HistoryTests {
    private let model: [StoredObject.Type] = [Song.self, Note.self, Ticket.self]

    /// Saves and waits a few milliseconds, so that each save has its own date.
    private func save(_ store: Store) throws {
        try store.saveChanges()
        Thread.sleep(forTimeInterval: 0.003)
    }

    @Test(arguments: BackendKind.withEtcd) func versionsComeOldestFirstWithTheFeedsSequenceNumbers(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory("history-order", backend: backend)
        let store = try directory.openStore(model)
        let song = Song(title: "So What", seconds: 545)
        let note = Note("first")
        note.song = song
        try store.insert(note)
        try save(store)
        note.text = "second"
        try save(store)
        try store.insert(Song(title: "unrelated", seconds: 1))
        try save(store)
        note.text = "third"
        note.song = nil
        try save(store)
        let rowID = note.rowID
        try store.delete(note)
        try save(store)

        let versions = try store.history(of: note)
        let noteSaves = try store.changes(since: 0).filter { !($0.inserted(of: Note.self) + $0.updated(of: Note.self) + $0.deleted(of: Note.self)).isEmpty }
        #expect(versions.map(\.sequence) == noteSaves.map(\.sequence))
        #expect(versions.map(\.sequence) == [1, 2, 4, 5])
        #expect(versions.map { $0.object?.text } == ["first", "second", "third", nil])
        #expect(versions.map(\.isDeletion) == [false, false, false, true])
        #expect(zip(versions, versions.dropFirst()).allSatisfy { $0.savedAt < $1.savedAt })
        // Detached copies: rowID set, outside the store's identity map; references resolve.
        let first = try #require(versions.first?.object)
        #expect(first.rowID == rowID && first.store == nil && first !== note)
        #expect(first.song?.title == "So What")
        #expect(versions[2].object?.song == nil)
        // The deleted object's history by rowID, after a reopen too.
        #expect(try store.history(of: Note.self, rowID: rowID).map(\.sequence) == [1, 2, 4, 5])
        try store.close()
        let reopened = try directory.openStore(model)
        #expect(try reopened.history(of: Note.self, rowID: rowID).map { $0.object?.text } == ["first", "second", "third", nil])
        #expect(try reopened.history(of: Note.self, rowID: rowID + 1).isEmpty)
        let report = try reopened.verify()
        #expect(report.isHealthy && report.historyVersionCount == 4)
    }

    @Test(arguments: BackendKind.withEtcd) func objectAsOfADateIsItsLatestVersionSavedAtOrBeforeIt(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory("history-asof", backend: backend)
        let store = try directory.openStore(model)
        let before = Date()
        Thread.sleep(forTimeInterval: 0.003)
        let note = Note("v1")
        try store.insert(note)
        try save(store)
        note.text = "v2"
        try save(store)
        try store.delete(note)
        try save(store)
        let dates = try store.history(of: note).map(\.savedAt)
        #expect(dates.count == 3)
        func text(at date: Date) throws -> String? { try store.object(of: Note.self, rowID: note.rowID, asOf: date)?.text }
        func between(_ a: Date, _ b: Date) -> Date { Date(timeIntervalSinceReferenceDate: (a.timeIntervalSinceReferenceDate + b.timeIntervalSinceReferenceDate) / 2) }
        #expect(try text(at: before) == nil)
        #expect(try text(at: dates[0]) == "v1")
        #expect(try text(at: between(dates[0], dates[1])) == "v1")
        #expect(try text(at: dates[1]) == "v2")
        #expect(try text(at: between(dates[1], dates[2])) == "v2")
        #expect(try text(at: dates[2]) == nil)
        #expect(try text(at: Date.distantFuture) == nil)
        let copy = try #require(try store.object(of: Note.self, rowID: note.rowID, asOf: dates[1]))
        #expect(copy.store == nil && copy.rowID == note.rowID)
        #expect(try store.object(of: Note.self, rowID: 999, asOf: Date()) == nil)
    }

    @Test(arguments: BackendKind.withEtcd) func pruningKeepsWhatLaterDatesNeed(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory("history-prune", backend: backend)
        let store = try directory.openStore(model)
        let kept = Note("a1")
        let gone = Note("b1")
        try store.insert(kept)
        try store.insert(gone)
        try save(store)
        kept.text = "a2"
        try store.delete(gone)
        try save(store)
        kept.text = "a3"
        try save(store)
        let dates = try store.history(of: kept).map(\.savedAt)
        let cut = Date(timeIntervalSinceReferenceDate: (dates[1].timeIntervalSinceReferenceDate + dates[2].timeIntervalSinceReferenceDate) / 2)
        // a1 goes, a2 (the latest before the cut) stays, a3 stays; b's history ends in a
        // deletion before the cut: all of it goes.
        #expect(try store.pruneHistory(of: Note.self, before: cut) == 3)
        #expect(try store.history(of: kept).map { $0.object?.text } == ["a2", "a3"])
        #expect(try store.history(of: Note.self, rowID: gone.rowID).isEmpty)
        #expect(try store.object(of: Note.self, rowID: kept.rowID, asOf: cut)?.text == "a2")
        #expect(try store.object(of: Note.self, rowID: kept.rowID, asOf: dates[0]) == nil)
        #expect(try store.pruneHistory(of: Note.self, before: cut) == 0)
        // Pruning is no save: no sequence number, and the latest version still equals the object.
        #expect(store.changeSequence == 3)
        #expect(try store.pruneHistory(of: Note.self, before: .distantFuture) == 1)
        #expect(try store.history(of: kept).map { $0.object?.text } == ["a3"])
        try store.close()
        let reopened = try directory.openStore(model)
        #expect(try reopened.history(of: Note.self, rowID: kept.rowID).map(\.sequence) == [3])
        #expect(try reopened.verify().isHealthy)
    }

    @Test(arguments: BackendKind.withEtcd) func aFailedSaveLeavesNoVersion(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory("history-failed", backend: backend)
        let store = try directory.openStore(model)
        let first = Ticket(code: 1)
        let third = Ticket(code: 5)
        try store.insert(first)
        try store.insert(third)
        try save(store)
        // An update and an insert in a save that breaks the unique index: no version of either.
        let second = Ticket(code: 7)
        try store.insert(second)
        first.code = 5
        #expect(throws: StoreError.uniqueIndexViolation(class: "Ticket", index: "code")) { try store.saveChanges() }
        #expect(try store.history(of: first).map(\.sequence) == [1])
        #expect(try store.history(of: second).isEmpty)
        first.code = 2
        try save(store)
        #expect(try store.history(of: first).map { $0.object?.code } == [1, 2])
        #expect(try store.history(of: second).map(\.sequence) == [2])
        #expect(try store.history(of: third).map(\.sequence) == [1])
    }

    @Test(arguments: BackendKind.withEtcd) func oldVersionsDecodeWithTheirVersionOfData(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory("history-versions", backend: backend)
        let rowID: RowID
        do {
            let store = try directory.openStore([MemoV1.self])
            let memo = MemoV1()
            memo.title = "draft"
            try store.insert(memo)
            try save(store)
            memo.title = "final"
            try save(store)
            rowID = memo.rowID
            try store.close()
        }
        let store = try directory.openStore([Memo.self])
        let memo = try #require(try store.object(of: Memo.self, rowID: rowID))
        memo.priority = 3
        try save(store)
        let versions = try store.history(of: memo)
        #expect(versions.map { $0.object?.title } == ["draft", "final", "final"])
        #expect(versions.map { $0.object?.priority } == [0, 0, 3])
        #expect(try store.verify().isHealthy)
    }

    @Test(arguments: BackendKind.withEtcd) func classesWithoutHistoryWriteNone(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory("history-none", backend: backend)
        let store = try directory.openStore(model)
        let song = Song(title: "plain", seconds: 1)
        try store.insert(song)
        try store.saveChanges()
        song.title = "changed"
        try store.saveChanges()
        #expect(try store.backend.recordCount(in: HistoryRecord.table(forClass: "Song")) == 0)
        #expect(throws: StoreError.historyNotKept(class: "Song")) { try store.history(of: song) }
        #expect(throws: StoreError.historyNotKept(class: "Song")) { try store.object(of: Song.self, rowID: 1, asOf: Date()) }
        #expect(throws: StoreError.historyNotKept(class: "Song")) { try store.pruneHistory(of: Song.self, before: Date()) }
        #expect(throws: StoreError.classNotRegistered("Memo")) { try store.history(of: Memo.self, rowID: 1) }
        try store.close()
        if backend == .tokyoCabinet {
            let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            #expect(!files.contains { $0.hasPrefix("_history") })
        }
    }

    @Test func aFormat7StoreIsUpgradedByRewritingItsFormatRecord() throws {
        let directory = TemporaryDirectory("history-format")
        do {
            let store = try directory.openStore(model)
            try store.insert(Song(title: "old", seconds: 1))
            try store.saveChanges()
            var batch = WriteBatch()
            var format = DataBuffer()
            format.writeVarInt(7)
            try store.addMetadata(format, forKey: Store.formatKey, to: &batch)
            try store.backend.apply(batch)
            try store.close()
        }
        let store = try directory.openStore(model)
        let stored = try store.backend.withValue(forKey: Store.formatKey, in: Store.metadataTable) { value -> UInt64? in
            guard let value else { return nil }
            var buffer = try store.openMetadata(value, key: Store.formatKey.withUnsafeBytes { UnsafeRawBufferPointer($0) }, name: "format")
            return try buffer.readVarInt()
        }
        #expect(stored == 8)
        let note = Note("new")
        try store.insert(note)
        try store.saveChanges()
        #expect(try store.history(of: note).map(\.sequence) == [2])
    }
}
