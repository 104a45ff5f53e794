// EtcdRequestCounter: how many range reads and transactions the cluster served, summed over its
// members' /metrics (`grpc_server_handled_total` of the KV service's Range and Txn: the JSON
// gateway hands each request to its member's gRPC server). Read before and after a phase, the
// difference is the phase's requests, for either etcd engine, without touching its client.

import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

struct EtcdRequestCounter {
    struct Counts {
        var ranges = 0
        var transactions = 0
        static func - (a: Counts, b: Counts) -> Counts {
            Counts(ranges: a.ranges - b.ranges, transactions: a.transactions - b.transactions)
        }
    }

    let endpoints: [String]

    /// The counts now, or nil when a member's metrics cannot be read.
    func read() -> Counts? {
        var counts = Counts()
        for endpoint in endpoints {
            guard let response = try? HTTPClient.shared.get(url: endpoint + "/metrics", deadline: .now() + .seconds(5)).wait(),
                  response.status == .ok, let body = response.body else { return nil }
            for line in String(decoding: body.readableBytesView, as: UTF8.self).split(separator: "\n")
            where line.hasPrefix("grpc_server_handled_total{") && line.contains("grpc_service=\"etcdserverpb.KV\"") {
                guard let value = line.split(separator: " ").last.flatMap({ Double($0) }) else { continue }
                if line.contains("grpc_method=\"Range\"") { counts.ranges += Int(value) }
                if line.contains("grpc_method=\"Txn\"") { counts.transactions += Int(value) }
            }
        }
        return counts
    }
}
