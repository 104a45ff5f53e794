// EtcdClient: etcd's v3 JSON gateway (`/v3/kv/range`, `/v3/kv/txn`) over async-http-client,
// called synchronously, with failover between the cluster's endpoints.
//
// Synchronous bridge: `Backend` is a synchronous protocol, called on the store's thread (never
// on an event loop: the HTTP client's loops belong to its own group and never call into
// Larder). Each request's EventLoopFuture is waited for with `.wait()` on that thread: the
// loop thread does the I/O and fulfils the future, the calling thread sleeps on a condition
// until then. A semaphore would do the same with more code. The one way to misuse it, a call
// from an event-loop thread (which would wait for itself), is refused with a typed error.
//
// Failover: a request goes to the endpoint that last answered; a transport error (refused or
// reset connection, timeout) or etcd's "unavailable" (no leader, the member cut off) sends it to
// the next endpoint, and when every endpoint failed the round is tried again after a pause until
// `retryInterval` is spent (an election takes a second or two). Retrying a request that may have
// been applied is safe for this client's requests: reads, puts and deletes of given values, and
// transactions whose comparisons fail harmlessly the second time.
//
// Security (EtcdSecurity): https:// endpoints get a TLS configuration made from its files when the
// client is made; a handshake that fails on every endpoint is EtcdError.tlsFailure at once (it
// will not improve by waiting). With credentials, the client asks `/v3/auth/authenticate` for a
// token before its first request and sends it in the `Authorization` header; when etcd answers
// "invalid auth token" (the token's TTL passed, or the member restarted) it asks for a new one and
// sends the request once more.

import AsyncHTTPClient
import Foundation
import Larder
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// The HTTP client every EtcdClient of the process shares (one event-loop group, pooled
/// connections; never shut down, like `HTTPClient.shared`). Unlike that one it does not keep
/// retrying a connection that is refused until the request's deadline: failover tries the next
/// endpoint instead. HTTP/1.1 only, on https:// too: etcd offers HTTP/2 there, and
/// async-http-client 1.37's HTTP/2 request handler traps (a force-unwrap in
/// `HTTP2ClientRequestHandler`, swift-server/async-http-client issue 922, open) when a stream
/// errors after its request is done, which the TLS tests met; a synchronous client gains nothing
/// from multiplexing.
let sharedEtcdHTTPClient: HTTPClient = {
    var configuration = HTTPClient.Configuration()
    configuration.httpVersion = .http1Only
    configuration.connectionPool.retryConnectionEstablishment = false
    configuration.timeout = .init(connect: .seconds(2))
    return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
}()

/// A record read from etcd: its full key, its value and the revision that last changed it.
struct EtcdRecord: Equatable {
    var key: [UInt8]
    var value: [UInt8]
    var modRevision: Int64
}

/// What a transaction did.
struct EtcdTransaction {
    /// Whether every comparison held (the success branch ran).
    var succeeded: Bool
    /// The store's revision after it.
    var revision: Int64
    /// The records the branch that ran read, in its order (absent keys give none).
    var readRecords: [EtcdRecord]
}

/// One page of a range read.
struct EtcdRange {
    /// The revision the range was read at (the store's revision when no revision was asked).
    var revision: Int64
    var records: [EtcdRecord]
    /// True when the range holds more keys than `records` (a `limit` cut it).
    var more: Bool
    /// The number of keys in the range (all of them, not only this page's).
    var count: Int64
}

/// A client of one etcd cluster's JSON gateway.
final class EtcdClient {
    let endpoints: [String]
    /// The TLS configuration of https:// endpoints (nil when there is none).
    private let tlsConfiguration: TLSConfiguration?
    private let credentials: EtcdSecurity.Credentials?
    /// The token etcd gave for `credentials`, sent with every request (the watch's too, from
    /// the HTTP client's event loops: hence the lock).
    private let sharedToken = Locked<String?>(nil)
    private var token: String? {
        get { sharedToken.withLock { $0 } }
        set { sharedToken.withLock { $0 = newValue } }
    }
    private let httpClient: HTTPClient
    private let requestTimeout: TimeAmount
    private let retryInterval: TimeInterval
    /// The endpoint that answered last: requests start there.
    private var preferred = 0
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

    /// A client of the cluster at `endpoints` (`http://host:port` or `https://host:port`, each a
    /// member's client URL), with `security`'s TLS options and credentials.
    init(endpoints: [String], security: EtcdSecurity = .none, httpClient: HTTPClient = sharedEtcdHTTPClient,
         requestTimeout: TimeAmount = .seconds(10), retryInterval: TimeInterval = 15) throws {
        guard !endpoints.isEmpty else { throw EtcdError.invalidEndpoint("(no endpoint)") }
        self.endpoints = try endpoints.map(Self.checked)
        if security.credentials != nil, !security.allowsPasswordOverPlainHTTP,
           let plain = self.endpoints.first(where: { $0.hasPrefix("http://") }) {
            throw EtcdError.passwordOverPlainHTTP(endpoint: plain)
        }
        let usesTLS = self.endpoints.contains { $0.hasPrefix("https://") }
            || security.trustedCertificateAuthorityFile != nil || security.clientCertificate != nil
        tlsConfiguration = usesTLS ? try security.tlsConfiguration() : nil
        credentials = security.credentials
        self.httpClient = httpClient
        self.requestTimeout = requestTimeout
        self.retryInterval = retryInterval
    }

    /// Gives `request` to `endpoint` what every request of this client carries: the TLS
    /// configuration of an https:// endpoint and the authentication token. Safe from any thread
    /// (the watch prepares its requests on the HTTP client's event loops).
    var requestPreparation: @Sendable (inout HTTPClient.Request, _ endpoint: String) -> Void {
        let tlsConfiguration = tlsConfiguration
        let sharedToken = sharedToken
        return { request, endpoint in
            if let token = sharedToken.withLock({ $0 }), !token.isEmpty { request.headers.add(name: "Authorization", value: token) }
            if endpoint.hasPrefix("https://") { request.tlsConfiguration = tlsConfiguration }
        }
    }

    private static func checked(_ endpoint: String) throws -> String {
        let trimmed = endpoint.hasSuffix("/") ? String(endpoint.dropLast()) : endpoint
        guard let url = URL(string: trimmed), url.scheme == "http" || url.scheme == "https", let host = url.host, !host.isEmpty,
              url.path.isEmpty, url.query == nil else {
            throw EtcdError.invalidEndpoint(endpoint)
        }
        return trimmed
    }

    // MARK: Requests

    /// One page of the keys from `key` up to `end` (exclusive; nil for `key` alone), at
    /// `revision` (nil: the newest), ascending or descending, at most `limit` (0: no limit).
    /// A read at a revision is served by the member it reaches (serializable) unless that member
    /// has not applied the revision yet; then by the cluster (linearizable).
    func range(from key: [UInt8], before end: [UInt8]?, revision: Int64?, limit: Int = 0,
               descending: Bool = false, countOnly: Bool = false, keysOnly: Bool = false) throws -> EtcdRange {
        var request = RangeRequest(key: Base64.encode(key))
        request.rangeEnd = end.map(Base64.encode)
        request.limit = limit > 0 ? String(limit) : nil
        request.revision = revision.map(String.init)
        if descending {
            request.sortOrder = "DESCEND"
            request.sortTarget = "KEY"
        }
        request.countOnly = countOnly ? true : nil
        request.keysOnly = keysOnly ? true : nil
        request.serializable = revision != nil ? true : nil
        let reply: RangeReply
        do {
            reply = try post("/v3/kv/range", request, as: RangeReply.self)
        } catch EtcdError.refused(_, let message) where message.contains("future revision") && request.serializable == true {
            request.serializable = nil
            reply = try post("/v3/kv/range", request, as: RangeReply.self)
        }
        let revision = try revision ?? headerRevision(reply.header)
        let records = try self.records(of: reply.kvs ?? [])
        return EtcdRange(revision: revision, records: records, more: reply.more ?? false,
                         count: reply.count?.value ?? Int64(records.count))
    }

    /// Runs a transaction: `success` when every comparison holds, else `failure`. Returns whether
    /// they held, the revision after it (unchanged when nothing was written) and the records the
    /// branch that ran read (``TransactionOperation/read(_:)``).
    func transaction(comparing compare: [TransactionComparison], success: [TransactionOperation],
                     failure: [TransactionOperation] = []) throws -> EtcdTransaction {
        let reply = try post("/v3/kv/txn", TransactionRequest(compare: compare, success: success, failure: failure.isEmpty ? nil : failure),
                             as: TransactionReply.self)
        let read = try records(of: (reply.responses ?? []).compactMap(\.responseRange).flatMap { $0.kvs ?? [] })
        return EtcdTransaction(succeeded: reply.succeeded ?? false, revision: try headerRevision(reply.header), readRecords: read)
    }

    /// The records of a reply's key-values (base64 keys and values, hostile until decoded).
    private func records(of keyValues: [ReplyKeyValue]) throws -> [EtcdRecord] {
        var records: [EtcdRecord] = []
        records.reserveCapacity(keyValues.count)
        for keyValue in keyValues {
            guard let key = keyValue.key.flatMap(Base64.decode) else { throw malformed("a key that is not base64") }
            guard let value = Base64.decode(keyValue.value ?? "") else { throw malformed("a value that is not base64") }
            records.append(EtcdRecord(key: key, value: value, modRevision: keyValue.modRevision?.value ?? 0))
        }
        return records
    }

    /// The newest revision of the cluster (a linearizable read).
    func currentRevision() throws -> Int64 {
        try range(from: [0], before: [0, 0], revision: nil, limit: 1, countOnly: true).revision
    }

    private func headerRevision(_ header: ReplyHeader?) throws -> Int64 {
        guard let revision = header?.revision?.value, revision > 0 else { throw malformed("no header revision") }
        return revision
    }

    private func malformed(_ reason: String) -> EtcdError {
        .malformedReply(endpoint: endpoints[preferred], reason: reason)
    }

    // MARK: Authentication

    /// Asks etcd for a token for `credentials`, kept for the requests that follow.
    private func authenticate(_ credentials: EtcdSecurity.Credentials) throws {
        token = nil
        let reply: AuthenticateReply
        do {
            reply = try send("/v3/auth/authenticate", AuthenticateRequest(name: credentials.user, password: credentials.password),
                             as: AuthenticateReply.self)
        } catch EtcdError.refused(_, let message) where message.contains("authentication failed")
            || message.contains("invalid user ID or password") {
            throw EtcdError.authenticationFailed(user: credentials.user, reason: message)
        } catch EtcdError.refused(_, let message) where message.contains("authentication is not enabled") {
            // A cluster without authentication takes every request: there is no token to send.
            token = ""
            return
        }
        guard let token = reply.token, !token.isEmpty else {
            // etcd answers an empty token when authentication is not enabled: nothing to send.
            self.token = ""
            return
        }
        self.token = token
    }

    /// Whether etcd's refusal says the request's token is unknown or expired.
    private static func isInvalidToken(code: Int, message: String) -> Bool {
        code == 16 || message.contains("invalid auth token")
    }

    /// Whether etcd's refusal says the cluster wants a user and none was given.
    private static func asksForAUser(_ message: String) -> Bool {
        message.contains("user name is empty") || message.contains("user name not found")
    }

    // MARK: Transport

    /// Posts `body` as JSON to `path`, authenticated when the client has credentials (a new
    /// token once, when etcd refuses the one it had); decodes the reply.
    private func post<Body: Encodable, Reply: Decodable>(_ path: String, _ body: Body, as reply: Reply.Type) throws -> Reply {
        guard let credentials else {
            do {
                return try send(path, body, as: Reply.self)
            } catch let EtcdError.refused(code, message) where Self.asksForAUser(message)
                || Self.isInvalidToken(code: code, message: message) {
                throw EtcdError.authenticationRequired(reason: message)
            }
        }
        if token == nil { try authenticate(credentials) }
        do {
            return try send(path, body, as: Reply.self)
        } catch let EtcdError.refused(code, message) where Self.isInvalidToken(code: code, message: message) {
            try authenticate(credentials)
        }
        do {
            return try send(path, body, as: Reply.self)
        } catch let EtcdError.refused(code, message) where Self.isInvalidToken(code: code, message: message) {
            throw EtcdError.authenticationRequired(reason: "etcd refused the token it had just given: \(message)")
        }
    }

    /// Posts `body` as JSON to `path` on the preferred endpoint, failing over; decodes the reply.
    private func send<Body: Encodable, Reply: Decodable>(_ path: String, _ body: Body, as reply: Reply.Type) throws -> Reply {
        guard MultiThreadedEventLoopGroup.currentEventLoop == nil else {
            throw EtcdError.refused(code: -1, message: "a synchronous etcd call was made on an event-loop thread")
        }
        let bytes: Data
        do {
            bytes = try encoder.encode(body)
        } catch {
            throw EtcdError.refused(code: -1, message: "the request does not encode: \(error)")
        }
        let start = Date()
        var lastFailure = "no endpoint tried"
        while true {
            // An endpoint that answers something that is not etcd's is skipped for this request;
            // when no endpoint gave a reply, that answer is the error (it will not improve).
            var malformed: EtcdError?
            var handshakeFailure: EtcdError?
            for step in 0 ..< endpoints.count {
                let index = (preferred + step) % endpoints.count
                switch exchange(endpoints[index], path, bytes) {
                case let .answered(status, reply):
                    let failure: ErrorReply
                    do {
                        if status == 200 {
                            let decoded = try decode(reply, as: Reply.self, from: endpoints[index])
                            preferred = index
                            return decoded
                        }
                        failure = try decode(reply, as: ErrorReply.self, from: endpoints[index])
                    } catch let error as EtcdError {
                        malformed = error
                        continue
                    }
                    preferred = index
                    let message = failure.message ?? failure.error ?? "HTTP status \(status)"
                    if let code = failure.code, !Self.isRetryable(code: code, status: status) {
                        if message.contains("required revision has been compacted") {
                            throw EtcdError.revisionCompacted((body as? RangeRequest)?.revision.flatMap { Int64($0) } ?? 0)
                        }
                        throw EtcdError.refused(code: code, message: message)
                    }
                    lastFailure = "\(endpoints[index]): \(message)"
                case let .failed(reason):
                    lastFailure = "\(endpoints[index]): \(reason)"
                case let .handshakeFailed(reason):
                    handshakeFailure = .tlsFailure(endpoint: endpoints[index], reason: reason)
                }
            }
            if let malformed { throw malformed }
            if let handshakeFailure { throw handshakeFailure }
            if Date().timeIntervalSince(start) > retryInterval {
                throw EtcdError.unreachable(endpoints: endpoints, reason: lastFailure)
            }
            Thread.sleep(forTimeInterval: 0.2)
        }
    }

    /// gRPC's UNAVAILABLE (no leader, a member cut off) and DEADLINE_EXCEEDED (a proposal that
    /// timed out in an election), or an HTTP status without a code: another member may serve it.
    private static func isRetryable(code: Int, status: UInt) -> Bool {
        code == 14 || code == 4 || (status >= 500 && code == 2)
    }

    private enum Exchange {
        case answered(status: UInt, body: [UInt8])
        case failed(String)
        /// The TLS handshake failed, or the member ended the connection with a TLS alert.
        case handshakeFailed(String)
    }

    private func exchange(_ endpoint: String, _ path: String, _ body: Data) -> Exchange {
        do {
            var request = try HTTPClient.Request(url: endpoint + path, method: .POST)
            request.headers.add(name: "Content-Type", value: "application/json")
            requestPreparation(&request, endpoint)
            request.body = .data(body)
            let response = try httpClient.execute(request: request, deadline: .now() + requestTimeout).wait()
            let bytes = response.body.map { Array($0.readableBytesView) } ?? []
            return .answered(status: response.status.code, body: bytes)
        } catch let error as NIOSSLError {
            return .handshakeFailed("\(error)")
        } catch let error as BoringSSLError {
            return .handshakeFailed("\(error)")
        } catch let error as HTTPClientError where error == .remoteConnectionClosed && endpoint.hasPrefix("https://") {
            return diagnoseClosedConnection(to: endpoint) ?? .failed("\(error)")
        } catch {
            return .failed("\(error)")
        }
    }

    /// Why an https:// member closed the connection without answering, when it is TLS's doing.
    /// Under TLS 1.3 a member that wants a client certificate (and got none, or one it does not
    /// trust) ends the connection after the client's side of the handshake is done: the request
    /// only sees it closed, as it would a member going down. Under TLS 1.2 the same refusal fails
    /// the handshake itself, so a TLS 1.2 handshake with the member (a `GET /version`, which
    /// changes nothing) tells the two apart: nil when it is not a handshake failure.
    private func diagnoseClosedConnection(to endpoint: String) -> Exchange? {
        guard var probe = tlsConfiguration else { return nil }
        probe.maximumTLSVersion = .tlsv12
        do {
            var request = try HTTPClient.Request(url: endpoint + "/version", method: .GET)
            request.tlsConfiguration = probe
            _ = try httpClient.execute(request: request, deadline: .now() + requestTimeout).wait()
            return nil
        } catch let error as NIOSSLError {
            return .handshakeFailed("\(error)")
        } catch let error as BoringSSLError {
            return .handshakeFailed("\(error)")
        } catch {
            return nil
        }
    }

    private func decode<Reply: Decodable>(_ bytes: [UInt8], as type: Reply.Type, from endpoint: String) throws -> Reply {
        do {
            return try decoder.decode(Reply.self, from: Data(bytes))
        } catch {
            let excerpt = String(decoding: bytes.prefix(120), as: UTF8.self)
            throw EtcdError.malformedReply(endpoint: endpoint, reason: "\(error) in '\(excerpt)'")
        }
    }
}
