// Faults against the real cluster: a member killed with SIGKILL in the middle of a stream of
// saves (the two others keep a quorum: saves and reads go on, nothing acknowledged is lost, the
// member catches up when restarted), every member of a cluster killed and restarted (nothing
// acknowledged is lost), and endpoints that are wrong or unreachable, each a typed
// error. Serialized with the cluster's own tests (EtcdMemberTests): one member down at a time
// keeps the shared cluster's quorum for the suites running beside it.

import EtcdTestSupport
import Foundation
import Larder
import LarderDocuments
import Testing
@testable import LarderEtcd

/// The suites that look at or kill the shared cluster's members, one test at a time: one member
/// down at a time keeps the quorum, and a health check never meets a member a fault test killed.
@Suite(.serialized) enum EtcdMemberTests {}

extension EtcdMemberTests {
@Suite struct EtcdFaultTests {
    @Test(arguments: [0, 1])
    func savesAndReadsGoOnWhileAMemberIsKilled(member: Int) throws {
        let cluster = try EtcdTestStore.cluster()
        let prefix = EtcdTestStore.freshPrefix("fault")
        let store = try DocumentStore(backend: EtcdBackend(endpoints: cluster.endpoints, prefix: prefix))
        let notes = try store.collection("notes")
        var acknowledged: [RowID] = []
        defer { try? cluster.restart(member: member) }
        for number in 0 ..< 40 {
            if number == 15 { cluster.kill(member: member) }   // the endpoint in use, then another
            let rowID = try notes.insert(["number": .int(Int64(number)), "text": .string("note \(number)")])
            acknowledged.append(rowID)
            if number % 10 == 9 {
                #expect(try notes.count() == number + 1)
            }
        }
        #expect(!cluster.isHealthy(member: member))
        try cluster.restart(member: member)
        try store.close()
        // Every acknowledged save is there, read through the restarted member alone.
        let again = try DocumentStore(backend: EtcdBackend(endpoints: [cluster.endpoints[member]], prefix: prefix))
        let reread = try again.collection("notes")
        #expect(try reread.count() == 40)
        for (number, rowID) in acknowledged.enumerated() {
            #expect(try reread.document(id: rowID)?["number"] == .int(Int64(number)))
        }
    }

    @Test func theWholeClusterKilledAndRestartedKeepsEveryAcknowledgedSave() throws {
        let cluster = try EtcdCluster(memberCount: 3)   // its own: the shared one stays up
        defer { cluster.stop() }
        let store = try DocumentStore(backend: EtcdBackend(endpoints: cluster.endpoints, prefix: "restart"))
        let notes = try store.collection("notes")
        try notes.addIndex("[number]")
        let rowIDs = try (0 ..< 30).map { try notes.insert(["number": .int(Int64($0))]) }
        try store.close()
        for member in 0 ..< 3 { cluster.kill(member: member) }
        #expect(!cluster.isHealthy(member: 0))
        try cluster.restart(members: [0, 1, 2])
        let again = try DocumentStore(backend: EtcdBackend(endpoints: cluster.endpoints, prefix: "restart"))
        let reread = try again.collection("notes")
        #expect(try reread.count() == 30)
        #expect(try reread.count(where: "[number] >= ?", arguments: [20]) == 10)
        for (number, rowID) in rowIDs.enumerated() {
            #expect(try reread.document(id: rowID)?["number"] == .int(Int64(number)))
        }
    }

    @Test func unreachableEndpointsAreATypedError() throws {
        let endpoints = try (0 ..< 2).map { _ in "http://127.0.0.1:\(try EtcdCluster.unusedLoopbackPort())" }
        #expect {
            try EtcdBackend(endpoints: endpoints, prefix: "p", failoverTime: 0.5)
        } throws: { error in
            guard case EtcdError.unreachable(let tried, _) = error else { return false }
            return tried == endpoints
        }
    }

    @Test func anEndpointThatIsNotEtcdIsATypedError() throws {
        // A member's peer port speaks HTTP, but not etcd's client API.
        let cluster = try EtcdTestStore.cluster()
        #expect {
            try EtcdBackend(endpoints: [cluster.peerEndpoints[2]], prefix: "p", failoverTime: 0.5)
        } throws: { error in
            guard case EtcdError.malformedReply = error else { return false }
            return true
        }
    }

    @Test func deadAndNonEtcdEndpointsBeforeALiveOneAreSkipped() throws {
        let cluster = try EtcdTestStore.cluster()
        let dead = "http://127.0.0.1:\(try EtcdCluster.unusedLoopbackPort())"
        let prefix = EtcdTestStore.freshPrefix("skip")
        let backend = try EtcdBackend(endpoints: [dead, cluster.peerEndpoints[0], cluster.endpoints[2]], prefix: prefix)
        var batch = WriteBatch()
        batch.put([1], forKey: [1], in: "t")
        try backend.apply(batch)
        #expect(try EtcdTestStore.backend(prefix: prefix).recordCount(in: "t") == 1)
    }

    @Test(arguments: ["", "ftp://127.0.0.1:2379", "127.0.0.1:2379", "http://127.0.0.1:2379/v3", "http://:2379"])
    func malformedEndpointsAreRefused(endpoint: String) {
        #expect(throws: EtcdError.invalidEndpoint(endpoint)) { try EtcdBackend(endpoints: [endpoint], prefix: "p") }
    }

    @Test func noEndpointOrAnEmptyPrefixIsRefused() throws {
        #expect(throws: EtcdError.invalidEndpoint("(no endpoint)")) { try EtcdBackend(endpoints: [], prefix: "p") }
        #expect(throws: EtcdError.invalidPrefix("")) { try EtcdBackend(endpoints: ["http://127.0.0.1:1"], prefix: "") }
    }
}
}
