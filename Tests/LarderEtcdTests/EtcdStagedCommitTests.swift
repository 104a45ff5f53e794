// Batches over etcd's transaction limits (made small here: 8 operations, 4 KiB) go in as staged
// commits: applied whole, never seen in part by a reader at an older revision, and, when the
// client stops before publishing, invisible and cleaned up by the next open; when it stops after
// publishing, finished by the next open.

import Foundation
import Larder
import Testing
@testable import LarderEtcd

@Suite struct EtcdStagedCommitTests {
    private let small = EtcdLimits(maximumOperations: 8, maximumRequestBytes: 4096)

    /// 60 puts in "t" (keys 0..<60, values of 200 bytes of `fill`) and the delete of key 200.
    private func bigBatch(fill: UInt8) -> WriteBatch {
        var batch = WriteBatch()
        for key in 0 ..< 60 { batch.put([UInt8](repeating: fill, count: 200), forKey: [UInt8(key)], in: "t") }
        batch.removeValue(forKey: [200], in: "t")
        return batch
    }

    /// The first byte of every value of "t", by key.
    private func contents(_ backend: EtcdBackend) throws -> [UInt8: UInt8] {
        var contents: [UInt8: UInt8] = [:]
        try backend.forEachRecord(in: "t") { key, value in
            #expect(value.allSatisfy { $0 == value.first })
            contents[key[0]] = value.first
            return true
        }
        return contents
    }

    private func stagingAndCommitKeys(under prefix: String) throws -> [[UInt8]] {
        let layout = try EtcdKeyLayout(prefix: prefix)
        let client = try EtcdTestStore.client()
        return try client.range(from: layout.commitRoot, before: EtcdKeyLayout.end(ofPrefix: layout.stagingRoot),
                                revision: nil, keysOnly: true).records.map(\.key)
    }

    /// Keys 0..<60 of "t" with values of `fill`.
    private func filled(_ fill: UInt8) -> [UInt8: UInt8] {
        Dictionary(uniqueKeysWithValues: (0 ..< 60).map { (UInt8($0), fill) })
    }

    /// What `seeded()` holds: keys 0..<60 with 1s, and key 200.
    private var seededContents: [UInt8: UInt8] { filled(1).merging([200: 1]) { $1 } }

    /// Every truncation of `chunk`, and every flipped bit, is a typed error, never a trap nor
    /// writes under other keys.
    private func expectEveryDamageIsATypedError(_ chunk: [UInt8]) {
        for end in 0 ..< chunk.count {
            #expect(throws: EtcdError.self) { try EtcdStagedChunk.writes(in: Array(chunk[..<end]), key: "k") }
        }
        for position in chunk.indices {
            for bit in 0 ..< 8 {
                var damaged = chunk
                damaged[position] ^= 1 << bit
                #expect(throws: EtcdError.self) { try EtcdStagedChunk.writes(in: damaged, key: "k") }
            }
        }
    }

    /// A store whose "t" holds keys 0..<60 with values of 1s and key 200.
    private func seeded() throws -> (prefix: String, backend: EtcdBackend) {
        let prefix = EtcdTestStore.freshPrefix("staged")
        let backend = try EtcdTestStore.backend(prefix: prefix, limits: small)
        var batch = bigBatch(fill: 1)
        batch.put([1], forKey: [200], in: "t")
        try backend.apply(batch)
        return (prefix, backend)
    }

    @Test func aBatchOverTheLimitsIsAppliedWholeAndLeavesNoStaging() throws {
        let (prefix, backend) = try seeded()
        #expect(try contents(backend).count == 61)
        let before = backend.revision
        try backend.apply(bigBatch(fill: 2))
        #expect(backend.revision > before + 2)   // staged: several transactions
        let expected = filled(2)
        #expect(try contents(backend) == expected)
        #expect(try contents(EtcdTestStore.backend(prefix: prefix)) == expected)
        #expect(try backend.recordCount(in: "t") == 60)
        #expect(try stagingAndCommitKeys(under: prefix).isEmpty)
    }

    @Test func aReaderAtTheOldRevisionNeverSeesPartOfIt() throws {
        let (prefix, writer) = try seeded()
        let reader = try EtcdTestStore.backend(prefix: prefix, limits: small)
        // The commit stops with part of its writes copied into the table.
        writer.interruption = .afterRollingForward(transactions: 3)
        #expect(throws: StagedCommitInterrupted.self) { try writer.apply(bigBatch(fill: 2)) }
        let tables = try EtcdTestStore.client().range(
            from: writer.layout.tablePrefix("t"), before: EtcdKeyLayout.end(ofPrefix: writer.layout.tablePrefix("t")),
            revision: nil).records
        let copied = tables.filter { $0.value.first == 2 }.count
        #expect(copied > 0 && copied < 60)   // the table itself is half copied
        try expectNoneThenAllOfTheCommit(filling: 2, seenBy: reader, under: prefix)
    }

    /// `reader`, at its revision, sees none of a published commit that fills "t" with `fill`;
    /// refreshing finishes the commit before reading, and it sees all of it.
    private func expectNoneThenAllOfTheCommit(filling fill: UInt8, seenBy reader: EtcdBackend, under prefix: String) throws {
        #expect(try contents(reader) == seededContents)
        try reader.refresh()
        #expect(try contents(reader) == filled(fill))
        #expect(try stagingAndCommitKeys(under: prefix).isEmpty)
    }

    @Test func aCommitStoppedBeforePublishingIsInvisibleAndTheNextOpenRemovesIt() throws {
        let (prefix, writer) = try seeded()
        writer.interruption = .afterStaging
        #expect(throws: StagedCommitInterrupted.self) { try writer.apply(bigBatch(fill: 2)) }
        #expect(try !stagingAndCommitKeys(under: prefix).isEmpty)   // its chunks were staged
        let old = seededContents
        // Within the grace period an open leaves it (its client may still be writing it); after,
        // the next open removes it.
        let soon = try EtcdTestStore.backend(prefix: prefix, limits: small)
        #expect(try contents(soon) == old)
        #expect(try !stagingAndCommitKeys(under: prefix).isEmpty)
        let later = try EtcdBackend(endpoints: EtcdTestStore.cluster().endpoints, prefix: prefix, limits: small,
                                    stagingGracePeriod: 0)
        #expect(try contents(later) == old)
        #expect(try stagingAndCommitKeys(under: prefix).isEmpty)
    }

    @Test func aCommitStoppedAfterPublishingIsFinishedByTheNextOpen() throws {
        let (prefix, writer) = try seeded()
        writer.interruption = .afterPublishing
        #expect(throws: StagedCommitInterrupted.self) { try writer.apply(bigBatch(fill: 3)) }
        let next = try EtcdTestStore.backend(prefix: prefix, limits: small)
        #expect(try contents(next) == filled(3))
        #expect(try stagingAndCommitKeys(under: prefix).isEmpty)
    }

    /// The publishing transaction carries the first writes (so they are neither staged nor
    /// copied): in the table from the commit point, and still unseen by a reader at its revision.
    @Test func thePublishingTransactionWritesTheFirstWritesAndAReaderStillSeesNoneOfThem() throws {
        let (prefix, writer) = try seeded()
        let reader = try EtcdTestStore.backend(prefix: prefix, limits: small)
        writer.interruption = .afterPublishing
        #expect(throws: StagedCommitInterrupted.self) { try writer.apply(bigBatch(fill: 5)) }
        let table = writer.layout.tablePrefix("t")
        let written = try EtcdTestStore.client().range(from: table, before: EtcdKeyLayout.end(ofPrefix: table), revision: nil)
            .records.filter { $0.value.first == 5 }.count
        // 8 operations a transaction, less the commit record, the save key and room for a chunk.
        #expect(written == 5)
        try expectNoneThenAllOfTheCommit(filling: 5, seenBy: reader, under: prefix)
    }

    /// Staged writes that fit one chunk in the publishing transaction are not staged beforehand:
    /// a commit stopped before publishing has left nothing, one stopped after has its chunk, and
    /// the whole commit lands as before.
    @Test func stagedWritesThatFitThePublishingTransactionAreNotStagedBeforehand() throws {
        let (prefix, writer) = try seeded()
        // 20 puts of 10 bytes: 5 published, 15 staged in one small chunk.
        func smallBatch(fill: UInt8) -> WriteBatch {
            var batch = WriteBatch()
            for key in 0 ..< 20 { batch.put([UInt8](repeating: fill, count: 10), forKey: [UInt8(key)], in: "t") }
            return batch
        }
        writer.interruption = .afterStaging
        #expect(throws: StagedCommitInterrupted.self) { try writer.apply(smallBatch(fill: 6)) }
        #expect(try stagingAndCommitKeys(under: prefix).isEmpty)
        writer.interruption = .afterPublishing
        #expect(throws: StagedCommitInterrupted.self) { try writer.apply(smallBatch(fill: 7)) }
        let layout = try EtcdKeyLayout(prefix: prefix)
        let left = try stagingAndCommitKeys(under: prefix)
        #expect(left.count == 2)   // the commit record and its one chunk
        #expect(left.filter { $0.starts(with: layout.stagingRoot) }.count == 1)
        let next = try EtcdTestStore.backend(prefix: prefix, limits: small)
        var expected = seededContents
        for key in 0 ..< 20 { expected[UInt8(key)] = 7 }
        #expect(try contents(next) == expected)
        #expect(try stagingAndCommitKeys(under: prefix).isEmpty)
        try next.apply(smallBatch(fill: 8))
        for key in 0 ..< 20 { expected[UInt8(key)] = 8 }
        #expect(try contents(EtcdTestStore.backend(prefix: prefix)) == expected)
        #expect(try stagingAndCommitKeys(under: prefix).isEmpty)
    }

    /// The plan of a staged commit: what the publishing transaction writes and carries, what is
    /// staged beforehand, within the limits' operations and bytes.
    @Test func aPlanCarriesTheLastChunkOnlyWhenThePublishingTransactionHasRoomForIt() throws {
        let key = 40   // a chunk key's length
        let small = (0 ..< 20).map { EtcdWrite(key: [UInt8($0)], value: [UInt8](repeating: 1, count: 10)) }
        let fits = EtcdStagedCommitPlan(small, limits: self.small, chunkKeySize: key)
        #expect(fits.published == Array(small[..<5]))   // 8 operations less record, save key, chunk
        #expect(fits.staged == Array(small[5...]))
        #expect(fits.chunks.count == 1 && fits.stagedBeforehand == 0)
        #expect(fits.carriedChunks.count == 1)
        // Values that fill the request and do not deflate: the published writes leave no bytes
        // for a chunk.
        let large = (0 ..< 40).map { EtcdWrite(key: [UInt8($0)], value: (0 ..< 600).map { _ in UInt8.random(in: 0 ... 255) }) }
        let full = EtcdStagedCommitPlan(large, limits: self.small, chunkKeySize: key)
        #expect(full.published.count == 3)   // 3 × 625 bytes of the 2,048 left once 1 KiB is kept
        #expect(full.stagedBeforehand == full.chunks.count && full.carriedChunks.isEmpty)
        #expect(try full.chunks.flatMap { try EtcdStagedChunk.writes(in: $0, key: "k") } == full.staged)
        // Two operations a transaction: the record and the save key, nothing else.
        let tiny = EtcdStagedCommitPlan(small, limits: EtcdLimits(maximumOperations: 2, maximumRequestBytes: 8192), chunkKeySize: key)
        #expect(tiny.published.isEmpty && tiny.staged == small)
        #expect(tiny.stagedBeforehand == tiny.chunks.count)
    }

    @Test func aSmallSaveFinishesAPublishedCommitFirst() throws {
        let (prefix, writer) = try seeded()
        writer.interruption = .afterRollingForward(transactions: 1)
        #expect(throws: StagedCommitInterrupted.self) { try writer.apply(bigBatch(fill: 4)) }
        // Another client's small save (over a key the commit also writes) waits for the
        // commit to be finished, so the later save wins.
        let second = try EtcdBackend(endpoints: EtcdTestStore.cluster().endpoints, prefix: prefix, limits: small)
        var batch = WriteBatch()
        batch.put([UInt8](repeating: 9, count: 200), forKey: [5], in: "t")
        try second.apply(batch)
        var expected = filled(4)
        expected[5] = 9
        #expect(try contents(EtcdTestStore.backend(prefix: prefix)) == expected)
    }

    @Test func aRecordOverTheRequestLimitIsATypedErrorAndChangesNothing() throws {
        let (prefix, backend) = try seeded()
        var batch = WriteBatch()
        batch.put([7], forKey: [1], in: "t")
        batch.put([UInt8](repeating: 7, count: 5000), forKey: [2], in: "t")
        #expect(throws: EtcdError.recordTooLarge(table: "t", size: 5000, limit: 4096)) { try backend.apply(batch) }
        #expect(try contents(EtcdTestStore.backend(prefix: prefix))[1] == 1)
    }

    @Test func damagedStagedChunksAndCommitRecordsAreTypedErrors() throws {
        #expect(throws: EtcdError.self) { try EtcdStagedChunk.writes(in: Array("LEC1".utf8) + [1, 0, 0, 0, 9, 1], key: "k") }
        #expect(throws: EtcdError.self) { try EtcdStagedChunk.writes(in: Array("LEC1".utf8) + [3], key: "k") }
        #expect(throws: EtcdError.self) { try EtcdStagedChunk.writes(in: [1, 2, 3], key: "k") }
        #expect(throws: EtcdError.self) { try EtcdStagedChunk.counts(ofCommitRecord: Array("LEP1".utf8) + [0, 0], key: "k") }
        let writes = [EtcdWrite(key: [1, 2], value: [3]), EtcdWrite(key: [4], value: nil), EtcdWrite(key: [], value: [])]
        let chunks = EtcdStagedChunk.chunks(of: writes, capacity: 24)
        #expect(chunks.count == 2)
        #expect(try chunks.flatMap { try EtcdStagedChunk.writes(in: $0, key: "k") } == writes)
        let whole = EtcdStagedChunk.chunks(of: writes, capacity: 1000)[0]
        expectEveryDamageIsATypedError(whole)
    }

    /// Writes that deflate go in a compressed chunk, read back the same; every truncation and
    /// flipped bit of it, and a length that lies, is a typed error.
    @Test func compressibleWritesGoInACompressedChunkAndDamageToItIsATypedError() throws {
        let writes = (0 ..< 20).map { EtcdWrite(key: [UInt8($0)], value: [UInt8](repeating: UInt8($0), count: 200)) }
            + [EtcdWrite(key: [99], value: nil)]
        let chunks = EtcdStagedChunk.chunks(of: writes, capacity: 100_000)
        #expect(chunks.count == 1)
        let whole = chunks[0]
        #expect(whole.starts(with: Array("LEZ1".utf8)))
        #expect(whole.count < writes.reduce(0) { $0 + EtcdStagedChunk.size(of: $1) } / 4)
        #expect(try EtcdStagedChunk.writes(in: whole, key: "k") == writes)
        expectEveryDamageIsATypedError(whole)
        // The checksum covers the compressed bytes, not the stated length: a length that lies
        // (longer or shorter) is caught by inflating to exactly it.
        for change in [1, -1] as [Int] {
            var lying = whole
            lying[11] = UInt8(truncatingIfNeeded: Int(lying[11]) + change)
            #expect(throws: EtcdError.self) { try EtcdStagedChunk.writes(in: lying, key: "k") }
        }
    }
}
