// BackendKind: the backends a test that does not look at files runs against, in the core and
// the documents suites alike (each suite's Support makes its store for a kind). Every
// parameterized suite runs on `allCases` (files and memory); the suites chosen to prove the etcd
// backend (store basics, deletes, object queries and indexes, documents, their indexes and
// queries; relationships, change feeds, history, text search, named buffers, the DocC examples)
// run on `withEtcd`, which adds the 3-node test cluster (EtcdTestSupport).

/// A backend a parameterized test runs against.
///
/// ```swift
/// @Test(arguments: BackendKind.allCases) func savesAndReads(_ backend: BackendKind) throws { ... }
/// @Test(arguments: BackendKind.withEtcd) func savesAndReadsOnEtcdToo(_ backend: BackendKind) throws { ... }
/// ```
public enum BackendKind: String, CaseIterable, Sendable {
    case tokyoCabinet
    case memory
    /// An `EtcdBackend` on the test process's 3-node cluster, under a prefix of its own.
    case etcd

    /// The local backends, which every parameterized suite runs on. (`.etcd` is left out: it
    /// needs the test cluster, and the suites that prove it list ``withEtcd``.)
    public static var allCases: [BackendKind] { [.tokyoCabinet, .memory] }

    /// The local backends and the etcd cluster.
    public static var withEtcd: [BackendKind] { [.tokyoCabinet, .memory, .etcd] }
}
