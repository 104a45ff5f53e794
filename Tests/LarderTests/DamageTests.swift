// Bit flips and truncation of every kind of file in a store: a flip in a stored value and any
// truncation are reported (by verify or as an error), and no damage crashes or hangs a reader.
// Damaged stores are opened in a child process with a deadline, so that a crash shows as a
// signal and a hang as a timeout instead of ending or stalling the test run.

import Foundation
import Testing
@testable import Larder
import LarderTestSupport

@Suite struct DamageTests {
    /// How long a worker may take to open and verify a damaged store: a hang fails the test
    /// instead of stalling the suite.
    private static let verifyTimeout: TimeInterval = 30

    /// A store populated by the worker: every kind of file holds records (each class, the
    /// metadata, named buffers, the three tables of the full-text index, the object indexes and
    /// the histories).
    private func makeStore() throws -> TemporaryDirectory {
        let directory = TemporaryDirectory("damage")
        #expect(try Worker.run(["populate", directory.path, "40"]) == "populated 40")
        #expect(try Worker.run(["check", directory.path]) == "ok 40")
        return directory
    }

    /// The store's Tokyo Cabinet files (hash and B+tree), which each hold one table.
    private func tableFiles(of directory: TemporaryDirectory) throws -> [String] {
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".tch") || $0.hasSuffix(".tcb") }.sorted()
        #expect(files == ["CrashA.tch", "CrashB.tch", "CrashC.tch", "CrashCounter.tch", "_history.CrashC.tcb",
                          "_history.CrashCounter.tcb", "_index1.CrashB.tcb", "_index1.CrashC.tcb",
                          "_index2.CrashB.tcb", "_names.tch", "_store.tch",
                          "_text.CrashA.tch", "_textrows.CrashA.tch", "_textvocab.CrashA.tch"])
        return files
    }

    /// Opens and verifies a damaged copy in the worker, with a deadline: the answer must be
    /// "healthy", problems or an error, never a signal or a hang.
    @discardableResult
    private func expectAnswer(_ directory: TemporaryDirectory, _ what: String) throws -> String {
        let result = try Worker.run(["verify", directory.path], timeout: Self.verifyTimeout)
        #expect(["healthy", "problems ", "error "].contains { result.hasPrefix($0) }, "\(what): \(result)")
        return result
    }

    /// As ``expectAnswer(_:_:)``, and the answer must report the damage: not "healthy".
    private func expectDamageReported(_ directory: TemporaryDirectory, _ what: String) throws {
        #expect(try expectAnswer(directory, what) != "healthy", "\(what): not reported")
    }

    private func copy(_ directory: TemporaryDirectory) throws -> TemporaryDirectory {
        let copy = TemporaryDirectory("damaged")
        try FileManager.default.copyItem(atPath: directory.path, toPath: copy.path)
        return copy
    }

    /// A copy of `original` whose `file` is `contents` with `bit` of byte `offset` flipped.
    private func copy(_ original: TemporaryDirectory, flipping bit: UInt8, at offset: Int, of file: String,
                      contents: Data) throws -> TemporaryDirectory {
        let damaged = try copy(original)
        var bytes = contents
        bytes[offset] ^= 1 << bit
        try bytes.write(to: URL(fileURLWithPath: damaged.file(file)))
        return damaged
    }

    /// Where in `file` the stored values of its table lie: each value read through the backend
    /// and found, once and only once, in the file's bytes (a value also found elsewhere, as in
    /// a freed record, is left out: a flip there would damage a copy no reader looks at).
    private func valueRanges(of file: String, in directory: TemporaryDirectory, contents: Data) throws -> [Range<Int>] {
        let backend = try TokyoCabinetBackend(path: directory.path, configuration: BackendConfiguration(readOnly: true))
        defer { try? backend.close() }
        var values: [[UInt8]] = []
        try backend.forEachRecord(in: String(file.dropLast(".tch".count))) { _, value in
            if value.count >= 8 { values.append(Array(value)) }
            return true
        }
        return values.compactMap { value in
            let offsets = occurrences(of: value, in: contents)
            return offsets.count == 1 ? offsets[0] ..< offsets[0] + value.count : nil
        }
    }

    /// The offsets of `needle` in `haystack` (at most two: enough to tell one from many).
    private func occurrences(of needle: [UInt8], in haystack: Data) -> [Int] {
        guard let first = needle.first else { return [] }
        return haystack.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return [] }
            var found: [Int] = []
            var start = 0
            while found.count < 2, start + needle.count <= bytes.count,
                  let candidate = memchr(base + start, Int32(first), bytes.count - needle.count + 1 - start) {
                let offset = base.distance(to: UnsafeRawPointer(candidate))
                if memcmp(candidate, needle, needle.count) == 0 { found.append(offset) }
                start = offset + 1
            }
            return found
        }
    }

    /// Calls `body` with a populated store, each of its files and the file's bytes, and a
    /// generator seeded with `seed`.
    private func forEachFile(seed: UInt64,
                             _ body: (TemporaryDirectory, String, Data, inout SplitMix) throws -> Void) throws {
        let original = try makeStore()
        var generator = SplitMix(seed: seed)
        for file in try tableFiles(of: original) {
            try body(original, file, try #require(FileManager.default.contents(atPath: original.file(file))), &generator)
        }
    }

    @Test func bitFlipsInStoredValuesOfEveryFileAreReported() throws {
        let seed: UInt64 = 7
        try forEachFile(seed: seed) { original, file, contents, generator in
            let ranges = try valueRanges(of: file, in: original, contents: contents)
            #expect(!ranges.isEmpty, "\(file): no stored value found in the file")
            for _ in 0 ..< 8 {
                guard let range = ranges.randomElement(using: &generator) else { break }
                let offset = Int.random(in: range, using: &generator)
                let bit = UInt8.random(in: 0 ... 7, using: &generator)
                let damaged = try copy(original, flipping: bit, at: offset, of: file, contents: contents)
                try expectDamageReported(damaged, "seed \(seed): \(file) byte \(offset) bit \(bit) (value at \(range))")
            }
        }
    }

    @Test func bitFlipsAnywhereGiveAnswersNotCrashes() throws {
        let seed: UInt64 = 8
        try forEachFile(seed: seed) { original, file, contents, generator in
            for _ in 0 ..< 4 {
                // Anywhere: the header, the bucket array, record headers, keys, free space.
                let offset = Int.random(in: 0 ..< contents.count, using: &generator)
                let bit = UInt8.random(in: 0 ... 7, using: &generator)
                let damaged = try copy(original, flipping: bit, at: offset, of: file, contents: contents)
                // A flip in free space or padding harms nothing: "healthy" is a right answer here.
                try expectAnswer(damaged, "seed \(seed): \(file) byte \(offset) bit \(bit)")
            }
        }
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

        // The page is checksummed whole (PageCheck): its 32 records (rowIDs 32 to 50 here, from
        // page 1) are reported together; page 0 is untouched.
        let store = try directory.openStore()
        #expect(throws: StoreError.corruptRecord(class: "Song", rowID: 17)) { _ = try store.object(of: Song.self, rowID: 17) }
        #expect(throws: StoreError.corruptRecord(class: "Song", rowID: 16)) { _ = try store.object(of: Song.self, rowID: 16) }
        #expect(try store.object(of: Song.self, rowID: 40)?.title == "Title number 40")
        let report = try store.verify()
        #expect(report.problems == [.corruptRecord(class: "Song", rowID: 0), .missingRecords(table: "Song", expected: 50, found: 19)])
        #expect(report.classes.first { $0.name == "Song" }?.recordCount == 19)
    }

    @Test func aDamagedTextIndexRegistryRecordIsReported() throws {
        let directory = try makeStore()
        // The class's record in the metadata that says it has an index: a flip in its checksum.
        let path = directory.file("_store.tch")
        var bytes = try #require(FileManager.default.contents(atPath: path))
        let backend = try TokyoCabinetBackend(path: directory.path, configuration: BackendConfiguration(readOnly: true))
        let record = try backend.withValue(forKey: TextIndex.registryKey(for: "CrashA"), in: "_store") { $0.map(Array.init) }
        try backend.close()
        let value = try #require(record)
        let offset = try #require(occurrences(of: value, in: bytes).first)
        bytes[offset + value.count - 1] ^= 0x10
        try bytes.write(to: URL(fileURLWithPath: path))
        #expect(try Worker.run(["verify", directory.path]) == "problems 1")
    }

    @Test func truncatedFilesAreReported() throws {
        let original = try makeStore()
        for file in try tableFiles(of: original) {
            let size = try #require(FileManager.default.contents(atPath: original.file(file))).count
            for keep in [0, 100, 256, size / 2, size - 1] {
                let damaged = try copy(original)
                let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: damaged.file(file)))
                try handle.truncate(atOffset: UInt64(keep))
                try handle.close()
                let what = "\(file) cut to \(keep) of \(size) bytes"
                // Emptied too: the registry counts what each file holds.
                try expectDamageReported(damaged, what)
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
