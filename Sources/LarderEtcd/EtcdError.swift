// EtcdError: every way the etcd backend fails that is not the store's business: no endpoint
// answering, an endpoint that answers something that is not etcd's reply (every byte from the
// network is hostile: a malformed reply is this error, never a trap), etcd refusing a request,
// a read revision etcd has compacted away, a record too big for one request, a staged commit
// that could not be published or finished.

/// A failure of an ``EtcdBackend`` or its client.
///
/// ```swift
/// do {
///     let backend = try EtcdBackend(endpoints: ["http://127.0.0.1:2379"], prefix: "music")
/// } catch EtcdError.unreachable(let endpoints, let reason) {
///     print("no etcd at \(endpoints): \(reason)")
/// }
/// ```
public enum EtcdError: Error, Equatable, Sendable {
    /// An endpoint is not an `http://host:port` or `https://host:port` URL.
    case invalidEndpoint(String)
    /// ``EtcdSecurity/credentials`` were given with an `http://` endpoint, which would send the
    /// password in clear; nothing was sent. Use `https://`, or set
    /// ``EtcdSecurity/allowsPasswordOverPlainHTTP``.
    case passwordOverPlainHTTP(endpoint: String)
    /// A certificate, key or certificate-authority file of ``EtcdSecurity`` cannot be used:
    /// missing, unreadable, not PEM, expired or not yet valid, or a key that is not the
    /// certificate's.
    case unusableSecurityFile(path: String, reason: String)
    /// The TLS handshake with an endpoint failed (a member certificate the trusted authorities
    /// did not sign or that does not name the host, a client certificate the member refused or
    /// did not get); no request was sent through it.
    case tlsFailure(endpoint: String, reason: String)
    /// etcd refused the user name and password of ``EtcdSecurity/credentials``.
    case authenticationFailed(user: String, reason: String)
    /// The cluster has authentication enabled and the backend has no credentials (or etcd
    /// refused a token it had just issued).
    case authenticationRequired(reason: String)
    /// The key prefix is empty or holds a byte the layout reserves (see ``EtcdKeyLayout``).
    case invalidPrefix(String)
    /// No endpoint could be reached (each was tried in turn); `reason` is the last one's error.
    case unreachable(endpoints: [String], reason: String)
    /// An endpoint answered something that is not a well-formed reply of etcd's JSON gateway.
    case malformedReply(endpoint: String, reason: String)
    /// etcd refused the request (`code` is the gRPC status code it gives, `message` its words).
    case refused(code: Int, message: String)
    /// The store's read revision is older than etcd's compaction point: open the backend again.
    case revisionCompacted(Int64)
    /// One put is bigger than a request etcd accepts (its limit, ``EtcdLimits/maximumRequestBytes``).
    case recordTooLarge(table: String, size: Int, limit: Int)
    /// A staged commit was not published: its staging was removed (by another client's clean-up)
    /// before the publishing transaction; nothing of it is visible.
    case stagedCommitLost(id: String)
    /// A staged commit is published (it is durable and every reader sees it whole) but this
    /// client could not finish copying it into the tables; the next ``EtcdBackend`` opened on the
    /// prefix finishes it.
    case stagedCommitUnfinished(id: String, reason: String)
    /// A stored commit record or staged chunk does not decode.
    case damagedCommit(key: String, reason: String)
    /// The counter from which clients reserve rowIDs of `table` is not 8 bytes.
    case damagedRowIDCounter(table: String)
}

extension EtcdError: CustomStringConvertible {
    /// A sentence naming what went wrong.
    ///
    /// ```swift
    /// print(EtcdError.invalidPrefix(""))
    /// ```
    public var description: String {
        switch self {
        case let .invalidEndpoint(endpoint): return "'\(endpoint)' is not an http://host:port or https://host:port etcd endpoint"
        case let .passwordOverPlainHTTP(endpoint): return "refusing to send a password in clear to \(endpoint): use https://, or allow it explicitly"
        case let .unusableSecurityFile(path, reason): return "the security file \(path) cannot be used: \(reason)"
        case let .tlsFailure(endpoint, reason): return "the TLS handshake with \(endpoint) failed: \(reason)"
        case let .authenticationFailed(user, reason): return "etcd refused the password of user '\(user)': \(reason)"
        case let .authenticationRequired(reason): return "the etcd cluster requires authentication: \(reason)"
        case let .invalidPrefix(prefix): return "'\(prefix)' cannot be an etcd key prefix of a store"
        case let .unreachable(endpoints, reason): return "no etcd endpoint answered (\(endpoints.joined(separator: ", "))): \(reason)"
        case let .malformedReply(endpoint, reason): return "\(endpoint) sent a reply that is not etcd's: \(reason)"
        case let .refused(code, message): return "etcd refused the request (code \(code)): \(message)"
        case let .revisionCompacted(revision): return "etcd has compacted revision \(revision) away: open the store again"
        case let .recordTooLarge(table, size, limit): return "a record of \(size) bytes in '\(table)' is over etcd's request limit of \(limit) bytes"
        case let .stagedCommitLost(id): return "staged commit \(id) was removed before it was published: nothing of it was saved"
        case let .stagedCommitUnfinished(id, reason): return "staged commit \(id) is saved but not yet copied into its tables (\(reason)): open the store again to finish it"
        case let .damagedCommit(key, reason): return "the staged commit record \(key) is damaged: \(reason)"
        case let .damagedRowIDCounter(table): return "the rowID counter of \(table) is damaged (not 8 bytes)"
        }
    }
}
