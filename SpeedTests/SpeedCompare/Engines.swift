// Engines: the workloads in dependency order (chains that share a store), what each engine
// runs, and where the engine executables are.

import Foundation
import SpeedSupport

/// The two dependency chains: each workload needs the store written by the first of its chain.
let chains: [[Workload]] = [
    [.complexInsert, .complexFetch, .simpleUpdate],
    [.simpleInsert, .simpleFetch, .simpleFetchStreaming, .pointRead],
    [.fullText],
    [.documents],
    [.queries],
    [.encryption],
    [.changes],
    [.concurrency],
    [.model],
]
let workloadOrder: [Workload] = chains.flatMap { $0 }

/// The engines on etcd (EtcdRuns): Larder on an EtcdBackend, and the raw etcd client.
func isEtcdEngine(_ engine: String) -> Bool { engine == "LarderEtcd" || engine == "Etcd" }

/// The executable that runs `engine`: LarderSpeedTest for the etcd engines too (they need
/// Larder's workloads), told which by its environment.
func executableName(of engine: String) -> String {
    isEtcdEngine(engine) ? "LarderSpeedTest" : "\(engine)SpeedTest"
}

/// The workloads an engine runs (TokyoCabinet is the raw ceiling for the simple workloads only;
/// the etcd engines run the BNR workloads).
func workloads(of engine: String) -> Set<Workload> {
    if engine == "TokyoCabinet" { return [.simpleInsert, .simpleFetch, .pointRead] }
    if isEtcdEngine(engine) { return [.complexInsert, .complexFetch, .simpleUpdate, .simpleInsert, .simpleFetch, .pointRead] }
    if engine == "Larder" { return Set(Workload.allCases) }
    // FullText compares with SQLite FTS5, Documents with SQLite's JSON functions, Queries with
    // SQLite's indexes through its C API: no GRDB side. Encryption is Larder's encrypted store
    // against its plaintext one. Concurrency compares Larder's StorePool with GRDB's
    // DatabasePool: no SQLite side.
    // Model is Larder's @StoredModel Song against its hand-written one.
    let others: Set<Workload> = engine == "GRDB" ? [.fullText, .documents, .queries, .encryption, .changes, .model]
        : [.encryption, .changes, .concurrency, .model]
    return Set(Workload.allCases).subtracting(others)
}

/// Whether `engine` reports `phase` of `workload`: Queries' `documents_` phases are
/// LarderDocuments', run by LarderSpeedTest beside Larder's objects; the other engines have none.
func reports(_ engine: String, phase: String, of workload: Workload) -> Bool {
    engine == "Larder" || workload != .queries || !phase.hasPrefix("documents_")
}

/// Where this executable lives: `dirname argv0`, or /proc/self/exe when argv0 has no slash.
func executableDirectory() -> URL {
    let argv0 = CommandLine.arguments.first ?? ""
    if argv0.contains("/") {
        return URL(fileURLWithPath: argv0).deletingLastPathComponent().standardizedFileURL
    }
    if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
        return URL(fileURLWithPath: path).deletingLastPathComponent()
    }
    return URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
}
