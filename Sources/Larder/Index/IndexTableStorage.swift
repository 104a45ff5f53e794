// IndexTableStorage: what an index table (IndexTable) reads from storage, and nothing more: a
// point read (a sealed table's directory and runs), the two ordered scans of a plaintext
// table's runs, and the removal of every record (an index dropped or rebuilt). The index engine
// that object indexes and document collections share reads through it: a Store through a plain
// Backend (BackendIndexStorage), a document store through its lock-wrapped SharedBackend.

/// The storage an ``IndexTable`` reads its runs from (its writes go into the caller's
/// ``WriteBatch``).
///
/// ```swift
/// let storage = BackendIndexStorage(backend)
/// try storage.forEachRecord(in: "Song.1.idx", from: nil, through: nil, reverse: false) { _, _ in true }
/// ```
package protocol IndexTableStorage: Sendable {
    /// Calls `body` once with the value stored under `key` in `table`, or with nil
    /// (``Backend/readValue(forKey:in:_:)``).
    func readValue(forKey key: [UInt8], in table: String, _ body: (UnsafeRawBufferPointer?) throws -> Void) throws

    /// Calls `body` with the records of the ordered `table` whose keys lie between `start` and
    /// `end` (inclusive; nil is open), ascending or descending when `reverse`, until it
    /// returns false (``Backend/forEachRecord(in:from:through:reverse:_:)``).
    func forEachRecord(in table: String, from start: [UInt8]?, through end: [UInt8]?, reverse: Bool,
                       _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws

    /// Calls `body` with the records of the ordered `table` from the one holding `start`
    /// through the last whose key is at or before `end`, until it returns false
    /// (``Backend/forEachRecord(in:holding:through:_:)``).
    func forEachRecord(in table: String, holding start: [UInt8], through end: [UInt8]?,
                       _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws

    /// Adds to `batch` the removal of every record of `table` (its keys are read, not its
    /// values: damaged records go too).
    func removeEveryRecord(in table: String, into batch: inout WriteBatch) throws
}

/// A plain ``Backend`` as an index table's storage (`any Backend` cannot conform itself).
///
/// ```swift
/// backend.declareOrderedTable("Song.1.idx")
/// let table = IndexTable(storage: BackendIndexStorage(backend), name: "Song.1.idx", restartPoints: true,
///                        corrupt: { reason in StoreError.corruptMetadata(key: "Song.1.idx", reason: reason) })
/// ```
package struct BackendIndexStorage: IndexTableStorage, @unchecked Sendable {
    // @unchecked: the backend is used only by the Store that owns it, from one thread at a time.
    package let backend: any Backend

    package init(_ backend: any Backend) {
        self.backend = backend
    }

    package func readValue(forKey key: [UInt8], in table: String, _ body: (UnsafeRawBufferPointer?) throws -> Void) throws {
        try backend.readValue(forKey: key, in: table, body)
    }

    package func forEachRecord(in table: String, from start: [UInt8]?, through end: [UInt8]?, reverse: Bool,
                               _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws {
        try backend.forEachRecord(in: table, from: start, through: end, reverse: reverse, body)
    }

    package func forEachRecord(in table: String, holding start: [UInt8], through end: [UInt8]?,
                               _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws {
        try backend.forEachRecord(in: table, holding: start, through: end, body)
    }

    package func removeEveryRecord(in table: String, into batch: inout WriteBatch) throws {
        var keys: [[UInt8]] = []
        try backend.forEachRecord(in: table) { key, _ in
            keys.append(Array(key))
            return true
        }
        for key in keys { batch.removeValue(forKey: key, in: table) }
    }
}
