// Bit flips and truncation of every kind of file in a store: the result is a clear error or a
// clean recovery, never a crash. Damaged stores are opened in a child process, so that a crash
// would show as a signal instead of ending the test run.

import Foundation
import Testing
@testable import Larder
import SpeedSupport

@Suite struct DamageTests {
    /// A crash-model store saved by the worker, with its journal file left as a save would
    /// write it.
    private func makeStore() throws -> TemporaryDirectory {
        let directory = TemporaryDirectory("damage")
        try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true)
        let ackPath = directory.path + ".acks"
        _ = FileManager.default.createFile(atPath: ackPath, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: ackPath) }
        let (process, _) = try Worker.start(["run", directory.path, "nosync", ackPath])
        // Let it make a few dozen saves, then stop it.
        while ((try? String(contentsOfFile: ackPath, encoding: .utf8))?.split(separator: "\n").count ?? 0) < 30 {
            usleep(5_000)
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(try Worker.run(["check", directory.path]).hasPrefix("ok "))
        return directory
    }

    /// Opens a damaged copy in the worker: it must answer (healthy, problems, or a typed
    /// error), never die of a signal.
    private func expectNoCrash(_ directory: TemporaryDirectory, _ what: String) throws -> String {
        let (process, output) = try Worker.start(["verify", directory.path])
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let result = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(process.terminationReason == .exit, "\(what): worker died of signal \(process.terminationStatus)")
        #expect(result == "healthy" || result.hasPrefix("problems ") || result.hasPrefix("error "), "\(what): \(result)")
        return result
    }

    private func copy(_ directory: TemporaryDirectory) throws -> TemporaryDirectory {
        let copy = TemporaryDirectory("damaged")
        try FileManager.default.copyItem(atPath: directory.path, toPath: copy.path)
        return copy
    }

    @Test func bitFlipsInEveryFileGiveErrorsNotCrashes() throws {
        let original = try makeStore()
        var generator = SplitMix(seed: 7)
        var outcomes: [String: Int] = [:]
        for file in ["CrashA.tch", "CrashB.tch", "CrashCounter.tch", "_store.tch", "_names.tch"] {
            let contents = try #require(FileManager.default.contents(atPath: original.file(file)))
            let size = contents.count
            let firstRecord = recordRegionStart(of: contents)
            for flip in 0 ..< 16 {
                let damaged = try copy(original)
                var bytes = try #require(FileManager.default.contents(atPath: damaged.file(file)))
                // Most flips land among the records (the bucket array is mostly empty space).
                let offset = flip % 4 == 0 ? Int.random(in: 0 ..< size, using: &generator)
                                           : Int.random(in: firstRecord ..< size, using: &generator)
                bytes[offset] ^= UInt8(1) << UInt8.random(in: 0 ... 7, using: &generator)
                try bytes.write(to: URL(fileURLWithPath: damaged.file(file)))
                let result = try expectNoCrash(damaged, "\(file) byte \(offset)")
                outcomes[String(result.prefix(while: { $0 != " " })), default: 0] += 1
            }
        }
        print("bit flips: \(outcomes)")
    }

    /// Where a Tokyo Cabinet hash file's records start: the "first record" offset in its
    /// header (bytes 64-71), or 256 when it cannot be read.
    private func recordRegionStart(of file: Data) -> Int {
        guard file.count >= 72 else { return 0 }
        let raw = file[64 ..< 72].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        for candidate in [raw, raw.byteSwapped] where candidate >= 256 && candidate < UInt64(file.count) {
            return Int(candidate)
        }
        return min(256, file.count - 1)
    }

    @Test func aFlippedBitInARecordIsReportedAsCorrupt() throws {
        let directory = TemporaryDirectory()
        do {
            let store = try directory.openStore()
            for i in 1 ... 50 { try store.insert(Song(title: "Title number \(i)", seconds: UInt32(i))) }
            try store.saveChanges()
            try store.close()
        }
        // Find the bytes of song 17's title in the class file and flip one bit of them.
        let path = directory.file("Song.tch")
        var bytes = try #require(FileManager.default.contents(atPath: path))
        let needle = Data("Title number 17".utf8)
        let range = try #require(bytes.range(of: needle))
        bytes[range.lowerBound + 3] ^= 0x04
        try bytes.write(to: URL(fileURLWithPath: path))

        let store = try directory.openStore()
        #expect(throws: StoreError.corruptRecord(class: "Song", rowID: 17)) { _ = try store.object(of: Song.self, rowID: 17) }
        #expect(try store.object(of: Song.self, rowID: 16)?.title == "Title number 16")
        let report = try store.verify()
        #expect(report.problems == [.corruptRecord(class: "Song", rowID: 17)])
        #expect(report.classes.first { $0.name == "Song" }?.recordCount == 50)
    }

    @Test func truncatedFilesGiveErrorsNotCrashes() throws {
        let original = try makeStore()
        for file in ["CrashA.tch", "CrashCounter.tch", "_store.tch", "_names.tch"] {
            let size = try #require(FileManager.default.contents(atPath: original.file(file))).count
            for keep in [0, 100, 256, size / 2, size - 1] {
                let damaged = try copy(original)
                let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: damaged.file(file)))
                try handle.truncate(atOffset: UInt64(keep))
                try handle.close()
                _ = try expectNoCrash(damaged, "\(file) cut to \(keep)")
            }
        }
    }

    @Test func aTornJournalIsDiscardedAndACompleteOneReplayed() throws {
        let directory = TemporaryDirectory()
        do {
            let store = try directory.openStore()
            try insertLibrary(into: store, songs: 10, perPlaylist: 5)
            try store.close()
        }
        // A journal for a save that renames song 1 and deletes song 2, as a crash would leave it.
        var content = DataBuffer()
        content.write("From the journal")
        content.write(UInt32(1))
        let backend = try TokyoCabinetBackend(path: directory.path)
        let batch = try RawRecords(backend: backend, table: "Song").batch([1: RawRecords.sealed(content, rowID: 1)], deleting: [2])
        try backend.close()
        let journal = CommitJournal.encode(batch)
        let journalPath = directory.file("_journal")

        // Torn (cut short) and damaged (a flipped bit) journals are discarded: nothing changes.
        for damaged in [Array(journal.prefix(journal.count - 3)), journal.enumerated().map { $0.offset == 30 ? $0.element ^ 1 : $0.element }] {
            try Data(damaged).write(to: URL(fileURLWithPath: journalPath))
            let store = try directory.openStore()
            #expect(try store.object(of: Song.self, rowID: 1)?.title == "Song 1")
            #expect(try store.count(of: Song.self) == 10)
            #expect(!FileManager.default.fileExists(atPath: journalPath))
            try store.close()
        }
        // A complete journal is applied on open.
        try Data(journal).write(to: URL(fileURLWithPath: journalPath))
        let store = try directory.openStore()
        #expect(try store.object(of: Song.self, rowID: 1)?.title == "From the journal")
        #expect(try store.object(of: Song.self, rowID: 2) == nil)
        #expect(!FileManager.default.fileExists(atPath: journalPath))
    }

    @Test func everyPrefixAndBitFlipOfAJournalDecodesOrIsRejected() throws {
        var batch = WriteBatch()
        batch.put([1, 2, 3], forKey: [9], in: "T")
        batch.removeValue(forKey: [8], in: "U")
        let journal = CommitJournal.encode(batch)
        #expect(CommitJournal.decode(journal) != nil)
        for length in 0 ..< journal.count {
            #expect(CommitJournal.decode(Array(journal.prefix(length))) == nil)
        }
        for index in journal.indices {
            for bit in 0 ..< 8 {
                var flipped = journal
                flipped[index] ^= UInt8(1) << UInt8(bit)
                #expect(CommitJournal.decode(flipped) == nil, "byte \(index) bit \(bit)")
            }
        }
    }
}
