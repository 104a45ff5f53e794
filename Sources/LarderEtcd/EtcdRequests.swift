// EtcdRequests: the JSON bodies of the v3 gateway's requests this client sends (etcd's protobuf
// messages in proto3 JSON: 64-bit integers as strings, bytes in base64, names in snake_case,
// which the client's encoder makes of these camelCase names). Fields left nil are not sent.

import Foundation

/// `/v3/kv/range`: keys from `key` up to `rangeEnd` (exclusive), at `revision`.
struct RangeRequest: Encodable {
    var key: String
    var rangeEnd: String?
    var limit: String?
    var revision: String?
    var sortOrder: String?
    var sortTarget: String?
    var serializable: Bool?
    var countOnly: Bool?
    var keysOnly: Bool?
}

/// `/v3/kv/txn`: when every comparison holds, the `success` operations, else `failure`'s.
struct TransactionRequest: Encodable {
    var compare: [TransactionComparison]
    var success: [TransactionOperation]
    var failure: [TransactionOperation]?
}

/// One comparison of a transaction, on a key or (with `rangeEnd`) on every key of a range.
struct TransactionComparison: Encodable {
    var key: String
    var rangeEnd: String?
    /// `VERSION`, `CREATE`, `MOD` or `VALUE`.
    var target: String
    /// `EQUAL`, `GREATER`, `LESS` or `NOT_EQUAL`.
    var result: String
    var version: String?
    var createRevision: String?
    var modRevision: String?
    var value: String?

    /// Holds when no key lies in `key ..< rangeEnd` (each key there has version 0, and a key
    /// that does not exist has no version to compare).
    static func noKey(from key: [UInt8], before rangeEnd: [UInt8]) -> TransactionComparison {
        TransactionComparison(key: Base64.encode(key), rangeEnd: Base64.encode(rangeEnd), target: "VERSION",
                              result: "EQUAL", version: "0")
    }

    /// Holds when `key` was last changed at or before `revision` (or does not exist).
    static func unchangedSince(_ revision: Int64, key: [UInt8]) -> TransactionComparison {
        TransactionComparison(key: Base64.encode(key), target: "MOD", result: "LESS", modRevision: String(revision + 1))
    }

    /// Holds when `key` was last changed at `revision` (0: it does not exist).
    static func modifiedAt(_ revision: Int64, key: [UInt8]) -> TransactionComparison {
        TransactionComparison(key: Base64.encode(key), target: "MOD", result: "EQUAL", modRevision: String(revision))
    }

    /// Holds when `key` exists.
    static func exists(_ key: [UInt8]) -> TransactionComparison {
        TransactionComparison(key: Base64.encode(key), target: "CREATE", result: "GREATER", createRevision: "0")
    }

    /// Holds when `key` exists and holds `value`.
    static func holds(_ value: [UInt8], key: [UInt8]) -> TransactionComparison {
        TransactionComparison(key: Base64.encode(key), target: "VALUE", result: "EQUAL", value: Base64.encode(value))
    }
}

/// One operation of a transaction: a put, the delete of a key or range, or the read of a key.
struct TransactionOperation: Encodable {
    struct Put: Encodable {
        var key: String
        var value: String
    }
    struct DeleteRange: Encodable {
        var key: String
        var rangeEnd: String?
    }

    var requestPut: Put?
    var requestDeleteRange: DeleteRange?
    var requestRange: RangeRequest?

    static func put(_ value: [UInt8], forKey key: [UInt8]) -> TransactionOperation {
        TransactionOperation(requestPut: Put(key: Base64.encode(key), value: Base64.encode(value)))
    }

    static func delete(_ key: [UInt8], through rangeEnd: [UInt8]? = nil) -> TransactionOperation {
        TransactionOperation(requestDeleteRange: DeleteRange(key: Base64.encode(key), rangeEnd: rangeEnd.map(Base64.encode)))
    }

    /// The read of `key`: the transaction's reply gives its record (``EtcdTransaction/readRecords``).
    static func read(_ key: [UInt8]) -> TransactionOperation {
        TransactionOperation(requestRange: RangeRequest(key: Base64.encode(key)))
    }

    /// The delete of every key that begins with `prefix`.
    static func deleteAll(under prefix: [UInt8]) -> TransactionOperation {
        delete(prefix, through: EtcdKeyLayout.end(ofPrefix: prefix))
    }
}

/// Base64 of bytes, as etcd's gateway writes and reads them.
enum Base64 {
    static func encode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
    }

    /// The bytes of `text`, or nil when it is not base64.
    static func decode(_ text: String) -> [UInt8]? {
        Data(base64Encoded: text).map { [UInt8]($0) }
    }
}

/// `/v3/auth/authenticate`: a token for `name`, sent in the `Authorization` header after.
struct AuthenticateRequest: Encodable {
    var name: String
    var password: String
}
