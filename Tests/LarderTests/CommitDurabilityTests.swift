// CommitDurabilityTests: the steps a save takes to be durable, read from the fault injector's
// record of file operations: `.full` reaches every sync (journal, directory, files, Tokyo
// Cabinet's undo logs) and `.noSync` none; a commit that fails on any file is rolled forward;
// a failure during that roll-forward refuses work until a reopen finishes the save; a failed
// save's journal is removed durably; a torn journal is discarded at open; a save reuses the
// emptied journal of the last one.

import Foundation
import Testing
@testable import Larder

@Suite struct CommitDurabilityTests {
    /// A store with a small library, reopened with `durability`, and a change to save.
    private func storeWithAChange(
        _ directory: TemporaryDirectory, durability: Store.Configuration.Durability
    ) throws -> (Store, TokyoCabinetBackend) {
        do {
            let store = try Store(path: directory.path, configuration: .init(durability: durability))
            try store.register(Song.self)
            try store.register(Playlist.self)
            _ = try insertLibrary(into: store, songs: 6, perPlaylist: 3)
            try store.close()
        }
        let store = try Store(path: directory.path, configuration: .init(durability: durability))
        try store.register(Song.self)
        try store.register(Playlist.self)
        let songs = try store.allObjects(of: Song.self)
        songs[0].title = "Changed"
        let playlists = try store.allObjects(of: Playlist.self)
        playlists[0].title = "Changed list"
        return (store, try #require(store.backend as? TokyoCabinetBackend))
    }

    /// The operations a save performs, recorded without failing any.
    private func operationsOfASave(durability: Store.Configuration.Durability) throws -> [String] {
        let directory = TemporaryDirectory("durability-steps")
        let (store, backend) = try storeWithAChange(directory, durability: durability)
        let recorder = FaultInjector.recorder()
        backend.faultInjector = recorder
        try store.saveChanges()
        backend.faultInjector = nil
        try store.close()
        return recorder.operations
    }

    @Test func laterSavesReuseTheEmptiedJournalWithoutSyncingItsNameAgain() throws {
        let directory = TemporaryDirectory("durability-reuse")
        let (store, backend) = try storeWithAChange(directory, durability: .full)
        try store.saveChanges()
        // The journal is cleared, not removed: its name, synced by the first save, stays.
        let cleared = try #require(try FileIO.read(backend.journalPath))
        #expect(!CommitJournal.isUncleared(cleared) && CommitJournal.decode(cleared) == nil)
        try store.allObjects(of: Song.self)[1].title = "Changed again"
        let recorder = FaultInjector.recorder()
        backend.faultInjector = recorder
        try store.saveChanges()
        backend.faultInjector = nil
        let second = recorder.operations
        #expect(second.first == "write journal _journal", "\(second)")
        // No directory sync: no file was created (the undo logs' names are durable too).
        #expect(!second.contains { $0.hasPrefix("sync directory") }, "\(second)")
        #expect(second.last == "clear journal _journal", "\(second)")
        #expect(try CommitJournal.isUncleared(#require(try FileIO.read(backend.journalPath))) == false)
        try store.close()
        // Closing removes the cleared journal; both saves are there.
        #expect(!FileManager.default.fileExists(atPath: directory.file("_journal")))
        let reopened = try directory.openStore()
        #expect(try reopened.allObjects(of: Song.self).map(\.title).filter { $0.hasPrefix("Changed") }.sorted() == ["Changed", "Changed again"])
    }

    @Test func aClearedJournalLeftByAKilledProcessIsNoCommitInFlight() throws {
        let directory = TemporaryDirectory("durability-cleared-journal")
        do {
            let (store, _) = try storeWithAChange(directory, durability: .full)
            try store.saveChanges()
            try store.close()
        }
        // What a process killed between saves leaves: the last journal, its header cleared.
        // (This one's batch would retitle song 1: applied, it would show.)
        var content = DataBuffer()
        content.write("From a cleared journal")
        content.write(UInt32(1))
        let backend = try TokyoCabinetBackend(path: directory.path)
        let batch = try RawRecords(backend: backend, table: "Song").batch([1: RawRecords.sealed(content, rowID: 1)], deleting: [])
        try backend.close()
        let journalPath = directory.file("_journal")
        try Data(CommitJournal.encode(batch)).write(to: URL(fileURLWithPath: journalPath))
        try CommitJournal.clear(at: journalPath)
        let readOnly = try Store(path: directory.path, configuration: .init(readOnly: true))
        try readOnly.register(Song.self)
        #expect(try readOnly.object(of: Song.self, rowID: 1)?.title == "Changed")
        try readOnly.close()
        let reopened = try directory.openStore()
        #expect(try reopened.object(of: Song.self, rowID: 1)?.title == "Changed")
        #expect(try reopened.verify().isHealthy)
        #expect(!FileManager.default.fileExists(atPath: journalPath))
        // The same journal not cleared is replayed: the clearing is what tells them apart.
        try reopened.close()
        try Data(CommitJournal.encode(batch)).write(to: URL(fileURLWithPath: journalPath))
        #expect(try directory.openStore().object(of: Song.self, rowID: 1)?.title == "From a cleared journal")
    }

    @Test func fullDurabilityReachesEverySyncStepAndNoSyncNone() throws {
        let full = try operationsOfASave(durability: .full)
        let committed = full.filter { $0.hasPrefix("commit ") }.map { $0.dropFirst("commit ".count) }
        #expect(committed.contains("Song.tch") && committed.contains("Playlist.tch"), "\(full)")
        // The journal is synced with its directory before any file changes.
        let firstBegin = try #require(full.firstIndex { $0.hasPrefix("begin transaction") })
        #expect(full.first == "write journal _journal")
        #expect(full.dropFirst().first?.hasPrefix("sync directory ") == true, "\(full)")
        // The first transaction of each file in this process creates its undo log: the
        // directory is synced once more, before the first write.
        let firstWrite = try #require(full.firstIndex { $0.hasPrefix("write ") && !$0.hasSuffix("_journal") })
        #expect(full[firstBegin..<firstWrite].contains { $0.hasPrefix("sync directory ") }, "\(full)")
        // Each commit syncs its file (HDBOTSYNC), so the file is not synced again; its undo
        // log, which the commit empties without a sync, is synced before the journal is emptied.
        for file in committed {
            let commit = try #require(full.firstIndex(of: "commit \(file)"), "\(full)")
            let logSync = try #require(full.firstIndex(of: "sync undo log \(file).wal"), "\(full)")
            let emptying = try #require(full.firstIndex(of: "clear journal _journal"), "\(full)")
            #expect(commit < logSync && logSync < emptying)
            #expect(!full.contains("sync \(file)"), "\(full)")
        }

        let noSync = try operationsOfASave(durability: .noSync)
        #expect(noSync.contains("write journal _journal"))
        #expect(noSync.filter { $0.hasPrefix("commit ") }.count == committed.count)
        #expect(!noSync.contains { $0.hasPrefix("sync") }, "\(noSync)")
    }

    /// Checks that `store` refuses to save until it is reopened (`needsRecovery`), then
    /// reopens the store in `directory`.
    private func expectRefusalUntilReopened(_ store: Store, _ directory: TemporaryDirectory) throws -> Store {
        #expect { try store.saveChanges() } throws: { error in
            guard case BackendError.needsRecovery = error else { return false }
            return true
        }
        store.discardChanges()
        try store.close()
        return try directory.openStore()
    }

    /// The 1-based number of the first recorded operation of a `.full` save that starts with
    /// `prefix`.
    private func numberOfOperation(_ prefix: String) throws -> Int {
        let operations = try operationsOfASave(durability: .full)
        return try #require(operations.firstIndex { $0.hasPrefix(prefix) }) + 1
    }

    @Test func aCommitFailureOnTheFirstFileIsRolledForward() throws {
        // Tokyo Cabinet ends a transaction whose commit fails: the file may hold the batch.
        // Only a roll-forward is safe, and it completes the save.
        let failing = try numberOfOperation("commit ")
        let directory = TemporaryDirectory("durability-commit")
        let (store, backend) = try storeWithAChange(directory, durability: .full)
        backend.faultInjector = FaultInjector(failingOperation: failing)
        try store.saveChanges()
        #expect(backend.faultInjector?.fired == true)
        backend.faultInjector = nil
        try store.close()
        let reopened = try directory.openStore()
        #expect(try reopened.allObjects(of: Song.self).contains { $0.title == "Changed" })
        #expect(try reopened.allObjects(of: Playlist.self).contains { $0.title == "Changed list" })
        #expect(try reopened.verify().isHealthy)
    }

    @Test func aFailureDuringRollForwardRefusesWorkUntilAReopenFinishesTheSave() throws {
        let firstCommit = try numberOfOperation("commit ")
        let directory = TemporaryDirectory("durability-rollforward")
        let (store, backend) = try storeWithAChange(directory, durability: .full)
        // The first commit fails, then the roll-forward's first operation fails too.
        backend.faultInjector = FaultInjector(failingOperations: [firstCommit, firstCommit + 1])
        #expect(throws: BackendError.self) { try store.saveChanges() }
        backend.faultInjector = nil
        #expect(FileManager.default.fileExists(atPath: backend.journalPath))
        try store.allObjects(of: Song.self)[2].title = "Refused"
        let reopened = try expectRefusalUntilReopened(store, directory)
        #expect(try reopened.allObjects(of: Song.self).contains { $0.title == "Changed" })
        #expect(try !reopened.allObjects(of: Song.self).contains { $0.title == "Refused" })
        #expect(try reopened.verify().isHealthy)
        #expect(!FileManager.default.fileExists(atPath: directory.file("_journal")))
    }

    @Test func aFailedSaveRemovesItsJournalDurablyOrRefusesWork() throws {
        let failing = try numberOfOperation("begin transaction")
        do {
            let directory = TemporaryDirectory("durability-failed")
            let (store, backend) = try storeWithAChange(directory, durability: .full)
            let injector = FaultInjector(failingOperation: failing)
            backend.faultInjector = injector
            #expect(throws: BackendError.self) { try store.saveChanges() }
            backend.faultInjector = nil
            // The unlink of the journal is made durable before the save throws.
            #expect(injector.operations.last?.hasPrefix("sync directory") == true, "\(injector.operations)")
            #expect(!FileManager.default.fileExists(atPath: backend.journalPath))
            try store.saveChanges()   // the store goes on: the retry lands
            try store.close()
            #expect(try directory.openStore().allObjects(of: Song.self).contains { $0.title == "Changed" })
        }
        do {
            // When that directory sync fails, the store refuses work rather than risk the
            // journal coming back after a power cut.
            let directory = TemporaryDirectory("durability-failed-sync")
            let (store, backend) = try storeWithAChange(directory, durability: .full)
            backend.faultInjector = FaultInjector(failingOperations: [failing, failing + 1])
            #expect(throws: BackendError.self) { try store.saveChanges() }
            backend.faultInjector = nil
            let reopened = try expectRefusalUntilReopened(store, directory)
            #expect(try !reopened.allObjects(of: Song.self).contains { $0.title == "Changed" })
            #expect(try reopened.verify().isHealthy)
        }
    }

    @Test func aTornJournalIsDiscardedAndAWholeOneIsReplayed() throws {
        let directory = TemporaryDirectory("durability-torn")
        var first = WriteBatch()
        for index in 0..<20 { first.put(Array("old \(index)".utf8), forKey: RowIDKey.bytes(UInt64(index)), in: "t") }
        do {
            let backend = try TokyoCabinetBackend(path: directory.path)
            try backend.apply(first)
            try backend.close()
        }
        var second = WriteBatch()
        for index in 0..<20 { second.put(Array("new \(index) with more bytes".utf8), forKey: RowIDKey.bytes(UInt64(index)), in: "t") }
        second.put(Array("other".utf8), forKey: [1], in: "u")
        let journal = CommitJournal.encode(second)
        func values(_ backend: TokyoCabinetBackend) throws -> [String] {
            try (0..<20).map { index in
                var text = ""
                try backend.readValue(forKey: RowIDKey.bytes(UInt64(index)), in: "t") { text = String(decoding: $0 ?? UnsafeRawBufferPointer(start: nil, count: 0), as: UTF8.self) }
                return text
            }
        }
        // Every prefix a write cut short can leave (and a few bytes past the end missing).
        for length in Array(stride(from: 0, to: journal.count, by: 7)) + [journal.count - 1] {
            try Data(journal[..<length]).write(to: URL(fileURLWithPath: directory.file("_journal")))
            let backend = try TokyoCabinetBackend(path: directory.path)
            #expect(try values(backend) == (0..<20).map { "old \($0)" }, "journal cut at \(length) of \(journal.count)")
            #expect(try backend.recordCount(in: "u") == 0)
            try backend.close()
            #expect(!FileManager.default.fileExists(atPath: directory.file("_journal")))
        }
        try Data(journal).write(to: URL(fileURLWithPath: directory.file("_journal")))
        let backend = try TokyoCabinetBackend(path: directory.path)
        #expect(try values(backend) == (0..<20).map { "new \($0) with more bytes" })
        #expect(try backend.recordCount(in: "u") == 1)
        try backend.close()
    }
}
