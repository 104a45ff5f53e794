// RawEtcdRun: the state of a run of the raw etcd engine: a TracingBackend per store path (its
// records in memory, kept for the whole process), the raw client, and whether the run is
// preparing (making its chain's store again, unmeasured) or measuring.

import Foundation
import LarderEtcd

final class RawEtcdRun: @unchecked Sendable {
    // @unchecked: a process-wide constant (main.swift's `rawRun`) used by the process's one thread.
    struct NotRaw: Error, CustomStringConvertible {
        var description: String { "the raw etcd engine's store was asked for outside its run" }
    }

    let client: EtcdRawClient
    /// True while the chain's first workload makes the store again: phases run, unrecorded and unreported.
    var isPreparing = false
    private var backends: [String: TracingBackend] = [:]

    init(endpoint: String) {
        client = EtcdRawClient(endpoint: endpoint)
    }

    /// The memory backend that stands for the store at `path`.
    func backend(forStoreAt path: String) -> TracingBackend {
        if let backend = backends[path] { return backend }
        let backend = TracingBackend()
        backends[path] = backend
        return backend
    }

    /// Makes `calls`, recorded on the store at `path`, on etcd under that store's prefix.
    func replay(_ calls: [BackendCall], storeAt path: String) throws {
        try RawEtcdReplay(client: client, layout: EtcdKeyLayout(prefix: EngineMode.etcdPrefix(forStoreAt: path))).replay(calls)
    }
}

extension Optional where Wrapped == RawEtcdRun {
    /// The run, or a typed error when there is none (not the raw engine).
    func orThrow() throws -> RawEtcdRun {
        guard let run = self else { throw RawEtcdRun.NotRaw() }
        return run
    }
}
