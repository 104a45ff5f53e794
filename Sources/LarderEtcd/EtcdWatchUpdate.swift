// EtcdWatchUpdate: what an EtcdWatch tells its owner, in the order it happened: it is watching
// from a revision (on an endpoint), a batch of changes (whole revisions, in revision order), a
// stretch of history it cannot deliver (compacted away, or a response too big to read), or a
// connection lost (it goes on from the revision after the last one delivered).

/// One change of one key that a watch delivered.
struct EtcdWatchEvent: Equatable, Sendable {
    enum Kind: Equatable, Sendable {
        case put
        case delete
    }

    var kind: Kind
    /// The full etcd key.
    var key: [UInt8]
    /// The revision that made the change.
    var revision: Int64
    /// A put's value (proto3 JSON leaves an empty one out); nil for a delete.
    var value: [UInt8]? = nil
}

/// What a watch delivers.
enum EtcdWatchUpdate: Equatable, Sendable {
    /// Watching from `revision` (every change before it was delivered, or reported lost).
    case watching(endpoint: String, from: Int64)
    /// Changes of one or more whole revisions, in revision order, each revision after the last
    /// delivered: no change is delivered twice or left out.
    case events([EtcdWatchEvent])
    /// The changes of revisions `from ... through` cannot be delivered (etcd compacted them away,
    /// or a response was over the line bound); the watch goes on after `through`.
    case historyLost(from: Int64, through: Int64)
    /// The connection to `endpoint` ended or failed; the watch reconnects (to the next endpoint).
    case interrupted(endpoint: String, reason: String)
}
