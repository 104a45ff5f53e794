// The shared test cluster and a fresh key prefix per test: tests on the one cluster never see
// each other's keys (a prefix is a store).

import EtcdTestSupport
import Foundation
@testable import LarderEtcd

enum EtcdTestStore {
    /// The process's cluster (started on first use).
    static func cluster() throws -> EtcdCluster {
        try EtcdCluster.shared.get()
    }

    /// A prefix no other test uses.
    static func freshPrefix(_ label: String = "test") -> String {
        "larder-\(label)-\(UUID().uuidString)"
    }

    /// A backend on the shared cluster under `prefix`.
    static func backend(prefix: String, limits: EtcdLimits = .etcdDefaults) throws -> EtcdBackend {
        try EtcdBackend(endpoints: cluster().endpoints, prefix: prefix, limits: limits)
    }

    /// A client of the shared cluster, to look at keys behind a backend's back.
    static func client() throws -> EtcdClient {
        try EtcdClient(endpoints: cluster().endpoints)
    }
}
