// EtcdBackend.refreshToNewestState() against the real cluster: it names exactly the keys other
// clients wrote or deleted (by table, whatever the save's size), not the backend's own; the
// cache outlives it for every other key (a read of one makes no network call: the cluster is
// stopped and it still answers); and when the watch cannot tell, it says so and empties the cache.

import EtcdTestSupport
import Foundation
import Larder
import Testing
@testable import LarderEtcd

@Suite struct EtcdRefreshTests {
    @Test func aRefreshNamesExactlyTheKeysAnotherClientWroteOrDeleted() throws {
        let prefix = EtcdTestStore.freshPrefix("changed")
        let other = try EtcdTestStore.backend(prefix: prefix)
        var first = WriteBatch()
        for key: UInt8 in 1 ... 4 { first.put([key], forKey: [key], in: "t") }
        first.put([9], forKey: [9], in: "u")
        try other.apply(first)
        let backend = try EtcdTestStore.backend(prefix: prefix)
        #expect(try backend.refreshToNewestState() == .unchanged)

        var second = WriteBatch()
        second.put([20], forKey: [2], in: "t")
        second.removeValue(forKey: [3], in: "t")
        second.put([1], forKey: [0, 1], in: "a/b%")
        second.removeValue(forKey: [7], in: "u")   // absent: named all the same (the save's manifest lists what it writes)
        try other.apply(second)
        var third = WriteBatch()
        third.put([21], forKey: [2], in: "t")
        third.removeValue(forKey: [9], in: "u")
        try other.apply(third)
        #expect(try backend.refreshToNewestState() == .changed(keys: ["t": [[2], [3]], "a/b%": [[0, 1]], "u": [[7], [9]]]))
        #expect(try backend.withValue(forKey: [2], in: "t") { $0.map(Array.init) } == [21])
        #expect(try backend.refreshToNewestState() == .unchanged)

        // Its own save is not another client's change; the other client's refresh names its keys.
        var own = WriteBatch()
        own.put([10], forKey: [1], in: "t")
        try backend.apply(own)
        #expect(try backend.refreshToNewestState() == .unchanged)
        #expect(try other.refreshToNewestState() == .changed(keys: ["t": [[1]]]))
    }

    @Test func aStagedCommitOfAnotherClientIsNamedKeyByKey() throws {
        let prefix = EtcdTestStore.freshPrefix("stagedchanges")
        let other = try EtcdTestStore.backend(prefix: prefix, limits: EtcdLimits(maximumOperations: 4, maximumRequestBytes: 4096))
        let backend = try EtcdTestStore.backend(prefix: prefix)
        var batch = WriteBatch()
        for key: UInt8 in 0 ..< 40 { batch.put([key, key], forKey: [key], in: "big") }
        try other.apply(batch)
        #expect(try backend.refreshToNewestState() == .changed(keys: ["big": Set((0 ..< 40).map { [UInt8($0)] })]))
        #expect(try backend.recordCount(in: "big") == 40)
    }

    @Test func aSaveTooBigToNameItsKeysMakesARefreshSayAnyKeyMayHaveChanged() throws {
        // A manifest over its budget (a quarter of a 4 KiB transaction) is left out of the save
        // key's record: the refresh cannot name keys, so it says any may have changed.
        let prefix = EtcdTestStore.freshPrefix("unnamed")
        let other = try EtcdTestStore.backend(prefix: prefix, limits: EtcdLimits(maximumOperations: 16, maximumRequestBytes: 4096))
        let backend = try EtcdTestStore.backend(prefix: prefix)
        var generator = SystemRandomNumberGenerator()
        var batch = WriteBatch()
        for _ in 0 ..< 200 {
            let key = (0 ..< 12).map { _ in UInt8.random(in: 0 ... 255, using: &generator) }
            batch.put([1], forKey: key, in: "wide")
        }
        try other.apply(batch)
        #expect(try backend.refreshToNewestState() == .changed(keys: nil))
        #expect(try backend.recordCount(in: "wide") == 200)
        // The next save names its keys again.
        var small = WriteBatch()
        small.put([2], forKey: [2], in: "wide")
        try other.apply(small)
        #expect(try backend.refreshToNewestState() == .changed(keys: ["wide": [[2]]]))
    }

    @Test func aSaveKeyWithoutARecordMakesARefreshSayAnyKeyMayHaveChanged() throws {
        // An earlier Larder put a bare mark under the save key: no record, so no keys named.
        let prefix = EtcdTestStore.freshPrefix("baremark")
        let backend = try EtcdTestStore.backend(prefix: prefix)
        var batch = WriteBatch()
        batch.put([1], forKey: [1], in: "t")
        try backend.apply(batch)
        let client = try EtcdTestStore.client()
        _ = try client.transaction(comparing: [], success: [.put([5], forKey: backend.layout.tablePrefix("t") + [1]),
                                                            .put(Array(UUID().uuidString.utf8), forKey: backend.layout.saveKey)])
        #expect(try backend.refreshToNewestState() == .changed(keys: nil))
        #expect(try backend.withValue(forKey: [1], in: "t") { $0.map(Array.init) } == [5])
    }

    @Test func theCacheOutlivesARefreshButForTheChangedKeys() throws {
        // A cluster of its own, stopped after the refresh: what the backend still answers can
        // only come from its cache.
        let cluster = try EtcdCluster(memberCount: 1)
        defer { cluster.stop() }
        let writer = try EtcdBackend(endpoints: cluster.endpoints, prefix: "kept", failoverTime: 0.5)
        var batch = WriteBatch()
        for key: UInt8 in 1 ... 3 { batch.put([key], forKey: [key], in: "t") }
        try writer.apply(batch)
        let reader = try EtcdBackend(endpoints: cluster.endpoints, prefix: "kept", failoverTime: 0.5)
        for key: UInt8 in 1 ... 3 {
            #expect(try reader.withValue(forKey: [key], in: "t") { $0.map(Array.init) } == [key])
        }
        #expect(try reader.withValue(forKey: [4], in: "t") { $0 == nil })
        var change = WriteBatch()
        change.put([22], forKey: [2], in: "t")
        change.put([44], forKey: [4], in: "t")
        try writer.apply(change)
        #expect(try reader.refreshToNewestState() == .changed(keys: ["t": [[2], [4]]]))
        #expect(try reader.withValue(forKey: [2], in: "t") { $0.map(Array.init) } == [22])
        #expect(try reader.withValue(forKey: [4], in: "t") { $0.map(Array.init) } == [44])
        cluster.stop()
        // Unchanged keys, read before the refresh, need no network; an unread one does.
        #expect(try reader.withValue(forKey: [1], in: "t") { $0.map(Array.init) } == [1])
        #expect(try reader.withValue(forKey: [3], in: "t") { $0.map(Array.init) } == [3])
        #expect(throws: EtcdError.self) { try reader.withValue(forKey: [5], in: "t") { $0 == nil } }
    }

    @Test func anOwnSaveKeepsTheCacheThoughOtherPrefixesWroteMeanwhile() throws {
        let cluster = try EtcdCluster(memberCount: 1)
        defer { cluster.stop() }
        let backend = try EtcdBackend(endpoints: cluster.endpoints, prefix: "own", failoverTime: 0.5)
        let neighbour = try EtcdBackend(endpoints: cluster.endpoints, prefix: "neighbour", failoverTime: 0.5)
        var batch = WriteBatch()
        batch.put([1], forKey: [1], in: "t")
        try backend.apply(batch)
        let read = backend.revision
        #expect(try backend.withValue(forKey: [1], in: "t") { $0.map(Array.init) } == [1])
        #expect(try backend.withValue(forKey: [3], in: "t") { $0 == nil })
        var elsewhere = WriteBatch()
        elsewhere.put([9], forKey: [9], in: "t")
        try neighbour.apply(elsewhere)
        var own = WriteBatch()
        own.put([2], forKey: [2], in: "t")
        try backend.apply(own)
        #expect(backend.revision > read + 1)
        cluster.stop()
        #expect(try backend.withValue(forKey: [1], in: "t") { $0.map(Array.init) } == [1])
        #expect(try backend.withValue(forKey: [2], in: "t") { $0.map(Array.init) } == [2])
        #expect(try backend.withValue(forKey: [3], in: "t") { $0 == nil })
        #expect(throws: EtcdError.self) { try backend.withValue(forKey: [4], in: "t") { $0 == nil } }
    }

    /// A member frozen with SIGSTOP keeps the watch's connection open and says nothing: the
    /// refresh that waits for it in vain moves the watch on, and the next names keys again.
    @Test func aWatchOnAFrozenMemberMovesOnAndTheNextRefreshNamesKeysAgain() throws {
        let cluster = try EtcdCluster(memberCount: 3)
        defer { cluster.stop() }
        // The reader's watch and requests go to member 0 first; the writer never asks it.
        let reader = try EtcdBackend(endpoints: cluster.endpoints, prefix: "frozen", requestTimeout: 1, failoverTime: 10)
        reader.watchCatchUpTimeout = 1
        let writer = try EtcdBackend(endpoints: Array(cluster.endpoints[1...]), prefix: "frozen", requestTimeout: 1, failoverTime: 10)
        var first = WriteBatch()
        first.put([1], forKey: [1], in: "t")
        try writer.apply(first)
        #expect(try reader.refreshToNewestState() == .changed(keys: ["t": [[1]]]))

        cluster.freeze(member: 0)
        defer { cluster.thaw(member: 0) }
        var second = WriteBatch()
        second.put([2], forKey: [2], in: "t")
        try writer.apply(second)
        #expect(try reader.refreshToNewestState() == .changed(keys: nil))
        #expect(try reader.withValue(forKey: [2], in: "t") { $0.map(Array.init) } == [2])

        var third = WriteBatch()
        third.put([3], forKey: [3], in: "t")
        third.put([20], forKey: [2], in: "t")
        try writer.apply(third)
        #expect(try reader.refreshToNewestState() == .changed(keys: ["t": [[2], [3]]]))
        #expect(try reader.withValue(forKey: [3], in: "t") { $0.map(Array.init) } == [3])
    }

    @Test func whenTheWatchCannotTellARefreshSaysAnyKeyMayHaveChangedAndEmptiesTheCache() throws {
        let cluster = try EtcdCluster(memberCount: 1)
        defer { cluster.stop() }
        let writer = try EtcdBackend(endpoints: cluster.endpoints, prefix: "unknown", failoverTime: 0.5)
        var batch = WriteBatch()
        batch.put([1], forKey: [1], in: "t")
        try writer.apply(batch)
        let reader = try EtcdBackend(endpoints: cluster.endpoints, prefix: "unknown", failoverTime: 0.5)
        #expect(try reader.withValue(forKey: [1], in: "t") { $0.map(Array.init) } == [1])
        reader.stopWatching()
        reader.watchCatchUpTimeout = 0.5
        var change = WriteBatch()
        change.put([2], forKey: [2], in: "t")
        try writer.apply(change)
        #expect(try reader.refreshToNewestState() == .changed(keys: nil))
        cluster.stop()
        #expect(throws: EtcdError.self) { try reader.withValue(forKey: [1], in: "t") { $0 == nil } }
    }
}
