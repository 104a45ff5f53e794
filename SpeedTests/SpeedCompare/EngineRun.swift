// EngineRun: one engine's workloads of one repetition, each in a child process, chain by chain
// in a fresh directory (removed after): the results they printed and the failures.

import Foundation
import SpeedSupport

struct EngineRun {
    let engine: String
    let executable: URL
    let durability: String
    let repetition: Int
    let repetitions: Int
    let scale: String
    let baseDirectory: String
    /// Set in the child's environment (the etcd engines' LARDER_SPEED_ENGINE and endpoints).
    var environment: [String: String] = [:]

    init(engine: String, executable: URL, durability: String, repetition: Int, of repetitions: Int, scale: String,
         baseDirectory: String, environment: [String: String] = [:]) {
        self.engine = engine
        self.executable = executable
        self.durability = durability
        self.repetition = repetition
        self.repetitions = repetitions
        self.scale = scale
        self.baseDirectory = baseDirectory
        self.environment = environment
    }

    /// Runs `workloads` of the chains `only` (every chain when nil) in dependency order; a
    /// chain whose first workload failed runs no more (its store is missing), each workload
    /// left out counted a failure.
    func runChains(_ workloads: Set<Workload>, only: [[Workload]]? = nil) -> (results: [Result], failures: [Failure]) {
        let manager = FileManager.default
        let runDirectory = (baseDirectory as NSString).appendingPathComponent("\(durability)-r\(repetition)-\(engine)")
        try? manager.removeItem(atPath: runDirectory)
        var results: [Result] = []
        var failures: [Failure] = []
        for chain in only ?? chains {
            var brokenBy: Workload?
            for workload in chain where workloads.contains(workload) {
                let label = "[\(durability) r\(repetition)/\(repetitions)] \(engine) \(workload.rawValue)"
                if let brokenBy {
                    failures.append(Failure(durability: durability, repetition: repetition, engine: engine,
                                            workload: workload.rawValue, reason: "not run: \(brokenBy.rawValue) failed"))
                    stderrLine("\(label): not run, \(brokenBy.rawValue) failed")
                    continue
                }
                let arguments = [workload.rawValue, "--dir", runDirectory, "--scale", scale, "--durability", durability]
                // What earlier workloads wrote without fsync (`nosync`) would otherwise be written
                // back by the kernel about 30 s later, inside whichever workload runs then, on
                // either engine: flushed first, each workload starts with nothing left to write.
                sync()
                let start = Date()
                let (output, error) = runChild(executable, arguments, environment: environment, logDirectory: baseDirectory)
                // Only lines that belong to this run count.
                let parsed = output.split(separator: "\n").compactMap(parseResult)
                    .filter { $0.engine == engine && $0.workload == workload.rawValue && $0.durability == durability }
                var reason = error
                if reason == nil && parsed.isEmpty { reason = "no RESULT line" }
                if let reason {
                    failures.append(Failure(durability: durability, repetition: repetition, engine: engine,
                                            workload: workload.rawValue, reason: reason))
                    stderrLine("\(label): FAILED (\(reason))")
                    // A write that failed leaves no store for the rest of its chain.
                    if workload == chain.first { brokenBy = workload }
                    continue
                }
                results += parsed
                let summary = parsed.map { "\($0.phase) \(formatTime($0.wall))" }.suffix(3).joined(separator: ", ")
                stderrLine("\(label): \(summary) (\(String(format: "%.1f", Date().timeIntervalSince(start))) s)")
            }
        }
        do {
            if manager.fileExists(atPath: runDirectory) { try manager.removeItem(atPath: runDirectory) }
        } catch {
            stderrLine("SpeedCompare: cannot remove \(runDirectory): \(error)")
        }
        return (results, failures)
    }
}
