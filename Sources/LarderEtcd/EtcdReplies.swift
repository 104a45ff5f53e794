// EtcdReplies: the JSON the v3 gateway answers, decoded leniently where proto3 JSON is lenient
// (absent fields are zero or empty; 64-bit integers arrive as strings, or as numbers) and
// strictly where the client needs a value (a reply without a header revision is malformed).
// Every byte here came from the network: decoding throws, never traps.

/// A 64-bit integer of proto3 JSON: a decimal string (what etcd writes) or a number.
struct ProtoInt64: Decodable {
    let value: Int64

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self), let value = Int64(text) {
            self.value = value
        } else {
            value = try container.decode(Int64.self)
        }
    }
}

/// The header of every reply: the revision of the store when the request was served.
struct ReplyHeader: Decodable {
    var revision: ProtoInt64?
}

/// One key-value of a range reply.
struct ReplyKeyValue: Decodable {
    var key: String?
    var value: String?
    var modRevision: ProtoInt64?
}

/// `/v3/kv/range`'s reply.
struct RangeReply: Decodable {
    var header: ReplyHeader?
    var kvs: [ReplyKeyValue]?
    var more: Bool?
    var count: ProtoInt64?
}

/// `/v3/kv/txn`'s reply.
struct TransactionReply: Decodable {
    var header: ReplyHeader?
    var succeeded: Bool?
    /// One response per operation of the branch that ran; only reads' are decoded.
    var responses: [TransactionResponse]?
}

/// One operation's response in a transaction's reply: a read's range, or nothing this client reads.
struct TransactionResponse: Decodable {
    var responseRange: RangeReply?
}

/// What the gateway answers instead of a reply: a gRPC status.
struct ErrorReply: Decodable {
    var error: String?
    var message: String?
    var code: Int?
}

/// `/v3/auth/authenticate`'s reply.
struct AuthenticateReply: Decodable {
    var header: ReplyHeader?
    var token: String?
}
