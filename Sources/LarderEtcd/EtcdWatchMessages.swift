// EtcdWatchMessages: the JSON of etcd's `/v3/watch` on the gateway. The request is one
// `create_request`; the reply is a stream of objects, one a line, each a `result` (a
// WatchResponse: its header, events, and whether the watch was created, canceled, compacted away
// or is a fragment of a larger response) or an `error` (a gRPC status). Every line came from the
// network: decoding throws, never traps (EtcdWatch checks what the types leave open).

/// `/v3/watch`'s body: watch the keys from `key` up to `rangeEnd` from `startRevision` (nil: the
/// revision after the newest), large responses split into fragments, no previous values.
struct WatchCreateRequest: Encodable {
    struct Create: Encodable {
        var key: String
        var rangeEnd: String
        var startRevision: String?
        var prevKv: Bool
        var fragment: Bool
    }

    var createRequest: Create
}

/// One line of the watch stream.
struct WatchStreamLine: Decodable {
    var result: WatchResult?
    var error: WatchStreamFailure?
}

/// etcd's WatchResponse.
struct WatchResult: Decodable {
    var header: ReplyHeader?
    var created: Bool?
    var canceled: Bool?
    var compactRevision: ProtoInt64?
    var cancelReason: String?
    /// True on every piece of a split response but the last.
    var fragment: Bool?
    var events: [WatchEventReply]?
}

/// One event: a put or delete of one key (`kv.mod_revision` is the revision that made it).
struct WatchEventReply: Decodable {
    var type: WatchEventType?
    var kv: WatchedKeyValue?
}

/// An event's key-value: its key, revision and value (base64; absent for a delete). An
/// EtcdBackend watches its save key alone, whose value names the keys a save changed
/// (EtcdSaveRecord); watching every record instead, decoding their values cost more than the rest
/// of a save's watch traffic together.
struct WatchedKeyValue: Decodable {
    var key: String?
    var modRevision: ProtoInt64?
    var value: String?
}

/// An event's type: proto3 JSON writes the enum's name, and leaves out PUT, its zero value.
enum WatchEventType: Decodable, Equatable {
    case put
    case delete

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let name = try? container.decode(String.self) {
            switch name {
            case "PUT": self = .put
            case "DELETE": self = .delete
            default: throw DecodingError.dataCorruptedError(in: container, debugDescription: "unknown event type '\(name)'")
            }
        } else {
            switch try container.decode(Int.self) {
            case 0: self = .put
            case 1: self = .delete
            default: throw DecodingError.dataCorruptedError(in: container, debugDescription: "unknown event type number")
            }
        }
    }
}

/// What the gateway writes in the stream instead of a result.
struct WatchStreamFailure: Decodable {
    var grpcCode: Int?
    var httpCode: Int?
    var message: String?
}
