// EtcdLimits: how big one etcd transaction may be. etcd refuses a transaction of more than
// --max-txn-ops operations (128 by default) or a request of more than --max-request-bytes
// (1.5 MiB by default); a batch within both is applied as one transaction, a bigger one as a
// staged commit (EtcdStagedCommit). Set them to the cluster's flags; tests set them small.

/// The size of the largest transaction the cluster accepts.
///
/// ```swift
/// let backend = try EtcdBackend(endpoints: endpoints, prefix: "music",
///                               limits: EtcdLimits(maximumOperations: 128, maximumRequestBytes: 1_572_864))
/// ```
public struct EtcdLimits: Sendable, Equatable {
    /// Operations in one transaction (etcd's `--max-txn-ops`).
    ///
    /// ```swift
    /// EtcdLimits.etcdDefaults.maximumOperations   // 128
    /// ```
    public var maximumOperations: Int
    /// Bytes of one request (etcd's `--max-request-bytes`).
    ///
    /// ```swift
    /// EtcdLimits.etcdDefaults.maximumRequestBytes   // 1_572_864
    /// ```
    public var maximumRequestBytes: Int

    /// etcd 3.4's defaults: 128 operations, 1.5 MiB.
    ///
    /// ```swift
    /// let backend = try EtcdBackend(endpoints: endpoints, prefix: "music", limits: .etcdDefaults)
    /// ```
    public static let etcdDefaults = EtcdLimits(maximumOperations: 128, maximumRequestBytes: 1_572_864)

    /// Limits of `maximumOperations` operations and `maximumRequestBytes` bytes (at least 2 and 4 KiB).
    ///
    /// ```swift
    /// let limits = EtcdLimits(maximumOperations: 1024, maximumRequestBytes: 8 << 20)
    /// ```
    public init(maximumOperations: Int, maximumRequestBytes: Int) {
        self.maximumOperations = max(2, maximumOperations)
        self.maximumRequestBytes = max(4096, maximumRequestBytes)
    }

    /// What a request may hold once etcd's own framing is set aside.
    var usableBytes: Int { maximumRequestBytes - 1024 }

    /// A conservative size of an operation in etcd's protobuf request: its bytes and their framing.
    static func cost(keyCount: Int, valueCount: Int) -> Int { keyCount + valueCount + 24 }
}
