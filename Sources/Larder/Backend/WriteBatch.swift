// WriteBatch: everything one save writes, as puts and deletes grouped by table (file), in a byte
// arena of a few chunks, so that a million records cost a handful of allocations. The chunks
// double in size and are never moved: a batch of tens of megabytes is written once, not copied
// (and its pages faulted in again) each time a single buffer would have grown.

/// The puts and deletes of one save, grouped by table, that a ``Backend`` applies together.
///
/// ```swift
/// var batch = WriteBatch()
/// batch.put(Array("v".utf8), forKey: Array("k".utf8), in: "_names")
/// batch.removeValue(forKey: Array("old".utf8), in: "_names")
/// try backend.apply(batch)
/// ```
public struct WriteBatch: Sendable {
    /// What an operation does.
    public enum Kind: Sendable, Equatable {
        case put
        /// A put of a key that is known not to exist yet (a new rowID): a backend may store it
        /// faster, and must otherwise treat it as a put.
        case insert
        case delete
    }

    internal struct Operation: Sendable {
        var kind: Kind
        /// The arena chunk holding the key and the value.
        var chunk: Int
        var keyStart: Int
        var keyCount: Int
        var valueStart: Int
        var valueCount: Int
    }

    /// The tables the batch touches, in the order first touched.
    public private(set) var tables: [String] = []
    private var tableIndexes: [String: Int] = [:]
    internal private(set) var operationsByTable: [[Operation]] = []
    /// The bytes of keys and values: an operation's key and value are in one chunk. Only the
    /// last chunk grows.
    private var arena: [[UInt8]] = []
    private var lastTable: (name: String, index: Int)?

    /// The size of the first chunk; each next one is twice the last, up to ``largestChunk``.
    private static let firstChunk = 4 << 10
    private static let largestChunk = 4 << 20

    /// The bytes of all keys and values in the batch.
    internal private(set) var byteCount = 0

    /// Creates an empty batch.
    ///
    /// ```swift
    /// var batch = WriteBatch()
    /// ```
    public init() {}

    /// True when the batch holds no operation.
    ///
    /// ```swift
    /// if !batch.isEmpty { try backend.apply(batch) }
    /// ```
    public var isEmpty: Bool { operationCount == 0 }

    /// The number of puts and deletes in the batch.
    ///
    /// ```swift
    /// print(batch.operationCount)
    /// ```
    public private(set) var operationCount = 0

    /// Adds a put of `value` under `key` in `table`.
    ///
    /// ```swift
    /// batch.put([1, 2, 3], forKey: Array("k".utf8), in: "_names")
    /// ```
    public mutating func put(_ value: [UInt8], forKey key: [UInt8], in table: String) {
        key.withUnsafeBytes { key in
            value.withUnsafeBytes { value in put(value, forKey: key, in: table, kind: .put) }
        }
    }

    /// Adds a delete of `key` in `table`. Deleting a key that is not there is not an error.
    ///
    /// ```swift
    /// batch.removeValue(forKey: RowIDKey.bytes(42), in: "Song")
    /// ```
    public mutating func removeValue(forKey key: [UInt8], in table: String) {
        key.withUnsafeBytes { key in
            put(UnsafeRawBufferPointer(start: nil, count: 0), forKey: key, in: table, kind: .delete)
        }
    }

    /// Calls `body` with each operation on `table`, in the order they were added, with the key
    /// and value bytes (an empty value for deletes). The pointers are valid during the call.
    ///
    /// ```swift
    /// try batch.forEachOperation(in: "Song") { kind, key, value in ... }
    /// ```
    public func forEachOperation(
        in table: String,
        _ body: (Kind, UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Void
    ) rethrows {
        guard let index = tableIndexes[table] else { return }
        for operation in operationsByTable[index] {
            try arena[operation.chunk].withUnsafeBytes { all in
                let key = UnsafeRawBufferPointer(rebasing: all[operation.keyStart ..< operation.keyStart + operation.keyCount])
                let value = UnsafeRawBufferPointer(rebasing: all[operation.valueStart ..< operation.valueStart + operation.valueCount])
                try body(operation.kind, key, value)
            }
        }
    }

    /// The number of operations on `table`.
    public func operationCount(in table: String) -> Int {
        tableIndexes[table].map { operationsByTable[$0].count } ?? 0
    }

    // MARK: Fast path for the store

    /// Adds a put of `value` under `key` in `table`; `isNew` says the key is not in the
    /// table yet (a backend may store it faster).
    internal mutating func put(_ value: UnsafeRawBufferPointer, forKey key: UnsafeRawBufferPointer, in table: String,
                               isNew: Bool) {
        put(value, forKey: key, in: table, kind: isNew ? .insert : .put)
    }

    /// Adds an operation of `kind` with `key` and `value` (empty for a delete).
    private mutating func put(_ value: UnsafeRawBufferPointer, forKey key: UnsafeRawBufferPointer, in table: String,
                              kind: Kind) {
        let index = tableIndex(table)
        let chunk = chunkWithRoom(for: key.count + value.count)
        let keyStart = arena[chunk].count
        arena[chunk].appendBytes(key)
        let valueStart = arena[chunk].count
        arena[chunk].appendBytes(value)
        append(Operation(kind: kind, chunk: chunk, keyStart: keyStart, keyCount: key.count,
                         valueStart: valueStart, valueCount: value.count), to: index)
    }

    /// The index of the chunk to append `count` bytes to: the last one, or a new one when the
    /// last has no room left for them.
    private mutating func chunkWithRoom(for count: Int) -> Int {
        if let last = arena.indices.last, arena[last].capacity - arena[last].count >= count { return last }
        let previous = arena.last?.capacity ?? Self.firstChunk / 2
        var chunk: [UInt8] = []
        chunk.reserveCapacity(max(count, min(previous * 2, Self.largestChunk)))
        arena.append(chunk)
        return arena.count - 1
    }

    /// Adds a put under `key` in `table` whose value `writeValue` appends to `bytes` (which
    /// end with the key, from `keyStart` on, for a checksum or an authentication tag to cover
    /// it); when it throws, nothing is added. The sealing layer writes its envelopes this way,
    /// straight into the batch's arena.
    package mutating func put(forKey key: [UInt8], in table: String,
                              writingValue writeValue: (_ bytes: inout [UInt8], _ keyStart: Int) throws -> Void) rethrows {
        let index = tableIndex(table)
        // Room for the key and a small value: a larger one grows this chunk alone.
        let chunk = chunkWithRoom(for: key.count + 256)
        let keyStart = arena[chunk].count
        arena[chunk].append(contentsOf: key)
        let valueStart = arena[chunk].count
        do {
            try writeValue(&arena[chunk], keyStart)
        } catch {
            arena[chunk].removeSubrange(keyStart...)
            throw error
        }
        append(Operation(kind: .put, chunk: chunk, keyStart: keyStart, keyCount: valueStart - keyStart,
                         valueStart: valueStart, valueCount: arena[chunk].count - valueStart), to: index)
    }

    private mutating func tableIndex(_ table: String) -> Int {
        // Saves add runs of records to one table: compare with the last one before hashing.
        if let last = lastTable, last.name == table { return last.index }
        if let index = tableIndexes[table] {
            lastTable = (table, index)
            return index
        }
        let index = tables.count
        tables.append(table)
        tableIndexes[table] = index
        operationsByTable.append([])
        lastTable = (table, index)
        return index
    }

    private mutating func append(_ operation: Operation, to index: Int) {
        operationsByTable[index].append(operation)
        operationCount += 1
        byteCount += operation.keyCount + operation.valueCount
    }
}
