// MemoryBackend: a Backend that keeps its tables in memory: no files, no journal, nothing
// survives the process. Ordered tables are sorted arrays searched by binary search; other
// tables are dictionaries. A batch is checked whole before anything changes, so `apply` is all
// or nothing as on disk. For unit tests (a user's as well as Larder's own), as GRDB's in-memory
// DatabaseQueue and Realm's inMemoryIdentifier serve theirs.

import Foundation

/// A ``Backend`` that keeps everything in memory, for tests and throwaway stores.
///
/// ```swift
/// let store = try Store(backend: MemoryBackend())
/// try store.register(Song.self)
/// try store.insert(Song())
/// try store.saveChanges()
/// ```
///
/// The data lives as long as the backend's storage: ``reopened()`` gives a new backend over the
/// same tables, to test what a store reads back after it was closed.
public final class MemoryBackend: Backend, FaultInjectable, @unchecked Sendable {
    // @unchecked: like every Backend, used by one thread at a time (Store), or behind a lock
    // (the document store's SharedBackend).
    private let storage: MemoryTables
    private var isClosed = false
    /// Fails a chosen operation ("write" per put or delete, "commit" once per batch), tests only.
    package var faultInjector: FaultInjector?

    /// A new, empty store in memory.
    ///
    /// ```swift
    /// let backend = MemoryBackend()
    /// ```
    public init() {
        storage = MemoryTables()
    }

    private init(storage: MemoryTables) {
        self.storage = storage
    }

    /// A new backend over the same tables (this one may be closed), as reopening a directory
    /// would give.
    ///
    /// ```swift
    /// let backend = MemoryBackend()
    /// // ... a store writes and closes ...
    /// let again = try Store(backend: backend.reopened())
    /// ```
    public func reopened() -> MemoryBackend {
        MemoryBackend(storage: storage)
    }

    /// Reads the value under `key` in `table` where it lies.
    ///
    /// ```swift
    /// try backend.readValue(forKey: [1], in: "t") { print($0?.count ?? 0) }
    /// ```
    public func readValue(forKey key: [UInt8], in table: String, _ body: (UnsafeRawBufferPointer?) throws -> Void) throws {
        try checkOpen()
        guard let value = storage.tables[table]?.value(forKey: key) else { return try body(nil) }
        try value.withUnsafeBytes { try body($0) }
    }

    /// Calls `body` with every record of `table`: in key order for an ordered table, in no
    /// particular order otherwise.
    ///
    /// ```swift
    /// try backend.forEachRecord(in: "t") { key, value in true }
    /// ```
    public func forEachRecord(in table: String,
                              _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws {
        try checkOpen()
        guard let records = storage.tables[table]?.records else { return }
        for (key, value) in records {
            let goesOn = try key.withUnsafeBytes { key in try value.withUnsafeBytes { try body(key, $0) } }
            if !goesOn { return }
        }
    }

    /// Calls `body` with the records of the ordered `table` between `start` and `end`
    /// (inclusive, nil is open), ascending or descending.
    ///
    /// ```swift
    /// try backend.forEachRecord(in: "t.idx", from: [1], through: [9], reverse: false) { key, _ in true }
    /// ```
    public func forEachRecord(in table: String, from start: [UInt8]?, through end: [UInt8]?, reverse: Bool,
                              _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws {
        try checkOpen()
        guard storage.orderedTables.contains(table) else { throw BackendError.unorderedTable(table) }
        guard case .ordered(let records)? = storage.tables[table] else { return }
        let lower = start.map { MemoryTable.firstIndex(atOrAfter: $0, in: records) } ?? 0
        let upper = end.map { MemoryTable.firstIndex(after: $0, in: records) } ?? records.count
        guard lower < upper else { return }   // an empty range, or a start after the end
        let positions: [Int] = reverse ? (lower ..< upper).reversed() : Array(lower ..< upper)
        for position in positions {
            let (key, value) = records[position]
            let goesOn = try key.withUnsafeBytes { key in try value.withUnsafeBytes { try body(key, $0) } }
            if !goesOn { return }
        }
    }

    /// The number of records in `table`.
    ///
    /// ```swift
    /// let count = try backend.recordCount(in: "Song")
    /// ```
    public func recordCount(in table: String) throws -> Int {
        try checkOpen()
        return storage.tables[table]?.count ?? 0
    }

    /// Declares `table` ordered: its records are kept sorted by key.
    ///
    /// ```swift
    /// backend.declareOrderedTable("people.0.idx")
    /// ```
    public func declareOrderedTable(_ table: String) {
        guard storage.orderedTables.insert(table).inserted, let existing = storage.tables[table] else { return }
        storage.tables[table] = .ordered(existing.records.sorted { ByteOrder.less($0.key, $1.key) })
    }

    /// Applies every put and delete of `batch`, or (when a fault is injected) none.
    ///
    /// ```swift
    /// var batch = WriteBatch()
    /// batch.put([1], forKey: [1], in: "t")
    /// try backend.apply(batch)
    /// ```
    public func apply(_ batch: WriteBatch) throws {
        try checkOpen()
        guard !batch.isEmpty else { return }
        // Each change is undone, last first, if the batch cannot go in whole.
        var undo: [(table: String, key: [UInt8], value: [UInt8]?)] = []
        do {
            for table in batch.tables {
                try batch.forEachOperation(in: table) { kind, key, value in
                    try faultInjector?.check("write", path: table)
                    let key = Array(key)
                    let old = storage.change(table, key: key, to: kind == .delete ? nil : Array(value))
                    undo.append((table, key, old))
                }
            }
            try faultInjector?.check("commit", path: "memory")
        } catch {
            for change in undo.reversed() { _ = storage.change(change.table, key: change.key, to: change.value) }
            throw error
        }
    }

    /// Closes the backend: later calls throw ``BackendError/closed``. The tables stay, for
    /// ``reopened()``.
    ///
    /// ```swift
    /// try backend.close()
    /// ```
    public func close() throws {
        isClosed = true
    }

    private func checkOpen() throws {
        if isClosed { throw BackendError.closed }
    }
}

/// The tables of a ``MemoryBackend``, shared by the backends ``MemoryBackend/reopened()`` makes.
private final class MemoryTables {
    var tables: [String: MemoryTable] = [:]
    var orderedTables: Set<String> = []

    /// Sets (or, for nil, removes) the value under `key` in `table`; returns the one it replaces.
    func change(_ table: String, key: [UInt8], to value: [UInt8]?) -> [UInt8]? {
        var records = tables.removeValue(forKey: table) ?? (orderedTables.contains(table) ? .ordered([]) : .unordered([:]))
        let old = records.value(forKey: key)
        if let value { records.put(value, forKey: key) } else { records.removeValue(forKey: key) }
        tables[table] = records
        return old
    }
}
