// Two processes on one store: a writer excludes everyone else at once (or after a timeout);
// readers share the store.

import Foundation
import Testing
@testable import Larder

@Suite struct MultiProcessTests {
    /// A store with a few crash-model objects, made by the worker.
    private func makeStore() throws -> TemporaryDirectory {
        let directory = TemporaryDirectory("multi")
        try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true)
        #expect(try Worker.run(["write", directory.path]) == "opened")
        return directory
    }

    @Test func aStoreHeldByAWriterIsLockedForOthers() throws {
        let directory = try makeStore()
        let input = Pipe()
        let (holder, output) = try Worker.start(["hold", directory.path], input: input)
        #expect(Worker.readLine(from: output) == "ready")

        let lockPath = directory.file("_store.tch")
        let started = Date()
        #expect(throws: BackendError.locked(path: lockPath)) { _ = try Store(path: directory.path) }
        #expect(Date().timeIntervalSince(started) < 1, "a locked store must fail at once")
        #expect(throws: BackendError.locked(path: lockPath)) {
            _ = try Store(path: directory.path, configuration: .init(readOnly: true))
        }
        #expect(try Worker.run(["read", directory.path]).hasPrefix("error "))

        input.fileHandleForWriting.write(Data("done\n".utf8))
        holder.waitUntilExit()
        let store = try Store(path: directory.path)
        try store.close()
    }

    @Test func aLockTimeoutWaitsForTheWriterToLeave() throws {
        let directory = try makeStore()
        let input = Pipe()
        let (holder, output) = try Worker.start(["hold", directory.path], input: input)
        #expect(Worker.readLine(from: output) == "ready")
        let release = Thread {
            Thread.sleep(forTimeInterval: 0.3)
            input.fileHandleForWriting.write(Data("done\n".utf8))
        }
        release.start()
        let started = Date()
        let store = try Store(path: directory.path, configuration: .init(lockTimeout: 10))
        let waited = Date().timeIntervalSince(started)
        #expect(waited >= 0.2 && waited < 10)
        try store.close()
        holder.waitUntilExit()
    }

    @Test func readersShareTheStoreAndExcludeWriters() throws {
        let directory = try makeStore()
        let reader = try Store(path: directory.path, configuration: .init(readOnly: true))
        #expect(try Worker.run(["read", directory.path]) == "read 0")
        #expect(try Worker.run(["write", directory.path]).hasPrefix("error "))
        try reader.close()
        #expect(try Worker.run(["write", directory.path]) == "opened")
    }
}

@Suite struct ReadOnlyTests {
    @Test func aReadOnlyStoreReadsEverythingAndRefusesChanges() throws {
        let directory = TemporaryDirectory()
        do {
            let store = try directory.openStore()
            try insertLibrary(into: store, songs: 100, perPlaylist: 10)
            var bookmark = DataBuffer()
            bookmark.write("hello")
            try store.setDataBuffer(bookmark, forName: "greeting")
            try store.close()
        }
        let store = try Store(path: directory.path, configuration: .init(readOnly: true))
        try store.register(Playlist.self)
        try store.register(Song.self)
        try store.register(Artist.self)   // unknown to the store: registered in memory only
        #expect(try store.count(of: Song.self) == 100)
        #expect(try store.count(of: Artist.self) == 0)
        #expect(try store.allObjects(of: Playlist.self)[3].songs[2].title == "Song 33")
        var greeting = try #require(try store.dataBuffer(forName: "greeting"))
        #expect(try greeting.readString() == "hello")
        #expect(try store.verify().isHealthy)

        let song = try #require(try store.object(of: Song.self, rowID: 1))
        song.title = "changed"
        #expect(throws: StoreError.readOnly) { try store.saveChanges() }
        #expect(store.hasUnsavedChanges)
        #expect(throws: StoreError.readOnly) { try store.setDataBuffer(DataBuffer(), forName: "x") }
        store.discardChanges()
        try store.close()
        #expect(!FileManager.default.fileExists(atPath: directory.file("Artist.tch")))
    }

    @Test func aMissingStoreCannotBeOpenedReadOnly() throws {
        let directory = TemporaryDirectory()
        #expect(throws: BackendError.self) { _ = try Store(path: directory.path, configuration: .init(readOnly: true)) }
        #expect(!FileManager.default.fileExists(atPath: directory.path))
    }

    @Test func aReaderRefusesAStoreWithAnInterruptedSave() throws {
        let directory = TemporaryDirectory()
        do {
            let store = try directory.openStore()
            try insertLibrary(into: store, songs: 10, perPlaylist: 5)
            try store.close()
        }
        let backend = try TokyoCabinetBackend(path: directory.path)
        let batch = try RawRecords(backend: backend, table: "Song").batch(deleting: [1])
        try backend.close()
        try Data(CommitJournal.encode(batch)).write(to: URL(fileURLWithPath: directory.file("_journal")))
        #expect(throws: BackendError.needsRecovery(path: directory.path)) {
            _ = try Store(path: directory.path, configuration: .init(readOnly: true))
        }
        let writer = try directory.openStore()
        #expect(try writer.count(of: Song.self) == 9)
    }
}

@Suite struct VerificationTests {
    @Test func aHealthyStoreReportsItsCounts() throws {
        let directory = TemporaryDirectory()
        let store = try directory.openStore()
        try insertLibrary(into: store, songs: 1_000, perPlaylist: 100)
        try store.setDataBuffer(DataBuffer(), forName: "a")
        let report = try store.verify()
        #expect(report.isHealthy)
        #expect(report.classes.map(\.name) == ["Playlist", "Song"])
        #expect(report.classes.map(\.recordCount) == [10, 1_000])
        #expect(report.classes.allSatisfy { $0.decoded })
        #expect(report.namedBufferCount == 1)
    }

    @Test func danglingReferencesAreReported() throws {
        let directory = TemporaryDirectory()
        let store = try directory.openStore()
        try insertLibrary(into: store, songs: 10, perPlaylist: 5)
        try store.delete(try #require(try store.object(of: Song.self, rowID: 7)))   // no delete rule
        try store.saveChanges()
        #expect(try store.verify().isHealthy)
        #expect(try store.verify().referencesToDeletedRows == 1)
        // A record that goes missing behind the store's back leaves a real dangling reference.
        try RawRecords(store, "Song").write(deleting: [2])
        let report = try store.verify()
        #expect(report.problems == [.missingRecords(table: "Song", expected: 9, found: 8),
                                    .danglingReference(fromClass: "Playlist", fromRowID: 1, toClass: "Song", toRowID: 2)])
        #expect(!store.hasUnsavedChanges)
    }

    @Test func undecodableRecordsAndUnregisteredClassesAreReported() throws {
        let directory = TemporaryDirectory()
        do {
            let store = try directory.openStore([Strict.self, Song.self])
            try store.insert(Song(title: "s", seconds: 1))
            var short = DataBuffer()
            short.write(UInt8(1))
            try RawRecords(store, "Strict").write([1: RawRecords.sealed(short, rowID: 1)])
            try store.saveChanges()
            try store.close()
        }
        let store = try directory.openStore([Strict.self])
        let report = try store.verify()
        #expect(report.classes.map(\.name) == ["Song", "Strict"])
        #expect(report.classes.map(\.decoded) == [false, true])
        #expect(report.problems.count == 2)
        #expect(report.problems.contains(.unexpectedRowID(class: "Strict", rowID: 1)))
        #expect(report.problems.contains {
            if case .undecodableRecord("Strict", 1, _) = $0 { return true } else { return false }
        })
    }
}
