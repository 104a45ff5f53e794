// The test cluster itself: three members on distinct loopback ports picked at run time, each
// healthy, and each answering etcd's gateway. (In EtcdMemberTests: a member killed by a fault
// test would not be healthy.)

import EtcdTestSupport
import Foundation
import Testing
@testable import LarderEtcd

extension EtcdMemberTests {
@Suite struct EtcdClusterTests {
    @Test func threeHealthyMembersOnDistinctLoopbackPorts() throws {
        let cluster = try EtcdTestStore.cluster()
        #expect(cluster.endpoints.count == 3)
        #expect(Set(cluster.endpoints).count == 3)
        for (index, endpoint) in cluster.endpoints.enumerated() {
            #expect(endpoint.hasPrefix("http://127.0.0.1:"))
            #expect(cluster.isHealthy(member: index))
            // Each member answers on its own: a write through one is read through another.
            let client = try EtcdClient(endpoints: [endpoint])
            let key = Array("cluster-test/\(index)/\(UUID())".utf8)
            _ = try client.transaction(comparing: [], success: [.put([UInt8(index)], forKey: key)])
            let other = try EtcdClient(endpoints: [cluster.endpoints[(index + 1) % 3]])
            let read = try other.range(from: key, before: nil, revision: nil)
            #expect(read.records.map(\.value) == [[UInt8(index)]])
        }
        #expect(FileManager.default.fileExists(atPath: cluster.directory))
    }

    @Test func aSecondClusterStartsBesideTheFirstAndStopRemovesIt() throws {
        let shared = try EtcdTestStore.cluster()
        let cluster = try EtcdCluster(memberCount: 1)
        #expect(Set(cluster.endpoints).isDisjoint(with: shared.endpoints))
        #expect(cluster.isHealthy(member: 0))
        cluster.stop()
        #expect(!FileManager.default.fileExists(atPath: cluster.directory))
        #expect(!cluster.isHealthy(member: 0))
        #expect(shared.isHealthy(member: 0))
    }
}
}
