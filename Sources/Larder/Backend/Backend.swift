// Backend: what the Store needs from storage. A backend knows tables (files) and byte keys;
// it never sees objects. TokyoCabinetBackend is the one Larder ships.

/// Storage for a ``Store``: named tables of byte keys and byte values.
///
/// The store names a table per registered class (its storage name) plus `_store` for
/// metadata and `_names` for named buffers. A backend applies a whole ``WriteBatch`` at once.
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

    /// Calls `body` with every key and value in `table`, in storage order, until `body`
    /// returns false. The pointers are valid only during each call.
    func forEachRecord(
        in table: String,
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool
    ) throws

    /// Calls `body` with the records of an ordered `table` whose keys lie between `start` and
    /// `end` (inclusive; nil is open), in ascending byte order of keys or descending when
    /// `reverse`, until `body` returns false. Backends without ordered tables throw
    /// ``StoreError/unorderedTable(_:)``.
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
            throw StoreError.ioFailure(path: table, operation: "read", reason: "the backend did not return the value")
        }
        return result
    }

    /// Backends have no ordered tables unless they say otherwise.
    ///
    /// ```swift
    /// try backend.forEachRecord(in: "people.0.idx", from: nil, through: nil, reverse: true) { _, _ in true }
    /// ```
    public func forEachRecord(
        in table: String, from start: [UInt8]?, through end: [UInt8]?, reverse: Bool,
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        throw StoreError.unorderedTable(table)
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
}
