// TracingBackend: a MemoryBackend that records every call made to it while `isRecording`
// (BackendCall), for the raw etcd engine: a phase runs on it, then its calls are replayed on
// etcd. It answers like EtcdBackend where the Store chooses its path by the answer: no read in
// place (so the Store reads as it does on etcd, one value or one scan at a time). Closing it
// keeps the records, so a workload that opens its store again finds them.

import Larder

final class TracingBackend: Backend {
    private let memory = MemoryBackend()
    private(set) var calls: [BackendCall] = []
    var isRecording = false

    /// The calls recorded while `body` ran.
    func recording<Result>(_ body: () throws -> Result) rethrows -> (result: Result, calls: [BackendCall]) {
        calls = []
        isRecording = true
        defer { isRecording = false }
        let result = try body()
        return (result, calls)
    }

    private func record(_ call: @autoclosure () -> BackendCall) {
        if isRecording { calls.append(call()) }
    }

    func readValue(forKey key: [UInt8], in table: String, _ body: (UnsafeRawBufferPointer?) throws -> Void) throws {
        record(.read(table: table, key: key))
        try memory.readValue(forKey: key, in: table, body)
    }

    func declareOrderedTable(_ table: String) {
        memory.declareOrderedTable(table)
    }

    func forEachRecord(in table: String, _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws {
        var consumed = 0
        defer { record(.scan(table: table, from: nil, through: nil, reverse: false, records: consumed)) }
        try memory.forEachRecord(in: table) { key, value in
            consumed += 1
            return try body(key, value)
        }
    }

    func forEachRecord(in table: String, from start: [UInt8]?, through end: [UInt8]?, reverse: Bool,
                       _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws {
        var consumed = 0
        defer { record(.scan(table: table, from: start, through: end, reverse: reverse, records: consumed)) }
        try memory.forEachRecord(in: table, from: start, through: end, reverse: reverse) { key, value in
            consumed += 1
            return try body(key, value)
        }
    }

    func forEachRecord(in table: String, holding start: [UInt8], through end: [UInt8]?,
                       _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws {
        var consumed = 0
        defer { record(.scanHolding(table: table, start: start, through: end, records: consumed)) }
        try memory.forEachRecord(in: table, holding: start, through: end) { key, value in
            consumed += 1
            return try body(key, value)
        }
    }

    func recordCount(in table: String) throws -> Int {
        record(.count(table: table))
        return try memory.recordCount(in: table)
    }

    func apply(_ batch: WriteBatch) throws {
        record(.apply(batch))
        try memory.apply(batch)
    }

    /// Keeps the records: the workload's next store on this path reads them.
    func close() throws {}
}
