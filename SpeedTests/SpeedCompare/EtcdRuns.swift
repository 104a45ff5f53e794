// EtcdRuns: the etcd engines' part of a run: a 3-member etcd cluster on loopback (EtcdCluster,
// data under /dev/shm where there is one), then each repetition's runs of Larder on an
// EtcdBackend ("LarderEtcd") and the raw etcd client ("Etcd", the same bytes through plain v3
// gateway calls) on the BNR workloads at --etcd-scale, then the cluster stopped: after the runs,
// whether they failed or not, and, should SpeedCompare die, by the cluster's watchdog. The
// durability is the cluster's (each member's WAL, in memory): the runs are labelled with the
// first durability asked for.

import EtcdTestSupport
import Foundation
import SpeedSupport

struct EtcdRuns {
    let engines: [String]
    let options: Options
    let binDirectory: URL
    let baseDirectory: String

    func run() -> (results: [Result], failures: [Failure], notes: [String]) {
        guard !engines.isEmpty, let scale = options.etcdScale, let durability = options.durabilities.first else {
            return ([], [], [])
        }
        let cluster: EtcdCluster
        do {
            stderrLine("SpeedCompare: starting a 3-member etcd cluster")
            cluster = try EtcdCluster(memberCount: 3)
        } catch {
            stderrLine("SpeedCompare: no etcd engine run: \(error)")
            let failures = engines.map {
                Failure(durability: durability, repetition: 1, engine: $0, workload: "all", reason: "no etcd cluster: \(error)")
            }
            return ([], failures, ["etcd engines not run: \(error)"])
        }
        defer { cluster.stop() }
        var results: [Result] = []
        var failures: [Failure] = []
        for repetition in 0 ..< options.repetitions {
            let shift = repetition % engines.count
            for engine in engines[shift...] + engines[..<shift] {
                let run = EngineRun(engine: engine, executable: binDirectory.appendingPathComponent(executableName(of: engine)),
                                    durability: durability, repetition: repetition + 1, of: options.repetitions,
                                    scale: scale, baseDirectory: baseDirectory,
                                    environment: ["LARDER_SPEED_ENGINE": engine,
                                                  "LARDER_ETCD_ENDPOINTS": cluster.endpoints.joined(separator: ",")])
                let outcome = run.runChains(workloads(of: engine).intersection(options.workloads))
                results += outcome.results
                failures += outcome.failures
            }
        }
        let location = cluster.directory.hasPrefix("/dev/shm") ? "/dev/shm (memory)" : "a temporary directory"
        return (results, failures, ["etcd engines: etcd 3.4, 3 members on loopback, data in \(location), scale \(scale)"])
    }
}
