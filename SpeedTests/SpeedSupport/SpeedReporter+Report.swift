// Reporting a phase measured by hand (e.g. a total over rounds) in the RESULT line format.
// Times have nanosecond digits: Concurrency reports a time per read, a few microseconds.

import Foundation

extension SpeedReporter {
    /// Prints a RESULT line for a phase whose times were measured by the caller.
    public func report(phase: String, wall: Double, cpu: Double, storePath: String, count: Int, check: String) {
        report(phase: phase, wall: wall, cpu: cpu, sizeBytes: Self.size(of: storePath), count: count, check: check)
    }

    /// Prints a RESULT line with a size measured by the caller (an index's files).
    /// `extraFields` (`key=value`, no spaces) follow the standard ones.
    public func report(phase: String, wall: Double, cpu: Double, sizeBytes: Int, count: Int, check: String,
                       extraFields: [String] = []) {
        let fields = [
            "engine=\(engine)", "workload=\(arguments.workload.rawValue)", "phase=\(phase)",
            "durability=\(arguments.durability)", "wall=\(String(format: "%.9f", wall))",
            "cpu=\(String(format: "%.9f", cpu))", "rss_kb=\(Self.peakRSSKilobytes())",
            "size_bytes=\(sizeBytes)", "count=\(count)",
            "check=\(check.replacingOccurrences(of: " ", with: "_"))",
        ] + extraFields
        print("RESULT " + fields.joined(separator: " "))
        fflush(nil)
    }
}
