// EtcdWatch: etcd's watch of a key range, through the JSON gateway's `/v3/watch`, a streamed HTTP
// response of one JSON object a line. It runs on the HTTP client's event loops (never on the
// caller's thread, nor on Swift concurrency's, which a store blocked in a refresh may be holding)
// and hands each update to `deliver`, in order.
//
// Exactly once, in order: a change is delivered when the whole of its revision has arrived (a
// response etcd split into fragments is put back together first), and the watch remembers the
// revision after the last one delivered. When the connection ends (a member killed, a member that
// lost its leader, which the `hasleader` metadata makes etcd cancel, a line that does not decode)
// it reconnects to the next endpoint from that revision, so nothing is lost or repeated. What
// cannot be delivered is said, never hidden: a start revision etcd has compacted away is reported
// as history lost up to the compaction (the watch goes on from there), and so is a response over
// the line bound (the watch goes on from the newest revision).
//
// Every line is hostile input: bounded in length (EtcdStreamLines), decoded with typed errors,
// and checked (keys inside the watched range, revisions that only go forward).

import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// The HTTP client of every watch of the process: a watch holds its connection for as long as it
/// runs, so the pool allows many per host (the request client's default of 8 would run out).
let sharedEtcdWatchHTTPClient: HTTPClient = {
    var configuration = HTTPClient.Configuration()
    configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 4096)
    configuration.connectionPool.retryConnectionEstablishment = false
    configuration.timeout = .init(connect: .seconds(2))
    return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
}()

/// A running watch of the keys from `key` up to `end`, from `startRevision` on.
final class EtcdWatch: @unchecked Sendable {
    // @unchecked: the mutable fields are used under `lock`.

    private let endpoints: [String]
    private let key: [UInt8]
    private let end: [UInt8]
    private let maximumLineLength: Int
    private let httpClient: HTTPClient
    /// Adds what every request to the cluster carries (TLS configuration, authentication token).
    private let prepare: @Sendable (inout HTTPClient.Request, String) -> Void
    private let deliver: @Sendable (EtcdWatchUpdate) -> Void
    private let lock = NSLock()
    private var position: WatchPosition
    /// The endpoint the watch connects to (its index).
    private var endpointIndex = 0
    private var connection: HTTPClient.Task<Void>?
    private var isStopped = false
    /// Connections that failed since the last one etcd accepted.
    private var failuresInARow = 0

    /// Starts watching; `deliver` is called with each update, one at a time, in order, on an
    /// event-loop thread of the HTTP client (it must not block, nor call back into the watch).
    init(endpoints: [String], from key: [UInt8], before end: [UInt8], startRevision: Int64,
         maximumLineLength: Int = 8 << 20, httpClient: HTTPClient = sharedEtcdWatchHTTPClient,
         preparingRequests prepare: @escaping @Sendable (inout HTTPClient.Request, String) -> Void = { _, _ in },
         deliver: @escaping @Sendable (EtcdWatchUpdate) -> Void) {
        self.endpoints = endpoints
        self.key = key
        self.end = end
        self.maximumLineLength = maximumLineLength
        self.httpClient = httpClient
        self.prepare = prepare
        self.deliver = deliver
        position = WatchPosition(next: startRevision)
        connect()
    }

    /// Stops the watch: its connection is closed and nothing more is delivered once the update
    /// being delivered now (if any) returns.
    func stop() {
        lock.lock()
        isStopped = true
        let connection = self.connection
        self.connection = nil
        lock.unlock()
        connection?.cancel()
    }

    deinit {
        connection?.cancel()
    }

    /// Drops the connection in use as a failed one: the watch connects to the next endpoint,
    /// from the revision after the last it delivered (nothing is lost or repeated). For a
    /// member that stopped answering without closing its connection (a frozen process, a
    /// machine cut off that still believes in its leader), which a quiet stream cannot tell
    /// apart from a quiet prefix.
    func moveToAnotherMember() {
        lock.lock()
        let connection = self.connection
        lock.unlock()
        connection?.cancel()
    }

    private func connect() {
        lock.lock()
        defer { lock.unlock() }
        guard !isStopped else { return }
        let endpoint = endpoints[endpointIndex]
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let create = WatchCreateRequest(createRequest: .init(
            key: Base64.encode(key), rangeEnd: Base64.encode(end),
            startRevision: position.skipping ? nil : String(position.next), prevKv: false, fragment: true))
        let delegate = WatchConnection(endpoint: endpoint, key: key, end: end, position: position,
                                       maximumLineLength: maximumLineLength, watch: self)
        do {
            var request = try HTTPClient.Request(url: endpoint + "/v3/watch", method: .POST)
            request.headers.add(name: "Content-Type", value: "application/json")
            // etcd cancels the watch when the member loses its leader (a member cut off from the
            // others would otherwise stay silent): the watch then moves to another member.
            request.headers.add(name: "Grpc-Metadata-hasleader", value: "true")
            prepare(&request, endpoint)
            request.body = .data(try encoder.encode(create))
            connection = httpClient.execute(request: request, delegate: delegate)
        } catch {
            let eventLoop = httpClient.eventLoopGroup.next()
            eventLoop.execute { delegate.end(.failed("the watch request cannot be made: \(error)")) }
        }
    }

    /// Delivers an update of the connection in use.
    fileprivate func deliverUpdate(_ update: EtcdWatchUpdate) {
        lock.lock()
        let stopped = isStopped
        if case .watching = update { failuresInARow = 0 }
        lock.unlock()
        if !stopped { deliver(update) }
    }

    /// A connection ended, at `position`: connect again (to the next endpoint, after a pause,
    /// when it failed).
    fileprivate func connectionEnded(_ ending: WatchEnding, endpoint: String, at position: WatchPosition) {
        lock.lock()
        self.position = position
        connection = nil
        let stopped = isStopped
        var pause: TimeAmount = .zero
        switch ending {
        case .again:
            break
        case .skipToNewest:
            self.position.skipping = true
        case .failed:
            endpointIndex = (endpointIndex + 1) % endpoints.count
            // The cluster may be electing, or every member down: 100 ms, doubled after each
            // round of the endpoints that all failed, up to 3.2 s.
            failuresInARow += 1
            pause = .milliseconds(100 << min(5, (failuresInARow - 1) / endpoints.count))
        }
        lock.unlock()
        if stopped { return }
        switch ending {
        case .again: break
        case .skipToNewest: deliver(.interrupted(endpoint: endpoint, reason: "a response over \(maximumLineLength) bytes"))
        case let .failed(reason): deliver(.interrupted(endpoint: endpoint, reason: reason))
        }
        httpClient.eventLoopGroup.next().scheduleTask(in: pause) { [weak self] in self?.connect() }
    }
}

/// One connection of a watch: reads its lines as they come, on its event loop.
private final class WatchConnection: HTTPClientResponseDelegate, @unchecked Sendable {
    // @unchecked: the HTTP client calls a delegate on one event loop, one call at a time.
    typealias Response = Void

    private let endpoint: String
    private var position: WatchPosition
    private var lines: EtcdStreamLines
    private var reader: EtcdWatchLineReader
    private weak var watch: EtcdWatch?
    /// How the connection ended, once it did (later calls are ignored).
    private var ending: WatchEnding?

    init(endpoint: String, key: [UInt8], end: [UInt8], position: WatchPosition, maximumLineLength: Int, watch: EtcdWatch) {
        self.endpoint = endpoint
        self.position = position
        lines = EtcdStreamLines(maximumLength: maximumLineLength)
        reader = EtcdWatchLineReader(endpoint: endpoint, key: key, end: end)
        self.watch = watch
    }

    func didReceiveHead(task: HTTPClient.Task<Void>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        if head.status != .ok {
            end(.failed("HTTP status \(head.status.code)"))
            task.cancel()
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Void>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        guard ending == nil else { return task.eventLoop.makeSucceededVoidFuture() }
        do {
            for line in try lines.append(buffer.readableBytesView) {
                if let ending = try reader.read(line, position: &position, deliver: { [weak watch] in watch?.deliverUpdate($0) }) {
                    end(ending)
                    task.cancel()
                    break
                }
            }
        } catch is EtcdStreamLines.LineTooLong {
            end(.skipToNewest)
            task.cancel()
        } catch {
            end(.failed("\(error)"))
            task.cancel()
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveError(task: HTTPClient.Task<Void>, _ error: any Error) {
        end(.failed("\(error)"))
    }

    func didFinishRequest(task: HTTPClient.Task<Void>) throws {
        end(.failed("the stream ended"))
    }

    /// Ends the connection (the first time only) and tells the watch.
    func end(_ ending: WatchEnding) {
        guard self.ending == nil else { return }
        self.ending = ending
        watch?.connectionEnded(ending, endpoint: endpoint, at: position)
    }
}
