// EtcdBackend against the real 3-node cluster: ordered range reads (bounds, reverse, holding a
// key), counts, tables that cannot reach into each other, one-transaction applies that are
// whole, reads pinned at a revision and served from the cache.

import EtcdTestSupport
import Foundation
import Larder
import Testing
@testable import LarderEtcd

@Suite struct EtcdBackendTests {
    /// Keys 0x10, 0x20, ... 0x90 (values their key times two) in the ordered table "t".
    private func nineKeys() throws -> (EtcdBackend, String) {
        let prefix = EtcdTestStore.freshPrefix("ranges")
        let backend = try EtcdTestStore.backend(prefix: prefix)
        backend.declareOrderedTable("t")
        var batch = WriteBatch()
        for key in stride(from: 0x90, through: 0x10, by: -0x10) { batch.put([UInt8(key * 2 & 0xFF)], forKey: [UInt8(key)], in: "t") }
        try backend.apply(batch)
        return (backend, prefix)
    }

    private func keys(_ backend: EtcdBackend, from start: [UInt8]?, through end: [UInt8]?, reverse: Bool = false,
                      stopAfter: Int = .max) throws -> [UInt8] {
        var keys: [UInt8] = []
        try backend.forEachRecord(in: "t", from: start, through: end, reverse: reverse) { key, value in
            #expect(value.first == UInt8(Int(key[0]) * 2 & 0xFF))
            keys.append(key[0])
            return keys.count < stopAfter
        }
        return keys
    }

    @Test func orderedRangesHonourBoundsDirectionAndStop() throws {
        let (backend, _) = try nineKeys()
        #expect(try keys(backend, from: nil, through: nil) == [0x10, 0x20, 0x30, 0x40, 0x50, 0x60, 0x70, 0x80, 0x90])
        #expect(try keys(backend, from: [0x25], through: [0x50]) == [0x30, 0x40, 0x50])
        #expect(try keys(backend, from: [0x30], through: [0x30]) == [0x30])
        #expect(try keys(backend, from: [0x50], through: [0x20]) == [])
        #expect(try keys(backend, from: nil, through: [0x35], reverse: true) == [0x30, 0x20, 0x10])
        #expect(try keys(backend, from: [0x60], through: nil, reverse: true) == [0x90, 0x80, 0x70, 0x60])
        #expect(try keys(backend, from: nil, through: nil, reverse: true, stopAfter: 2) == [0x90, 0x80])
        #expect(try keys(backend, from: [0x41], through: nil, stopAfter: 1) == [0x50])
    }

    @Test func rangesLongerThanAPageAreReadWhole() throws {
        let backend = try EtcdTestStore.backend(prefix: EtcdTestStore.freshPrefix("pages"))
        backend.declareOrderedTable("long")
        var batch = WriteBatch()
        for number in 0 ..< 600 { batch.put([1], forKey: [UInt8(number >> 8), UInt8(number & 0xFF)], in: "long") }
        try backend.apply(batch)   // over 128 operations: a staged commit
        var ascending: [Int] = []
        try backend.forEachRecord(in: "long", from: nil, through: nil, reverse: false) { key, _ in
            ascending.append(Int(key[0]) << 8 | Int(key[1])); return true
        }
        var descending: [Int] = []
        try backend.forEachRecord(in: "long", from: nil, through: nil, reverse: true) { key, _ in
            descending.append(Int(key[0]) << 8 | Int(key[1])); return true
        }
        #expect(ascending == Array(0 ..< 600))
        #expect(descending == Array((0 ..< 600).reversed()))
        #expect(try backend.recordCount(in: "long") == 600)
    }

    @Test func readsHoldingAKeyStartAtTheRecordThatCoversIt() throws {
        let (backend, _) = try nineKeys()
        func holding(_ start: UInt8, through end: [UInt8]?) throws -> [UInt8] {
            var keys: [UInt8] = []
            try backend.forEachRecord(in: "t", holding: [start], through: end) { key, _ in keys.append(key[0]); return true }
            return keys
        }
        #expect(try holding(0x35, through: [0x50]) == [0x30, 0x40, 0x50])
        #expect(try holding(0x30, through: [0x40]) == [0x30, 0x40])
        #expect(try holding(0x05, through: [0x20]) == [0x10, 0x20])
        #expect(try holding(0xF0, through: nil) == [0x90])
    }

    @Test func anUndeclaredTableRefusesOrderedReads() throws {
        let backend = try EtcdTestStore.backend(prefix: EtcdTestStore.freshPrefix("unordered"))
        #expect(throws: BackendError.unorderedTable("plain")) {
            try backend.forEachRecord(in: "plain", from: nil, through: nil, reverse: false) { _, _ in true }
        }
    }

    @Test func tablesWhoseNamesNestStayApart() throws {
        let backend = try EtcdTestStore.backend(prefix: EtcdTestStore.freshPrefix("names"))
        var batch = WriteBatch()
        batch.put([1], forKey: Array("b/x".utf8), in: "a")
        batch.put([2], forKey: Array("x".utf8), in: "a/b")
        batch.put([3], forKey: Array("x".utf8), in: "a%2Fb")
        batch.put([4], forKey: [], in: "a")
        try backend.apply(batch)
        for (table, count) in [("a", 2), ("a/b", 1), ("a%2Fb", 1), ("a/", 0), ("", 0)] {
            #expect(try backend.recordCount(in: table) == count, "\(table)")
        }
        var seen: [[UInt8]] = []
        try backend.forEachRecord(in: "a") { key, _ in seen.append(Array(key)); return true }
        #expect(seen == [[], Array("b/x".utf8)])
        #expect(try backend.withValue(forKey: Array("x".utf8), in: "a/b") { $0.map(Array.init) } == [2])
        #expect(try backend.withValue(forKey: Array("x".utf8), in: "a%2Fb") { $0.map(Array.init) } == [3])
    }

    @Test func aKeysTableIsTheNameItsPrefixEscaped() throws {
        let layout = try EtcdKeyLayout(prefix: "music")
        for table in ["Song", "a/b", "a%2Fb", "%", "people.0.idx"] {
            #expect(layout.table(ofKey: layout.key([0x2F, 1], in: table)) == table)
        }
        #expect(layout.table(ofKey: layout.saveKey) == nil)
        #expect(layout.table(ofKey: layout.commitKey("x")) == nil)
    }

    @Test func aSmallBatchIsOneTransactionAndItsLastWriteOfAKeyWins() throws {
        let prefix = EtcdTestStore.freshPrefix("small")
        let backend = try EtcdTestStore.backend(prefix: prefix)
        var first = WriteBatch()
        first.put([1], forKey: [1], in: "t")
        first.put([2], forKey: [2], in: "t")
        try backend.apply(first)
        var batch = WriteBatch()
        batch.put([9], forKey: [1], in: "t")
        batch.removeValue(forKey: [2], in: "t")
        batch.put([3], forKey: [3], in: "t")
        batch.removeValue(forKey: [3], in: "t")
        batch.put([4], forKey: [4], in: "u")
        try backend.apply(batch)
        // One transaction: every key it wrote changed at the one revision the backend now reads at.
        let layout = backend.layout
        let written = try EtcdTestStore.client().range(from: layout.tablePrefix("t"),
                                                       before: EtcdKeyLayout.end(ofPrefix: layout.tablePrefix("u")),
                                                       revision: nil).records
        #expect(written.map(\.modRevision) == [backend.revision, backend.revision])
        let other = try EtcdTestStore.backend(prefix: prefix)
        #expect(try other.withValue(forKey: [1], in: "t") { $0.map(Array.init) } == [9])
        #expect(try other.withValue(forKey: [2], in: "t") { $0 == nil })
        #expect(try other.withValue(forKey: [3], in: "t") { $0 == nil })
        #expect(try other.recordCount(in: "t") == 1)
        #expect(try other.recordCount(in: "u") == 1)
    }

    @Test func readsStayAtTheirRevisionUntilRefreshed() throws {
        let prefix = EtcdTestStore.freshPrefix("pinned")
        let reader = try EtcdTestStore.backend(prefix: prefix)
        let writer = try EtcdTestStore.backend(prefix: prefix)
        var batch = WriteBatch()
        batch.put([7], forKey: [1], in: "t")
        try writer.apply(batch)
        // The reader opened before the save: it reads the store as it was, point, scan and count.
        #expect(try reader.withValue(forKey: [1], in: "t") { $0 == nil })
        #expect(try reader.recordCount(in: "t") == 0)
        var scanned = 0
        try reader.forEachRecord(in: "t") { _, _ in scanned += 1; return true }
        #expect(scanned == 0)
        try reader.refresh()
        #expect(try reader.withValue(forKey: [1], in: "t") { $0.map(Array.init) } == [7])
        #expect(try reader.recordCount(in: "t") == 1)
    }

    @Test func aRepeatedReadIsServedFromTheCacheWithoutTheNetwork() throws {
        // A cluster of its own, stopped after the first reads: reading again can only be
        // answered from the backend's cache.
        let cluster = try EtcdCluster(memberCount: 1)
        defer { cluster.stop() }
        let backend = try EtcdBackend(endpoints: cluster.endpoints, prefix: "cache", failoverTime: 0.5)
        backend.declareOrderedTable("t")
        var batch = WriteBatch()
        batch.put([5], forKey: [1], in: "t")
        try backend.apply(batch)
        #expect(try backend.withValue(forKey: [1], in: "t") { $0.map(Array.init) } == [5])
        #expect(try backend.withValue(forKey: [2], in: "t") { $0 == nil })
        cluster.stop()
        #expect(try backend.withValue(forKey: [1], in: "t") { $0.map(Array.init) } == [5])
        #expect(try backend.withValue(forKey: [2], in: "t") { $0 == nil })
        #expect(throws: EtcdError.self) { try backend.withValue(forKey: [3], in: "t") { $0 == nil } }
    }

    @Test func aClosedBackendRefusesEveryCall() throws {
        let backend = try EtcdTestStore.backend(prefix: EtcdTestStore.freshPrefix("closed"))
        try backend.close()
        #expect(throws: BackendError.closed) { try backend.recordCount(in: "t") }
        #expect(throws: BackendError.closed) { try backend.apply(WriteBatch()) }
    }
}
