// EngineMode: which engine a LarderSpeedTest run measures, from its environment. By default
// Larder on Tokyo Cabinet files ("Larder"); with LARDER_SPEED_ENGINE=LarderEtcd, Larder on an
// EtcdBackend; with LARDER_SPEED_ENGINE=Etcd, the raw etcd client replaying, for each phase, the
// backend calls Larder makes in it (RawEtcdRun). LARDER_ETCD_ENDPOINTS names the cluster
// (comma-separated client URLs, `http://host:port`); SpeedCompare starts one and sets both.

import Foundation
import SpeedSupport

enum EngineMode {
    case tokyoCabinet
    case larderOnEtcd(endpoints: [String])
    case rawEtcd(endpoints: [String])

    /// The BNR workloads: the ones the etcd engines run.
    static let etcdWorkloads: Set<Workload> = [.complexInsert, .complexFetch, .simpleUpdate,
                                               .simpleInsert, .simpleFetch, .pointRead]

    /// The mode the environment asks for; nil (with the reason on stderr) when it names an
    /// unknown engine or an etcd engine without endpoints.
    static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> EngineMode? {
        let endpoints = (environment["LARDER_ETCD_ENDPOINTS"] ?? "").split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        switch environment["LARDER_SPEED_ENGINE"] ?? "Larder" {
        case "Larder": return .tokyoCabinet
        case "LarderEtcd" where !endpoints.isEmpty: return .larderOnEtcd(endpoints: endpoints)
        case "Etcd" where !endpoints.isEmpty: return .rawEtcd(endpoints: endpoints)
        case "LarderEtcd", "Etcd":
            FileHandle.standardError.write(Data("LarderSpeedTest: LARDER_ETCD_ENDPOINTS names no endpoint\n".utf8))
            return nil
        case let other:
            FileHandle.standardError.write(Data("LarderSpeedTest: unknown LARDER_SPEED_ENGINE \(other)\n".utf8))
            return nil
        }
    }

    /// The engine named in RESULT lines.
    var engineName: String {
        switch self {
        case .tokyoCabinet: return "Larder"
        case .larderOnEtcd: return "LarderEtcd"
        case .rawEtcd: return "Etcd"
        }
    }

    var etcdEndpoints: [String]? {
        switch self {
        case .tokyoCabinet: return nil
        case let .larderOnEtcd(endpoints), let .rawEtcd(endpoints): return endpoints
        }
    }

    /// The endpoint the raw engine talks to (the first), or nil for the other engines.
    var rawEndpoint: String? {
        if case let .rawEtcd(endpoints) = self { return endpoints.first }
        return nil
    }

    /// The etcd prefix of the store a workload keeps at `path`: `speed-<hash of the path>-<file
    /// name>`, so that each run directory (SpeedCompare's are one per engine and repetition) has
    /// its own keys. Short, because every etcd key begins with it: a prefix as long as the path
    /// made each cached point read hash a key of 80 bytes.
    static func etcdPrefix(forStoreAt path: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325   // FNV-1a
        for byte in path.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return "speed-" + String(hash, radix: 36) + "-" + (path as NSString).lastPathComponent
    }
}
