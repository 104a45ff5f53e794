// Backend: what a Store or a DocumentStore needs from storage. A backend knows tables and byte
// keys; it never sees objects, documents or envelopes (sealing is the layer above). Larder
// ships TokyoCabinetBackend (files) and MemoryBackend (tests, caches).

/// Storage for a ``Store`` or a document store: named tables of byte keys and byte values,
/// some of them ordered by key.
///
/// The object store names a table per registered class (its storage name) plus `_store` for
/// metadata and `_names` for named buffers; the document store a table per collection and an
/// ordered table per index. A backend applies a whole ``WriteBatch`` at once, or none of it.
///
/// ```swift
/// let backend = try TokyoCabinetBackend(path: "/tmp/music.larder")
/// let store = try Store(backend: backend)
/// ```
public protocol Backend: AnyObject {
    /// Calls `body` once with the value stored under `key` in `table`, or with nil when there
    /// is none. The pointer is valid only during the call, which must not write to the
    /// backend: it may point into the file itself. (Not generic, so that calls through
    /// `any Backend` run specialized code: this is the store's point-read path.)
    func readValue(
        forKey key: [UInt8], in table: String,
        _ body: (UnsafeRawBufferPointer?) throws -> Void
    ) throws

    /// Calls `body` with the position of each of `keys` in turn and the value stored under
    /// it in `table`, or nil: ``readValue(forKey:in:_:)`` for many keys. Each pointer is valid
    /// only during its call, which must not write to the backend. (A default reads them one
    /// by one.)
    func readValues(
        forKeys keys: [[UInt8]], in table: String,
        _ body: (Int, UnsafeRawBufferPointer?) throws -> Void
    ) throws

    /// Calls `body` once with the values of `keys` in `table`, in order, all read where they
    /// lie in the backend's memory, and returns true; returns false without calling it when
    /// they cannot all be read in place (the caller then uses ``readValues(forKeys:in:_:)``).
    /// The pointers are valid only during `body`, which must not write to the backend. (The
    /// default returns false.)
    func withValuesInPlace(
        forKeys keys: [[UInt8]], in table: String,
        _ body: (UnsafeBufferPointer<UnsafeRawBufferPointer>) throws -> Void
    ) throws -> Bool

    /// `withValuesInPlace(forKeys:in:_:)` for keys packed in one buffer, which
    /// a query of many pages makes without an array per key. (The default unpacks them.)
    func withValuesInPlace(
        forKeys keys: PackedKeys, in table: String,
        _ body: (UnsafeBufferPointer<UnsafeRawBufferPointer>) throws -> Void
    ) throws -> Bool

    /// Calls `body` once with every record of `table`, in storage order, all read in place,
    /// and returns true; returns false without calling it when they cannot be (the caller
    /// then uses ``forEachRecord(in:_:)``). Other threads may read the pointers while `body`
    /// runs; they are valid only during it. (The default returns false.)
    func withRecordsInPlace(
        in table: String,
        _ body: ([(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)]) throws -> Void
    ) throws -> Bool

    /// Declares `table` ordered: its keys are kept in byte order, and the ordered reads
    /// (``forEachRecord(in:from:through:reverse:_:)``, ``forEachRecord(in:holding:through:_:)``)
    /// serve it. A table is declared before its first read or write, in every session;
    /// declaring it again does nothing. (A backend that has no ordered tables keeps the
    /// default, which does nothing: its ordered reads throw ``BackendError/unorderedTable(_:)``.)
    func declareOrderedTable(_ table: String)

    /// Calls `body` with every key and value in `table`, in storage order, until `body`
    /// returns false. The pointers are valid only during each call.
    func forEachRecord(
        in table: String,
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool
    ) throws

    /// Calls `body` with the records of an ordered `table` whose keys lie between `start` and
    /// `end` (inclusive; nil is open), in ascending byte order of keys or descending when
    /// `reverse`, until `body` returns false. A table not declared ordered
    /// (``declareOrderedTable(_:)``) throws ``BackendError/unorderedTable(_:)``.
    func forEachRecord(
        in table: String, from start: [UInt8]?, through end: [UInt8]?, reverse: Bool,
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool
    ) throws

    /// Calls `body` with the records of an ordered `table` in ascending key order, from the
    /// one that holds `start` when each record covers the keys up to the next one (the last
    /// record whose key is at or before `start`, or the first record when none is) through
    /// the last whose key is at or before `end` (nil is open), until `body` returns false.
    func forEachRecord(
        in table: String, holding start: [UInt8], through end: [UInt8]?,
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool
    ) throws

    /// The number of records in `table` (0 for a table never written).
    func recordCount(in table: String) throws -> Int

    /// Applies every put and delete of `batch`, to every table or (when it throws) to none:
    /// a batch is the unit of atomicity of the store.
    func apply(_ batch: WriteBatch) throws

    /// Closes every file. The backend is not used again.
    func close() throws

    /// Rewrites the backend's storage so that no byte of a deleted, overwritten or rekeyed
    /// record remains in it, atomically and crash-safely. Backends that never keep freed
    /// bytes have nothing to do (the default).
    func compact() throws

    /// True when the backend was opened for reading only: ``apply(_:)`` throws.
    var isReadOnly: Bool { get }

    /// Moves the backend's reads to the newest state of its storage, which other clients of a
    /// shared backend (processes on other machines) may have saved to since, and says what
    /// changed. A backend only this process writes has nothing to move to: ``BackendRefresh/unchanged``
    /// (the default). ``Store/refresh()`` calls it.
    func refreshToNewestState() throws -> BackendRefresh

    /// Reserves `count` consecutive rowIDs of `table`, none below `floor`, that no other client
    /// of a shared backend is ever given, or nil when the backend has no other clients (the
    /// default): the store then hands out rowIDs from its own count.
    func reserveRowIDs(_ count: Int, in table: String, atLeast floor: UInt64) throws -> Range<UInt64>?

    /// Gives back the end of a block ``reserveRowIDs(_:in:atLeast:)`` gave, never handed out,
    /// when no later block was reserved (a store closing): the next one begins there. Does
    /// nothing otherwise, and by default.
    func returnRowIDs(_ rowIDs: Range<UInt64>, in table: String) throws

    /// True when other clients (processes on other machines) save to the same storage, as on
    /// an etcd cluster: their saves reach this process only through ``refreshToNewestState()``.
    /// False by default. A ``StorePool`` refuses such a backend.
    var isShared: Bool { get }
}

extension Backend {
    /// The result of `body` called with the value under `key` in `table`, or with nil.
    ///
    /// ```swift
    /// let size = try backend.withValue(forKey: RowIDKey.bytes(1), in: "Song") { $0?.count }
    /// ```
    public func withValue<Result>(
        forKey key: [UInt8], in table: String,
        _ body: (UnsafeRawBufferPointer?) throws -> Result
    ) throws -> Result {
        var result: Result?
        try readValue(forKey: key, in: table) { result = try body($0) }
        guard let result else {
            throw BackendError.ioFailure(path: table, operation: "read", reason: "the backend did not return the value")
        }
        return result
    }

    /// Reads each key with ``readValue(forKey:in:_:)``.
    ///
    /// ```swift
    /// try backend.readValues(forKeys: [RowIDKey.bytes(1), RowIDKey.bytes(2)], in: "Song") { position, value in
    ///     print(position, value?.count ?? 0)
    /// }
    /// ```
    public func readValues(
        forKeys keys: [[UInt8]], in table: String,
        _ body: (Int, UnsafeRawBufferPointer?) throws -> Void
    ) throws {
        for position in keys.indices {
            try readValue(forKey: keys[position], in: table) { try body(position, $0) }
        }
    }

    /// Values are not read in place unless the backend says otherwise.
    ///
    /// ```swift
    /// let inPlace = try backend.withValuesInPlace(forKeys: [RowIDKey.bytes(1)], in: "Song") { print($0.count) }
    /// ```
    public func withValuesInPlace(
        forKeys keys: [[UInt8]], in table: String,
        _ body: (UnsafeBufferPointer<UnsafeRawBufferPointer>) throws -> Void
    ) throws -> Bool {
        false
    }

    /// Packed keys are read as arrays unless the backend says otherwise.
    ///
    /// ```swift
    /// let inPlace = try backend.withValuesInPlace(forKeys: PackedKeys([RowIDKey.bytes(1)]), in: "Song") { print($0.count) }
    /// ```
    public func withValuesInPlace(
        forKeys keys: PackedKeys, in table: String,
        _ body: (UnsafeBufferPointer<UnsafeRawBufferPointer>) throws -> Void
    ) throws -> Bool {
        try withValuesInPlace(forKeys: keys.arrays, in: table, body)
    }

    /// Records are not read in place unless the backend says otherwise.
    ///
    /// ```swift
    /// let inPlace = try backend.withRecordsInPlace(in: "Song") { print($0.count) }
    /// ```
    public func withRecordsInPlace(
        in table: String,
        _ body: ([(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)]) throws -> Void
    ) throws -> Bool {
        false
    }

    /// Nothing to declare for a backend without ordered tables.
    ///
    /// ```swift
    /// backend.declareOrderedTable("people.0.idx")
    /// ```
    public func declareOrderedTable(_ table: String) {}

    /// Backends have no ordered tables unless they say otherwise.
    ///
    /// ```swift
    /// try backend.forEachRecord(in: "people.0.idx", from: nil, through: nil, reverse: true) { _, _ in true }
    /// ```
    public func forEachRecord(
        in table: String, from start: [UInt8]?, through end: [UInt8]?, reverse: Bool,
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        throw BackendError.unorderedTable(table)
    }

    /// Finds the record holding `start` with a backward scan, then scans forward from it.
    ///
    /// ```swift
    /// try backend.forEachRecord(in: "people.0.idx", holding: [0x10, 0x41], through: nil) { _, _ in true }
    /// ```
    public func forEachRecord(
        in table: String, holding start: [UInt8], through end: [UInt8]?,
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        var first: [UInt8]?
        try forEachRecord(in: table, from: nil, through: start, reverse: true) { key, _ in
            first = Array(key)
            return false
        }
        try forEachRecord(in: table, from: first, through: end, reverse: false, body)
    }

    /// Nothing to do: a backend that keeps freed bytes in its files implements it.
    ///
    /// ```swift
    /// try backend.compact()
    /// ```
    public func compact() throws {}

    /// Backends are writable unless they say otherwise.
    public var isReadOnly: Bool { false }

    /// Nothing changes under a backend that only this process writes.
    ///
    /// ```swift
    /// let refresh = try backend.refreshToNewestState()   // .unchanged
    /// ```
    public func refreshToNewestState() throws -> BackendRefresh { .unchanged }

    /// A backend only this process writes leaves rowIDs to the store.
    ///
    /// ```swift
    /// let block = try backend.reserveRowIDs(64, in: "Song", atLeast: 1)   // nil
    /// ```
    public func reserveRowIDs(_ count: Int, in table: String, atLeast floor: UInt64) throws -> Range<UInt64>? { nil }

    /// Nothing was reserved, nothing comes back.
    ///
    /// ```swift
    /// try backend.returnRowIDs(7 ..< 65, in: "Song")
    /// ```
    public func returnRowIDs(_ rowIDs: Range<UInt64>, in table: String) throws {}

    /// A backend is this process's alone unless it says otherwise.
    ///
    /// ```swift
    /// MemoryBackend().isShared   // false
    /// ```
    public var isShared: Bool { false }
}
