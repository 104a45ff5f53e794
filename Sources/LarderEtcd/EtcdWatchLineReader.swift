// EtcdWatchLineReader: what one line of a watch's stream means, checked as hostile input (it
// came from the network): a line that is not a watch response, an event without a base64 key,
// outside the watched range or whose revision goes back is a typed error (the watch drops the
// connection and reconnects from where it stands, so nothing is lost); an error line or a
// canceled watch ends the connection; a compaction is reported as lost history. The events of a
// response etcd split into fragments are delivered together with its last fragment, so a
// revision is always delivered whole, and the watch's position moves past it only then.

import Foundation
import Larder

/// How one connection ended.
enum WatchEnding: Equatable {
    /// Reconnect to the same endpoint from the new next revision (after a compaction).
    case again
    /// Reconnect from the newest revision, reporting what lies between as lost.
    case skipToNewest
    /// The connection failed: try the next endpoint.
    case failed(String)
}

/// Where the watch stands: the revision it is to deliver next, and whether it must skip to
/// the newest one.
struct WatchPosition: Equatable {
    var next: Int64
    var skipping = false
}

/// Makes updates of the lines of one connection.
struct EtcdWatchLineReader {
    let endpoint: String
    let key: [UInt8]
    let end: [UInt8]
    private let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }()
    /// The events of a response split into fragments, until its last fragment.
    private var fragments: [EtcdWatchEvent] = []

    init(endpoint: String, key: [UInt8], end: [UInt8]) {
        self.endpoint = endpoint
        self.key = key
        self.end = end
    }

    /// Reads one line: delivers what it holds and moves `position`; returns how the connection
    /// ends when the line ends it.
    mutating func read(_ line: [UInt8], position: inout WatchPosition, deliver: (EtcdWatchUpdate) -> Void) throws -> WatchEnding? {
        let decoded: WatchStreamLine
        do {
            decoded = try decoder.decode(WatchStreamLine.self, from: Data(line))
        } catch {
            throw malformed("\(error) in '\(String(decoding: line.prefix(120), as: UTF8.self))'")
        }
        if let failure = decoded.error {
            return .failed("etcd: \(failure.message ?? "code \(failure.grpcCode ?? 0)")")
        }
        guard let result = decoded.result else { throw malformed("a line with neither result nor error") }
        if let compacted = result.compactRevision?.value, compacted > 0 {
            guard compacted > position.next else { throw malformed("compacted at \(compacted), before the watch's start \(position.next)") }
            deliver(.historyLost(from: position.next, through: compacted - 1))
            position.next = compacted
            return .again
        }
        if result.canceled == true {
            return .failed("the watch was canceled: \(result.cancelReason ?? "no reason given")")
        }
        if result.created == true {
            if position.skipping {
                guard let newest = result.header?.revision?.value, newest >= position.next - 1 else {
                    throw malformed("a created watch without a usable header revision")
                }
                if newest >= position.next { deliver(.historyLost(from: position.next, through: newest)) }
                position.next = newest + 1
                position.skipping = false
            }
            deliver(.watching(endpoint: endpoint, from: position.next))
        }
        for event in result.events ?? [] {
            fragments.append(try checked(event, after: fragments.last?.revision ?? position.next))
        }
        if result.fragment != true, let last = fragments.last {
            deliver(.events(fragments))
            position.next = last.revision + 1
            fragments = []
        }
        return nil
    }

    /// The event, if its key lies in the watched range and its revision is at or after `floor`.
    private func checked(_ event: WatchEventReply, after floor: Int64) throws -> EtcdWatchEvent {
        guard let keyValue = event.kv, let text = keyValue.key, let key = Base64.decode(text) else {
            throw malformed("an event without a base64 key")
        }
        guard !ByteOrder.less(key, self.key), ByteOrder.less(key, end) else { throw malformed("an event outside the watched range") }
        guard let revision = keyValue.modRevision?.value, revision >= floor else {
            throw malformed("an event whose revision is missing or goes back (before \(floor))")
        }
        var value: [UInt8]?
        if let text = keyValue.value {
            guard let decoded = Base64.decode(text) else { throw malformed("an event whose value is not base64") }
            value = decoded
        }
        return EtcdWatchEvent(kind: event.type == .delete ? .delete : .put, key: key, revision: revision,
                              value: event.type == .delete ? nil : value ?? [])
    }

    private func malformed(_ reason: String) -> EtcdError {
        .malformedReply(endpoint: endpoint, reason: reason)
    }
}
