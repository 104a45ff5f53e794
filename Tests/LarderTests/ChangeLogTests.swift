// The sequence number and the change log (Store.changes(since:)): kept with each save in its own
// batch, so they survive a reopen; the log keeps the last `changeLogLimit` saves and prunes the
// rest in the same commit; too old and future numbers are typed errors; the records are sealed
// in an encrypted store and checksummed in a plaintext one, and a damaged one is a typed error
// and a verify problem; rekey, compaction and the upgrade from format 6 keep them.

import Foundation
import LarderTestSupport
import Testing
@testable import Larder

@Suite struct ChangeLogTests {
    private let model: [StoredObject.Type] = [Song.self, Playlist.self, FeedItem.self]

    private func open(_ directory: TemporaryDirectory, limit: Int = 1_000, key: String? = nil,
                      readOnly: Bool = false) throws -> Store {
        var configuration = Store.Configuration.quickKey(key, readOnly: readOnly)
        configuration.changeLogLimit = limit
        return try directory.openStore(model, configuration: configuration)
    }

    /// Makes `count` saves of one new song each.
    private func save(_ count: Int, into store: Store) throws {
        for _ in 0 ..< count {
            try store.insert(Song(title: "song", seconds: 1))
            try store.saveChanges()
        }
    }

    /// The sequence numbers of the change records in the store's `_store` table.
    private func storedChangeRecords(_ store: Store) throws -> [UInt64] {
        var numbers: [UInt64] = []
        try store.backend.forEachRecord(in: Store.metadataTable) { key, _ in
            if let number = ChangeRecord.sequence(inKey: key) { numbers.append(number) }
            return true
        }
        return numbers.sorted()
    }

    @Test(arguments: BackendKind.allCases) func theSequenceAndTheLogSurviveAReopen(_ backend: BackendKind) async throws {
        let directory = TemporaryDirectory("log-reopen", backend: backend)
        let delivered: [StoreChange]
        do {
            let store = try open(directory)
            #expect(store.changeSequence == 0)
            #expect(try store.changes(since: 0) == [])
            let feed = store.changes
            let (songs, playlists) = try insertLibrary(into: store, songs: 10, perPlaylist: 4)
            try store.delete(songs[9])
            playlists[2].songs.removeLast()
            try store.saveChanges()
            var buffer = DataBuffer()
            buffer.writeReference(playlists[0])
            try store.setDataBuffer(buffer, forName: "current")
            songs[0].title = "renamed"
            try store.saveChanges()
            try store.close()
            delivered = await collect(feed)
        }
        #expect(delivered.map(\.sequence) == [1, 2, 3, 4])
        let store = try open(directory)
        #expect(store.changeSequence == 4)
        #expect(try store.changes(since: 0) == delivered)
        #expect(try store.changes(since: 2) == Array(delivered[2...]))
        #expect(try store.changes(since: 4) == [])
        #expect(throws: StoreError.futureSequence(since: 5, current: 4)) { try store.changes(since: 5) }
        try save(1, into: store)
        #expect(try store.changes(since: 4) == [.expected(5, ["Song": ([11], [], [])])])
        #expect(try store.verify().changeRecordCount == 5)
        try store.close()
        if backend == .tokyoCabinet {
            let reader = try open(directory, readOnly: true)
            #expect(reader.changeSequence == 5)
            #expect(try reader.changes(since: 3).map(\.sequence) == [4, 5])
        }
    }

    @Test(arguments: BackendKind.allCases) func theLogKeepsTheLastSavesAndPrunesInTheSameCommit(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory("log-limit", backend: backend)
        do {
            let store = try open(directory, limit: 5)
            try save(12, into: store)
            #expect(try store.changes(since: 7).map(\.sequence) == [8, 9, 10, 11, 12])
            #expect(throws: StoreError.changesNoLongerAvailable(since: 6, oldestAvailable: 7)) { try store.changes(since: 6) }
            #expect(try storedChangeRecords(store) == [8, 9, 10, 11, 12])
            try store.close()
        }
        do {
            // A lower limit drops the older records at the next save, in its batch.
            let store = try open(directory, limit: 2)
            #expect(try store.changes(since: 7).count == 5)
            try save(1, into: store)
            #expect(try storedChangeRecords(store) == [12, 13])
            #expect(throws: StoreError.changesNoLongerAvailable(since: 10, oldestAvailable: 11)) { try store.changes(since: 10) }
            try store.close()
        }
        do {
            // No log: numbers still count, nothing is kept.
            let store = try open(directory, limit: 0)
            try save(1, into: store)
            #expect(store.changeSequence == 14)
            #expect(try storedChangeRecords(store) == [])
            #expect(try store.changes(since: 14) == [])
            #expect(throws: StoreError.changesNoLongerAvailable(since: 13, oldestAvailable: 14)) { try store.changes(since: 13) }
            try store.close()
        }
        let store = try open(directory)
        try save(2, into: store)
        #expect(try store.changes(since: 14).map(\.sequence) == [15, 16])
        #expect(throws: StoreError.changesNoLongerAvailable(since: 13, oldestAvailable: 14)) { try store.changes(since: 13) }
        #expect(try store.verify().isHealthy)
    }

    @Test func aLimitLoweredFarBelowTheLogRemovesItInOneSave() throws {
        let directory = TemporaryDirectory("log-long", backend: .memory)
        do {
            let store = try open(directory, limit: 6_000)
            try save(5_000, into: store)
            #expect(try storedChangeRecords(store).count == 5_000)
            try store.close()
        }
        let store = try open(directory, limit: 1)
        try save(1, into: store)
        #expect(try storedChangeRecords(store) == [5_001])
        #expect(try store.verify().isHealthy)
    }

    @Test func aSaveOfAHundredThousandInsertsLogsAFewBytes() throws {
        let directory = TemporaryDirectory("log-large", backend: .memory)
        let store = try open(directory)
        for i in 1 ... 100_000 { try store.insert(Song(title: "", seconds: UInt32(i))) }
        try store.saveChanges()
        let size = try store.backend.withValue(forKey: ChangeRecord.key(for: 1), in: Store.metadataTable) { $0?.count }
        #expect(try #require(size) < 24)
        let change = try #require(try store.changes(since: 0).first)
        #expect(change.inserted(of: Song.self) == Array(1 ... 100_000))
        // Updates of every other object: one range each.
        for rowID in stride(from: 2 as UInt64, through: 100_000, by: 2) {
            try #require(try store.object(of: Song.self, rowID: rowID)).seconds = 0
        }
        try store.saveChanges()
        let updates = try #require(try store.backend.withValue(forKey: ChangeRecord.key(for: 2), in: Store.metadataTable) { $0?.count })
        #expect(updates < 50_000 * 2 + 24)
        #expect(try store.changes(since: 1).first?.updated(of: Song.self) == Array(stride(from: 2, through: 100_000, by: 2)))
    }

    @Test func theLogIsSealedInAnEncryptedStoreAndChecksummedInAPlaintextOne() throws {
        for key in ["correct horse", nil] {
            let directory = TemporaryDirectory("log-sealed")
            do {
                let store = try open(directory, key: key)
                try save(3, into: store)
                try store.close()
            }
            let raw = RawMetadata(directory: directory)
            let format = key == nil ? RecordEnvelope.checkedFormat : RecordEnvelope.encryptedFormat
            for name in ["change/0000000000000001", "change/0000000000000003", "sequence"] {
                #expect(try raw.envelope(forKey: Array(name.utf8))?.first == format, "\(name)")
            }
            // The content of save 2's record (Song 2 inserted) is not in any file of the
            // encrypted store.
            let content = ChangeRecord(.expected(2, ["Song": ([2], [], [])])) { _ in 1 }.encoded().bytes
            var files = Data()
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
                files.append(try Data(contentsOf: URL(fileURLWithPath: directory.file(name))))
            }
            #expect((files.range(of: Data(content)) != nil) == (key == nil))
        }
    }

    @Test func aRecordMovedOrUnsealedInAnEncryptedStoreIsRefused() throws {
        let directory = TemporaryDirectory("log-moved")
        do {
            let store = try open(directory, key: "k")
            try save(3, into: store)
            try store.close()
        }
        let raw = RawMetadata(directory: directory)
        let first = try #require(try raw.envelope(forKey: ChangeRecord.key(for: 1)))
        try raw.put(first, forKey: ChangeRecord.key(for: 2))
        do {
            let store = try open(directory, key: "k")
            #expect(try store.changes(since: 2).count == 1)
            #expect(throws: StoreError.self) { try store.changes(since: 1) }
            do {
                _ = try store.changes(since: 1)
            } catch let StoreError.corruptChangeLog(sequence, _) {
                #expect(sequence == 2)
            }
            let problems = try store.verify().problems
            #expect(problems.count == 1)
            #expect(problems.allSatisfy { if case .corruptChangeLog(2, _) = $0 { true } else { false } }, "\(problems)")
            try store.close()
        }
        // A checksummed record, as someone without the key can write one.
        let plain = try RawMetadata.checksummed(ChangeRecord(.expected(3, ["Song": ([1], [], [])])) { _ in 1 }.encoded(),
                                                key: ChangeRecord.key(for: 3))
        try raw.put(plain, forKey: ChangeRecord.key(for: 3))
        let store = try open(directory, key: "k")
        #expect(throws: StoreError.corruptChangeLog(sequence: 3, reason: "not sealed with the store's key")) {
            try store.changes(since: 2)
        }
        try store.close()
        #expect(throws: StoreError.encryptionKeyRequired) { try open(directory) }
    }

    @Test func aDamagedMissingOrForeignRecordIsATypedErrorAndAVerifyProblem() throws {
        let directory = TemporaryDirectory("log-damage")
        do {
            let store = try open(directory)
            try save(4, into: store)
            try store.close()
        }
        let raw = RawMetadata(directory: directory)
        var damaged = try #require(try raw.envelope(forKey: ChangeRecord.key(for: 2)))
        damaged[3] ^= 0x20
        try raw.put(damaged, forKey: ChangeRecord.key(for: 2))
        // Well formed and checksummed, but naming a class that does not exist and a rowID never
        // handed out.
        try raw.put(RawMetadata.checksummed(ChangeRecord(.expected(3, ["Song": ([9], [], [])])) { _ in 77 }.encoded(),
                                            key: ChangeRecord.key(for: 3)), forKey: ChangeRecord.key(for: 3))
        try raw.put(RawMetadata.checksummed(ChangeRecord(.expected(4, ["Song": ([9], [], [])])) { _ in 1 }.encoded(),
                                            key: ChangeRecord.key(for: 4)), forKey: ChangeRecord.key(for: 4))
        let store = try open(directory)
        #expect(throws: StoreError.corruptChangeLog(sequence: 2, reason: "damaged record (checksumMismatch)")) {
            try store.changes(since: 1)
        }
        #expect(throws: StoreError.corruptChangeLog(sequence: 3, reason: "no class has ID 77")) { try store.changes(since: 2) }
        #expect(throws: StoreError.corruptChangeLog(sequence: 4, reason: "Song never handed out rowID 9")) {
            try store.changes(since: 3)
        }
        let report = try store.verify()
        #expect(report.problems.count == 3)
        #expect(report.changeRecordCount == 4)
        try store.close()

        // A missing record, and one outside the saves kept.
        let backend = try TokyoCabinetBackend(path: directory.path)
        var batch = WriteBatch()
        batch.removeValue(forKey: ChangeRecord.key(for: 1), in: Store.metadataTable)
        batch.put(damaged, forKey: ChangeRecord.key(for: 9), in: Store.metadataTable)
        try backend.apply(batch)
        try backend.close()
        let reopened = try open(directory)
        #expect(throws: StoreError.corruptChangeLog(sequence: 1, reason: "the record is missing")) { try reopened.changes(since: 0) }
        let problems = try reopened.verify().problems
        #expect(problems.contains(.corruptChangeLog(sequence: 1, reason: "1 of the records kept are missing")))
        #expect(problems.contains { if case .corruptChangeLog(9, _) = $0 { true } else { false } })
        try reopened.close()

        // The sequence record itself.
        var sequence = try #require(try raw.envelope(forKey: ChangeSequenceRecord.key))
        sequence[2] ^= 0x01
        try raw.put(sequence, forKey: ChangeSequenceRecord.key)
        #expect(throws: StoreError.corruptMetadata(key: "sequence", reason: "damaged record (checksumMismatch)")) {
            try open(directory)
        }
    }

    @Test func aSequenceRecordThatClaimsMoreThanTheLogHoldsIsReportedNotTrusted() throws {
        let directory = TemporaryDirectory("log-claims")
        do {
            let store = try open(directory)
            try save(3, into: store)
            try store.close()
        }
        // Checksummed as a plaintext store's, claiming a trillion saves all kept.
        let claim = ChangeSequenceRecord(sequence: 1 << 40, oldestKept: 1)
        try RawMetadata(directory: directory).put(RawMetadata.checksummed(claim.encoded(), key: ChangeSequenceRecord.key),
                                                  forKey: ChangeSequenceRecord.key)
        let store = try open(directory)
        #expect(throws: StoreError.corruptChangeLog(sequence: 4, reason: "the record is missing")) { try store.changes(since: 0) }
        #expect(try store.verify().problems == [.corruptChangeLog(sequence: 4, reason: "\((1 << 40) - 3) of the records kept are missing")])
        // The next save removes what the log no longer keeps by finding it, not by counting.
        try save(1, into: store)
        #expect(try storedChangeRecords(store) == [(1 << 40) + 1])
        #expect(try store.changes(since: 1 << 40).count == 1)
    }

    @Test func rekeyCompactionAndEncryptionKeepTheLog() throws {
        let directory = TemporaryDirectory("log-rekey")
        let store = try open(directory)
        try save(3, into: store)
        let before = try store.changes(since: 0)
        try store.rekey(to: "new", iterations: 1_000)
        #expect(try store.changes(since: 0) == before)
        #expect(try store.backend.withValue(forKey: ChangeRecord.key(for: 2), in: Store.metadataTable) { $0?.first }
                == RecordEnvelope.encryptedFormat)
        try save(1, into: store)
        try store.compact()
        #expect(try store.changes(since: 0).count == 4)
        try store.rekey(to: nil)
        #expect(try store.changes(since: 1).map(\.sequence) == [2, 3, 4])
        let report = try store.verify()
        #expect(report.isHealthy && report.changeRecordCount == 4)
        try store.close()
        #expect(try RawMetadata(directory: directory).envelope(forKey: ChangeRecord.key(for: 2))?.first == RecordEnvelope.checkedFormat)

        // A plaintext store opened with a key seals its log with the rest of its metadata.
        let encrypted = try open(directory, key: "turned on")
        #expect(try encrypted.changes(since: 0) == before + [.expected(4, ["Song": ([4], [], [])])])
        try encrypted.close()
        #expect(try RawMetadata(directory: directory).envelope(forKey: ChangeRecord.key(for: 4))?.first == RecordEnvelope.encryptedFormat)
    }

    @Test func aFormat6StoreStartsAtZeroAndIsUpgradedByItsFirstWriter() throws {
        let directory = TemporaryDirectory("log-format6")
        do {
            let store = try open(directory)
            try save(3, into: store)
            try store.close()
        }
        // As Larder wrote it before the change log: no sequence, no change record, format 6.
        let backend = try TokyoCabinetBackend(path: directory.path)
        var batch = WriteBatch()
        for number in 1 ... 3 as ClosedRange<UInt64> { batch.removeValue(forKey: ChangeRecord.key(for: number), in: Store.metadataTable) }
        batch.removeValue(forKey: ChangeSequenceRecord.key, in: Store.metadataTable)
        var format = DataBuffer()
        format.writeVarInt(6)
        try batch.putSealed(format, forKey: Store.formatKey, in: Store.metadataTable)
        try backend.apply(batch)
        try backend.close()

        let reader = try open(directory, readOnly: true)
        #expect(reader.changeSequence == 0)
        #expect(try reader.changes(since: 0) == [])
        try reader.close()
        let store = try open(directory)
        let stored = try store.backend.withValue(forKey: Store.formatKey, in: Store.metadataTable) { value in
            try value.map { value in
                var buffer = try Store.formatKey.withUnsafeBytes { try store.openMetadata(value, key: $0, name: "format") }
                return try buffer.readVarInt()
            }
        }
        #expect(stored == Store.formatVersion)
        try save(1, into: store)
        #expect(try store.changes(since: 0) == [.expected(1, ["Song": ([4], [], [])])])
        #expect(try store.verify().isHealthy)
    }
}
