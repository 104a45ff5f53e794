// Measure: one phase of a BNR workload, run and reported the way the engine measures it: timed
// as it runs (Larder, on Tokyo Cabinet files or on etcd), or, for the raw etcd engine, run on its
// TracingBackend with the calls recorded, then those calls replayed on etcd and the replay timed.
// On etcd, the phase's requests (EtcdRequestCounter) are reported as `ranges=` and `txns=`.

import Foundation
import SpeedSupport

/// Runs and reports the phase `phase`; returns its timing (zero while the raw engine prepares).
@discardableResult
func measure(phase: String, storePath: String, _ body: () throws -> (count: Int, check: String)) throws -> Timing {
    let counter = engineMode.etcdEndpoints.map(EtcdRequestCounter.init)
    let timing: Timing
    let before: EtcdRequestCounter.Counts?
    if let rawRun {
        if rawRun.isPreparing {
            let (count, check) = try body()
            return Timing(wall: 0, cpu: 0, count: count, check: check)
        }
        let (result, calls) = try rawRun.backend(forStoreAt: storePath).recording(body)
        before = counter?.read()
        timing = try timed {
            try rawRun.replay(calls, storeAt: storePath)
            return result
        }
    } else {
        before = counter?.read()
        timing = try timed(body)
    }
    var extra: [String] = []
    if let before, let after = counter?.read() {
        let counts = after - before
        extra = ["ranges=\(counts.ranges)", "txns=\(counts.transactions)"]
    }
    reporter.report(phase: phase, wall: timing.wall, cpu: timing.cpu, sizeBytes: SpeedReporter.size(of: storePath),
                    count: timing.count, check: timing.check, extraFields: extra)
    return timing
}
