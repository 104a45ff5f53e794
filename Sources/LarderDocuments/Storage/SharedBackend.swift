// SharedBackend: the store's one Backend, shared by its collections. A backend is not for
// concurrent use (Tokyo Cabinet's handles are not), so every call takes one (recursive: an index
// scan reads documents from inside its callback) lock; everything else a collection does
// (parsing, planning, decoding, evaluating, sorting) runs outside it, in parallel with other
// collections. It is the storage of the collections' index tables (IndexTableStorage, in
// Larder's index engine).

import Foundation
import Larder

/// The backend behind a lock.
final class SharedBackend: IndexTableStorage, @unchecked Sendable {
    // @unchecked: `backend` is only used while `lock` is held.
    private let backend: any Backend
    private let lock = NSRecursiveLock()

    init(_ backend: any Backend) {
        self.backend = backend
    }

    var isReadOnly: Bool { backend.isReadOnly }

    /// Fails a chosen file operation of the backend, when it can (tests only).
    var faultInjector: FaultInjector? {
        get { locked { (backend as? any FaultInjectable)?.faultInjector } }
        set { locked { (backend as? any FaultInjectable)?.faultInjector = newValue } }
    }

    /// Declares an index's table ordered (see ``Backend/declareOrderedTable(_:)``).
    func declareOrderedTable(_ table: String) {
        locked { backend.declareOrderedTable(table) }
    }

    private func locked<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    func readValue(forKey key: [UInt8], in table: String, _ body: (UnsafeRawBufferPointer?) throws -> Void) throws {
        try locked { try backend.readValue(forKey: key, in: table, body) }
    }

    func readValues(forKeys keys: [[UInt8]], in table: String, _ body: (Int, UnsafeRawBufferPointer?) throws -> Void) throws {
        try locked { try backend.readValues(forKeys: keys, in: table, body) }
    }

    func withValuesInPlace(forKeys keys: [[UInt8]], in table: String,
                           _ body: (UnsafeBufferPointer<UnsafeRawBufferPointer>) throws -> Void) throws -> Bool {
        try locked { try backend.withValuesInPlace(forKeys: keys, in: table, body) }
    }

    func withValuesInPlace(forKeys keys: PackedKeys, in table: String,
                           _ body: (UnsafeBufferPointer<UnsafeRawBufferPointer>) throws -> Void) throws -> Bool {
        try locked { try backend.withValuesInPlace(forKeys: keys, in: table, body) }
    }

    func withRecordsInPlace(in table: String,
                            _ body: ([(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)]) throws -> Void) throws -> Bool {
        try locked { try backend.withRecordsInPlace(in: table, body) }
    }

    func forEachRecord(in table: String, _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws {
        try locked { try backend.forEachRecord(in: table, body) }
    }

    func forEachRecord(in table: String, from start: [UInt8]?, through end: [UInt8]?, reverse: Bool,
                       _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws {
        try locked { try backend.forEachRecord(in: table, from: start, through: end, reverse: reverse, body) }
    }

    func forEachRecord(in table: String, holding start: [UInt8], through end: [UInt8]?,
                       _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws {
        try locked { try backend.forEachRecord(in: table, holding: start, through: end, body) }
    }

    func recordCount(in table: String) throws -> Int {
        try locked { try backend.recordCount(in: table) }
    }

    /// Adds to `batch` the pages of `table` that `records` changes, merged with the stored ones
    /// (see `PendingRecords.writePages`); returns how many records the table gains.
    func writePages(_ records: PendingRecords, of table: String, into batch: inout WriteBatch,
                    pageMayExist: (UInt64) -> Bool) throws -> Int {
        try locked { try records.writePages(of: table, to: &batch, from: backend, pageMayExist: pageMayExist) }
    }

    /// Adds to `batch` the removal of every record of `table` (its keys are read, not its
    /// values: damaged records go too).
    func removeEveryRecord(in table: String, into batch: inout WriteBatch) throws {
        var keys: [[UInt8]] = []
        try forEachRecord(in: table) { key, _ in
            keys.append(Array(key))
            return true
        }
        for key in keys { batch.removeValue(forKey: key, in: table) }
    }

    /// Applies a batch; a read-only store refuses it with the store's error.
    func apply(_ batch: WriteBatch) throws {
        guard !backend.isReadOnly else { throw StoreError.readOnly }
        try locked { try backend.apply(batch) }
    }

    func compact() throws {
        try locked { try backend.compact() }
    }

    /// Moves the backend's reads to the newest state of its storage (see
    /// ``Backend/refreshToNewestState()``).
    func refreshToNewestState() throws -> BackendRefresh {
        try locked { try backend.refreshToNewestState() }
    }

    func close() throws {
        try locked { try backend.close() }
    }
}
