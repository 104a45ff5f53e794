// MemoryBackend on its own: ordered reads give what Tokyo Cabinet's B+tree gives for the same
// batches (forward, backward, from the record holding a key), a batch that fails half-way
// changes nothing, declarations and reopening behave as on disk.

import Foundation
import Testing
@testable import Larder
import LarderTestSupport

@Suite struct MemoryBackendTests {
    /// Random puts and deletes of 1- to 3-byte keys in an ordered and a hash table.
    private func randomBatches(seed: UInt64) -> [WriteBatch] {
        var random = SplitMix(seed: seed)
        return (0 ..< 6).map { _ in
            var batch = WriteBatch()
            for _ in 0 ..< 80 {
                let key = (0 ..< Int(random.next() % 3 + 1)).map { _ in UInt8(random.next() % 6) }
                let table = random.next() % 3 == 0 ? "hash" : "t.idx"
                if random.next() % 4 == 0 {
                    batch.removeValue(forKey: key, in: table)
                } else {
                    batch.put([UInt8(random.next() % 256)], forKey: key, in: table)
                }
            }
            return batch
        }
    }

    private func records(_ backend: any Backend, from start: [UInt8]?, through end: [UInt8]?,
                         reverse: Bool) throws -> [[UInt8]] {
        var found: [[UInt8]] = []
        try backend.forEachRecord(in: "t.idx", from: start, through: end, reverse: reverse) { key, value in
            found.append(Array(key) + [0xFF] + Array(value))
            return true
        }
        return found
    }

    private func holding(_ backend: any Backend, _ start: [UInt8], through end: [UInt8]?) throws -> [[UInt8]] {
        var found: [[UInt8]] = []
        try backend.forEachRecord(in: "t.idx", holding: start, through: end) { key, _ in
            found.append(Array(key))
            return found.count < 5
        }
        return found
    }

    @Test(arguments: [UInt64(3), 77, 2_026])
    func orderedReadsMatchTokyoCabinetsBTree(seed: UInt64) throws {
        let directory = TemporaryDirectory("memory-vs-tc")
        let disk = try TokyoCabinetBackend(path: directory.path, configuration: BackendConfiguration(durability: .noSync))
        let memory = MemoryBackend()
        for backend in [disk, memory] as [any Backend] { backend.declareOrderedTable("t.idx") }
        for batch in randomBatches(seed: seed) {
            try disk.apply(batch)
            try memory.apply(batch)
        }
        #expect(try memory.recordCount(in: "t.idx") == disk.recordCount(in: "t.idx"), "seed \(seed)")
        #expect(try memory.recordCount(in: "hash") == disk.recordCount(in: "hash"), "seed \(seed)")
        var random = SplitMix(seed: seed ^ 0x5EED)
        for _ in 0 ..< 60 {
            let bound = { (0 ..< Int(random.next() % 3)).map { _ in UInt8(random.next() % 6) } }
            let start: [UInt8]? = random.next() % 4 == 0 ? nil : bound()
            let end: [UInt8]? = random.next() % 4 == 0 ? nil : bound()
            let reverse = random.next() % 2 == 0
            #expect(try records(memory, from: start, through: end, reverse: reverse)
                    == records(disk, from: start, through: end, reverse: reverse),
                    "seed \(seed): \(String(describing: start)) ... \(String(describing: end)) reverse \(reverse)")
            let key = bound()
            #expect(try holding(memory, key, through: end) == holding(disk, key, through: end), "seed \(seed): holding \(key)")
        }
        try disk.close()
    }

    @Test func aBatchThatFailsHalfWayChangesNothing() throws {
        let backend = MemoryBackend()
        backend.declareOrderedTable("t.idx")
        var first = WriteBatch()
        first.put([1], forKey: [1], in: "t.idx")
        first.put([1], forKey: [1], in: "hash")
        try backend.apply(first)
        var second = WriteBatch()
        second.put([2], forKey: [1], in: "t.idx")
        second.put([2], forKey: [2], in: "t.idx")
        second.removeValue(forKey: [1], in: "hash")
        second.put([3], forKey: [3], in: "other")
        // Every write of the batch but the last, then the commit: each failure leaves the first batch.
        for failing in 1 ... 5 {
            backend.faultInjector = FaultInjector(failingOperation: failing)
            #expect(throws: BackendError.self) { try backend.apply(second) }
            #expect(try backend.withValue(forKey: [1], in: "t.idx") { $0.map(Array.init) } == [1], "failing \(failing)")
            #expect(try backend.recordCount(in: "t.idx") == 1 && backend.recordCount(in: "hash") == 1, "failing \(failing)")
            #expect(try backend.recordCount(in: "other") == 0, "failing \(failing)")
        }
        backend.faultInjector = nil
        try backend.apply(second)
        #expect(try backend.withValue(forKey: [1], in: "t.idx") { $0.map(Array.init) } == [2])
        #expect(try backend.recordCount(in: "t.idx") == 2 && backend.recordCount(in: "hash") == 0)
    }

    @Test func tablesMustBeDeclaredOrderedAndKeepTheirRecordsWhenTheyAre() throws {
        let backend = MemoryBackend()
        var batch = WriteBatch()
        for key in [[9], [3], [5, 1], [5]] as [[UInt8]] { batch.put([0], forKey: key, in: "late.idx") }
        try backend.apply(batch)
        #expect(throws: BackendError.unorderedTable("late.idx")) {
            try backend.forEachRecord(in: "late.idx", from: nil, through: nil, reverse: false) { _, _ in true }
        }
        backend.declareOrderedTable("late.idx")
        var keys: [[UInt8]] = []
        try backend.forEachRecord(in: "late.idx", from: nil, through: nil, reverse: false) { key, _ in
            keys.append(Array(key))
            return true
        }
        #expect(keys == [[3], [5], [5, 1], [9]])
    }

    @Test func aClosedBackendRefusesWorkAndAReopenedOneSeesItsTables() throws {
        let backend = MemoryBackend()
        var batch = WriteBatch()
        batch.put([7], forKey: [1], in: "t")
        try backend.apply(batch)
        try backend.close()
        #expect(throws: BackendError.closed) { try backend.apply(batch) }
        #expect(throws: BackendError.closed) { _ = try backend.recordCount(in: "t") }
        let reopened = backend.reopened()
        #expect(try reopened.withValue(forKey: [1], in: "t") { $0.map(Array.init) } == [7])
    }

    @Test func aStoreRunsOnItAndReadsBackWhatItSaved() throws {
        let backend = MemoryBackend()
        let store = try Store(backend: backend)
        try store.register(Song.self)
        try store.insert(Song(title: "So What", seconds: 545))
        try store.saveChanges()
        try store.close()
        let again = try Store(backend: backend.reopened())
        try again.register(Song.self)
        #expect(try again.object(of: Song.self, rowID: 1)?.title == "So What")
        #expect(try again.verify().isHealthy)
        try again.close()
    }
}
