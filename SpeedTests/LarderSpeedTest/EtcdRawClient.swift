// EtcdRawClient: the raw etcd client of the "Etcd" engine: plain calls to etcd's v3 JSON
// gateway (`/v3/kv/range`, `/v3/kv/txn`) on one endpoint, over async-http-client (the HTTP
// client LarderEtcd uses, the same pooled keep-alive connections), with none of EtcdBackend's
// machinery: no pinned revision, no cache, no staged commit, no conditions, no failover.
//
// Its own few lines rather than LarderEtcd's EtcdClient: that one is internal to LarderEtcd, and
// a `package` entry would not reach this package (SpeedTests is a package of its own); making it
// public would widen LarderEtcd's API for a benchmark. A baseline sharing no code with what it
// measures is also the truer one. Reads are serializable (served by the member reached), as
// EtcdBackend's reads at its pinned revision are.

import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// Plain v3 gateway calls, each waited for on the calling thread.
final class EtcdRawClient {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// One page of a range read: the records' values (keys kept for paging) and whether more follow.
    struct Page {
        var records: [(key: [UInt8], value: [UInt8])]
        var more: Bool
        var count: Int
    }

    private let endpoint: String
    /// Requests made and bytes of values read or written, since the client was made.
    private(set) var requests = 0
    private(set) var valueBytes = 0
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return encoder
    }()
    private let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }()

    init(endpoint: String) {
        self.endpoint = endpoint.hasSuffix("/") ? String(endpoint.dropLast()) : endpoint
    }

    /// The keys from `key` up to `end` (exclusive; nil: `key` alone), at most `limit` (0: all).
    func range(from key: [UInt8], before end: [UInt8]?, limit: Int = 0, descending: Bool = false,
               countOnly: Bool = false) throws -> Page {
        let request = RangeRequest(key: Data(key).base64EncodedString(), rangeEnd: end.map { Data($0).base64EncodedString() },
                                   limit: limit > 0 ? String(limit) : nil, sortOrder: descending ? "DESCEND" : nil,
                                   sortTarget: descending ? "KEY" : nil, serializable: true,
                                   countOnly: countOnly ? true : nil)
        let reply = try post("/v3/kv/range", request, as: RangeReply.self)
        var records: [(key: [UInt8], value: [UInt8])] = []
        records.reserveCapacity(reply.kvs?.count ?? 0)
        for keyValue in reply.kvs ?? [] {
            guard let key = Data(base64Encoded: keyValue.key ?? ""), let value = Data(base64Encoded: keyValue.value ?? "")
            else { throw Failure(description: "a range reply with a record that is not base64") }
            valueBytes += value.count
            records.append(([UInt8](key), [UInt8](value)))
        }
        return Page(records: records, more: reply.more ?? false, count: Int(reply.count ?? "") ?? records.count)
    }

    /// One transaction of puts (a value) and deletes (nil), unconditional.
    func write(_ writes: ArraySlice<(key: [UInt8], value: [UInt8]?)>) throws {
        var operations: [Operation] = []
        operations.reserveCapacity(writes.count)
        for write in writes {
            let key = Data(write.key).base64EncodedString()
            if let value = write.value {
                valueBytes += value.count
                operations.append(Operation(requestPut: Operation.Put(key: key, value: Data(value).base64EncodedString())))
            } else {
                operations.append(Operation(requestDeleteRange: Operation.Delete(key: key)))
            }
        }
        let reply = try post("/v3/kv/txn", TransactionRequest(success: operations), as: TransactionReply.self)
        guard reply.succeeded == true else { throw Failure(description: "an unconditional transaction did not succeed") }
    }

    private func post<Body: Encodable, Reply: Decodable>(_ path: String, _ body: Body, as: Reply.Type) throws -> Reply {
        requests += 1
        var request = try HTTPClient.Request(url: endpoint + path, method: .POST)
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .data(try encoder.encode(body))
        let response = try HTTPClient.shared.execute(request: request, deadline: .now() + .seconds(30)).wait()
        let bytes = response.body.map { Data($0.readableBytesView) } ?? Data()
        guard response.status == .ok else {
            throw Failure(description: "\(path): HTTP \(response.status.code): \(String(decoding: bytes.prefix(200), as: UTF8.self))")
        }
        return try decoder.decode(Reply.self, from: bytes)
    }

    // MARK: The gateway's JSON (proto3: 64-bit integers as strings, bytes in base64)

    private struct RangeRequest: Encodable {
        var key: String
        var rangeEnd: String?
        var limit: String?
        var sortOrder: String?
        var sortTarget: String?
        var serializable: Bool
        var countOnly: Bool?
    }

    private struct Operation: Encodable {
        struct Put: Encodable {
            var key: String
            var value: String
        }
        struct Delete: Encodable {
            var key: String
        }
        var requestPut: Put?
        var requestDeleteRange: Delete?
    }

    private struct TransactionRequest: Encodable {
        var success: [Operation]
    }

    private struct RangeReply: Decodable {
        struct KeyValue: Decodable {
            var key: String?
            var value: String?
        }
        var kvs: [KeyValue]?
        var more: Bool?
        var count: String?
    }

    private struct TransactionReply: Decodable {
        var succeeded: Bool?
    }
}
