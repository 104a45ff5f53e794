// EtcdWatchLineReader on lines made by hand: what etcd's gateway writes is read as it means, and
// every hostile line (not JSON, not a watch response, a key or value that is not base64, a key outside the
// range, a revision that goes back, an unknown event type) is a typed error that delivers
// nothing and leaves the watch's position where it was.

import Foundation
import Testing
@testable import LarderEtcd

@Suite struct EtcdWatchLineReaderTests {
    let root = Array("p/".utf8)
    var reader: EtcdWatchLineReader { EtcdWatchLineReader(endpoint: "http://e", key: root, end: EtcdKeyLayout.end(ofPrefix: root)) }

    private func line(_ text: String) -> [UInt8] { Array(text.utf8) }
    private func b64(_ text: String) -> String { Data(text.utf8).base64EncodedString() }

    @Test func eventsMoveThePositionPastTheirRevision() throws {
        var reader = reader
        var position = WatchPosition(next: 10)
        var updates: [EtcdWatchUpdate] = []
        let created = #"{"result":{"header":{"revision":"12"},"created":true}}"#
        #expect(try reader.read(line(created), position: &position) { updates.append($0) } == nil)
        // PUT is proto3's zero value: the gateway leaves it out.
        let events = #"{"result":{"header":{"revision":"12"},"events":[{"kv":{"key":"\#(b64("p/a"))","mod_revision":"11","value":"AQ=="}},{"type":"DELETE","kv":{"key":"\#(b64("p/b"))","mod_revision":"12"}}]}}"#
        #expect(try reader.read(line(events), position: &position) { updates.append($0) } == nil)
        #expect(updates == [.watching(endpoint: "http://e", from: 10),
                            .events([EtcdWatchEvent(kind: .put, key: line("p/a"), revision: 11, value: [1]),
                                     EtcdWatchEvent(kind: .delete, key: line("p/b"), revision: 12)])])
        #expect(position == WatchPosition(next: 13))
    }

    @Test func aSplitResponseIsDeliveredWholeWithItsLastFragment() throws {
        var reader = reader
        var position = WatchPosition(next: 5)
        var updates: [EtcdWatchUpdate] = []
        let first = #"{"result":{"fragment":true,"events":[{"kv":{"key":"\#(b64("p/a"))","mod_revision":"5"}}]}}"#
        let last = #"{"result":{"events":[{"kv":{"key":"\#(b64("p/b"))","mod_revision":"5"}}]}}"#
        _ = try reader.read(line(first), position: &position) { updates.append($0) }
        #expect(updates.isEmpty)
        #expect(position.next == 5)
        _ = try reader.read(line(last), position: &position) { updates.append($0) }
        // proto3 JSON leaves an empty value out: a put of no bytes.
        #expect(updates == [.events([EtcdWatchEvent(kind: .put, key: line("p/a"), revision: 5, value: []),
                                     EtcdWatchEvent(kind: .put, key: line("p/b"), revision: 5, value: [])])])
        #expect(position.next == 6)
    }

    @Test func compactionCancellationAndErrorLinesEndTheConnection() throws {
        var reader = reader
        var position = WatchPosition(next: 3)
        var updates: [EtcdWatchUpdate] = []
        let compacted = #"{"result":{"canceled":true,"compact_revision":"8"}}"#
        #expect(try reader.read(line(compacted), position: &position) { updates.append($0) } == .again)
        #expect(updates == [.historyLost(from: 3, through: 7)])
        #expect(position.next == 8)
        let canceled = #"{"result":{"canceled":true,"cancel_reason":"etcdserver: no leader"}}"#
        #expect(try reader.read(line(canceled), position: &position) { _ in } == .failed("the watch was canceled: etcdserver: no leader"))
        let failed = #"{"error":{"grpc_code":14,"http_code":503,"message":"unavailable"}}"#
        #expect(try reader.read(line(failed), position: &position) { _ in } == .failed("etcd: unavailable"))
        #expect(position.next == 8)
    }

    @Test func aWatchRestartedFromTheNewestSaysWhatItSkipped() throws {
        var reader = reader
        var position = WatchPosition(next: 4, skipping: true)
        var updates: [EtcdWatchUpdate] = []
        _ = try reader.read(line(#"{"result":{"header":{"revision":"9"},"created":true}}"#), position: &position) { updates.append($0) }
        #expect(updates == [.historyLost(from: 4, through: 9), .watching(endpoint: "http://e", from: 10)])
        #expect(position == WatchPosition(next: 10))
    }

    @Test(arguments: [
        "not json",
        "[1, 2]",
        #"{"something":"else"}"#,
        #"{"result":{"events":[{"kv":{"key":"%%%","mod_revision":"5"}}]}}"#,
        #"{"result":{"events":[{"kv":{"key":"cC9h","mod_revision":"5","value":"%%%"}}]}}"#, // a value not base64
        #"{"result":{"events":[{"kv":{"key":"cS9h","mod_revision":"5"}}]}}"#,             // q/a: outside p/
        #"{"result":{"events":[{"kv":{"key":"cC9h","mod_revision":"4"}}]}}"#,             // before the position
        #"{"result":{"events":[{"kv":{"key":"cC9h"}}]}}"#,                                // no revision
        #"{"result":{"events":[{"type":"UPSERT","kv":{"key":"cC9h","mod_revision":"5"}}]}}"#,
        #"{"result":{"events":[{"type":7,"kv":{"key":"cC9h","mod_revision":"5"}}]}}"#,
        #"{"result":{"events":[{"kv":{"key":"cC9h","mod_revision":"6"}},{"kv":{"key":"cC9i","mod_revision":"5"}}]}}"#,
        #"{"result":{"events":[{"kv":{"key":"cC9h","mod_revision":"99999999999999999999"}}]}}"#,
        #"{"result":{"canceled":true,"compact_revision":"2"}}"#,                          // compacted before the position
        #"{"result":{"created":true}}"#,                                                  // skipping: no header revision
    ])
    func hostileLinesAreATypedErrorAndDeliverNothing(text: String) {
        var reader = reader
        var position = WatchPosition(next: 5, skipping: text.contains("created"))
        let before = position
        var updates: [EtcdWatchUpdate] = []
        #expect {
            _ = try reader.read(line(text), position: &position) { updates.append($0) }
        } throws: { error in
            guard case EtcdError.malformedReply(endpoint: "http://e", _) = error else { return false }
            return true
        }
        #expect(updates.isEmpty)
        #expect(position == before)
    }
}
