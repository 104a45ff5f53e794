// EtcdWatch against the real cluster: puts and deletes arrive in revision order, each once; a
// member killed under the watch loses and repeats nothing (EtcdWatchFaultTests, serialized with
// the other suites that kill members); a start revision etcd compacted away is reported as lost
// history; and the stream's lines are cut and bounded as they arrive.

import EtcdTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import LarderEtcd

@Suite struct EtcdWatchTests {
    @Test func aWatchDeliversPutsAndDeletesInRevisionOrder() throws {
        let client = try EtcdTestStore.client()
        let layout = try EtcdKeyLayout(prefix: EtcdTestStore.freshPrefix("watch"))
        let start = try client.currentRevision() + 1
        let updates = Recorder<EtcdWatchUpdate>()
        let watch = EtcdWatch(endpoints: client.endpoints, from: layout.root, before: EtcdKeyLayout.end(ofPrefix: layout.root),
                              startRevision: start) { updates.record($0) }
        defer { watch.stop() }
        let a = layout.key([1], in: "t"), b = layout.key([2], in: "t")
        let outside = Array("\(UUID())".utf8)
        var expected: [EtcdWatchEvent] = []
        typealias Change = (kind: EtcdWatchEvent.Kind, key: [UInt8], value: [UInt8]?)
        let steps: [([TransactionOperation], [Change])] = [
            ([.put([1], forKey: a)], [(.put, a, [1])]),
            ([.put([2], forKey: b), .put([3], forKey: a)], [(.put, b, [2]), (.put, a, [3])]),
            ([.delete(a)], [(.delete, a, nil)]),
            ([.put([4], forKey: outside)], []),
            ([.delete(b), .put([5], forKey: a)], [(.delete, b, nil), (.put, a, [5])]),
        ]
        for (operations, changes) in steps {
            let revision = try client.transaction(comparing: [], success: operations).revision
            expected += changes.map { EtcdWatchEvent(kind: $0.kind, key: $0.key, revision: revision, value: $0.value) }
        }
        let delivered = Self.events(in: updates.wait { Self.events(in: $0).count >= expected.count })
        // Within one revision etcd gives the events in the transaction's order.
        #expect(delivered == expected)
        #expect(updates.recorded.first == .watching(endpoint: client.endpoints[0], from: start))
        #expect(!updates.recorded.contains { if case .historyLost = $0 { return true } else { return false } })
    }

    @Test func aCompactedStartRevisionIsReportedAsLostHistory() async throws {
        // A cluster of its own: compaction would break the other suites' pinned reads.
        let cluster = try EtcdCluster(memberCount: 1)
        defer { cluster.stop() }
        let client = try EtcdClient(endpoints: cluster.endpoints)
        let layout = try EtcdKeyLayout(prefix: "compacted")
        let key = layout.key([1], in: "t")
        let first = try client.transaction(comparing: [], success: [.put([1], forKey: key)]).revision
        _ = try client.transaction(comparing: [], success: [.put([2], forKey: key)])
        let compactedAt = try client.transaction(comparing: [], success: [.put([3], forKey: key)]).revision
        try await Self.compact(cluster.endpoints[0], revision: compactedAt)
        let updates = Recorder<EtcdWatchUpdate>()
        let watch = EtcdWatch(endpoints: cluster.endpoints, from: layout.root, before: EtcdKeyLayout.end(ofPrefix: layout.root),
                              startRevision: first) { updates.record($0) }
        defer { watch.stop() }
        let later = try client.transaction(comparing: [], success: [.delete(key)]).revision
        let recorded = updates.wait { Self.events(in: $0).contains { $0.revision == later } }
        // The revisions before the compaction are said lost first, then the one at it is
        // delivered and the later one (in one update or two: catching up, etcd sends several
        // revisions at once).
        #expect(recorded.first { if case .historyLost = $0 { return true } else { return false } }
                == .historyLost(from: first, through: compactedAt - 1))
        let lost = recorded.firstIndex { if case .historyLost = $0 { return true } else { return false } }
        let delivered = recorded.firstIndex { if case .events = $0 { return true } else { return false } }
        #expect((lost ?? .max) < (delivered ?? .min))
        #expect(Self.events(in: recorded) == [EtcdWatchEvent(kind: .put, key: key, revision: compactedAt, value: [3]),
                                              EtcdWatchEvent(kind: .delete, key: key, revision: later)])
    }

    /// The events of every update, in order.
    static func events(in updates: [EtcdWatchUpdate]) -> [EtcdWatchEvent] {
        updates.flatMap { update -> [EtcdWatchEvent] in
            if case let .events(events) = update { return events } else { return [] }
        }
    }

    @Test func streamLinesAreCutAcrossBuffersAndBounded() throws {
        var lines = EtcdStreamLines(maximumLength: 8)
        #expect(try lines.append(Array("{\"a\":".utf8)) == [])
        #expect(try lines.append(Array("1}\n\n{\"b\"".utf8)) == [Array("{\"a\":1}".utf8)])
        #expect(try lines.append(Array(":2}\n".utf8)) == [Array("{\"b\":2}".utf8)])
        #expect(throws: EtcdStreamLines.LineTooLong(length: 9)) { try lines.append(Array("123456789".utf8)) }
        var split = EtcdStreamLines(maximumLength: 8)
        #expect(throws: EtcdStreamLines.LineTooLong(length: 10)) { try split.append(Array("12345\n67890abcde\n".utf8)) }
    }

    /// Compacts the cluster's history up to `revision` (`/v3/kv/compaction`).
    static func compact(_ endpoint: String, revision: Int64) async throws {
        guard let url = URL(string: endpoint + "/v3/kv/compaction") else { throw URLError(.badURL) }
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.httpBody = Data("{\"revision\": \"\(revision)\", \"physical\": true}".utf8)
        let (body, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200, "\(String(decoding: body, as: UTF8.self))")
    }
}

extension EtcdMemberTests {
@Suite struct EtcdWatchFaultTests {
    @Test(arguments: [0, 2])
    func aWatchSurvivesTheKillOfItsMemberLosingAndRepeatingNothing(member: Int) throws {
        let cluster = try EtcdTestStore.cluster()
        let client = try EtcdTestStore.client()
        let layout = try EtcdKeyLayout(prefix: EtcdTestStore.freshPrefix("watchfault"))
        // The watch connects to the first endpoint it is given: the member to be killed.
        let endpoints = [cluster.endpoints[member]] + cluster.endpoints.enumerated().filter { $0.offset != member }.map(\.element)
        let updates = Recorder<EtcdWatchUpdate>()
        let watch = EtcdWatch(endpoints: endpoints, from: layout.root, before: EtcdKeyLayout.end(ofPrefix: layout.root),
                              startRevision: try client.currentRevision() + 1) { updates.record($0) }
        defer { watch.stop() }
        defer { try? cluster.restart(member: member) }
        var revisions: [Int64] = []
        for number in 0 ..< 30 {
            if number == 12 {
                updates.wait { $0.contains { if case .events = $0 { return true } else { return false } } }
                cluster.kill(member: member)
            }
            let key = layout.key([UInt8(number)], in: "t")
            revisions.append(try client.transaction(comparing: [], success: [.put([UInt8(number)], forKey: key)]).revision)
        }
        let delivered = EtcdWatchTests.events(in: updates.wait { EtcdWatchTests.events(in: $0).count >= 30 })
        #expect(delivered.map(\.key) == (0 ..< 30).map { layout.key([UInt8($0)], in: "t") })
        #expect(delivered.map(\.revision) == revisions)
        let recorded = updates.recorded
        #expect(recorded.contains { if case .interrupted(endpoints[0], _) = $0 { return true } else { return false } })
        // It watched again, from another member, from the revision after the last it delivered.
        let rewatched = recorded.compactMap { update -> (String, Int64)? in
            if case let .watching(endpoint, from) = update { return (endpoint, from) } else { return nil }
        }
        #expect(rewatched.count >= 2)
        #expect(rewatched.dropFirst().first?.0 != endpoints[0])
        #expect(!recorded.contains { if case .historyLost = $0 { return true } else { return false } })
    }
}
}
