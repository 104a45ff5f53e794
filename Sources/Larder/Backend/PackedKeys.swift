// PackedKeys: the keys of a read of many records (a query's pages) end to end in one buffer,
// so that asking a backend for them makes one allocation, not an array per key. A query of 20
// objects read 20 pages: making and freeing each page key as an array of its own took about
// 11,000 instructions, 7% of the query.

/// Keys packed end to end in one buffer, for a backend's `withValuesInPlace(forKeys:in:_:)`.
///
/// ```swift
/// var keys = PackedKeys()
/// keys.append(Array("Song 1".utf8))
/// keys.append(Array("Song 2".utf8))
/// let inPlace = try backend.withValuesInPlace(forKeys: keys, in: "Songs") { values in print(values.count) }
/// ```
public struct PackedKeys: Sendable, Equatable {
    /// The keys' bytes, end to end.
    private var bytes: [UInt8] = []
    /// Where each key ends in `bytes`.
    private var ends: [Int] = []

    /// No keys.
    ///
    /// ```swift
    /// var keys = PackedKeys()
    /// ```
    public init() {}

    /// `keys`, in order.
    ///
    /// ```swift
    /// let keys = PackedKeys([[1, 2], [3]])
    /// ```
    public init(_ keys: [[UInt8]]) {
        reserveCapacity(keys.count, bytes: keys.reduce(0) { $0 + $1.count })
        for key in keys { append(key) }
    }

    /// `count` keys of `width` bytes each, the key at each position stored in place by `write`
    /// (given the position and the key's bytes).
    ///
    /// ```swift
    /// let keys = PackedKeys(count: 2, width: 8) { position, key in key.storeBytes(of: UInt64(position).bigEndian, as: UInt64.self) }
    /// ```
    package init(count: Int, width: Int, _ write: (Int, UnsafeMutableRawBufferPointer) -> Void) {
        let count = max(0, count), width = max(0, width)
        bytes = [UInt8](unsafeUninitializedCapacity: count * width) { buffer, initialized in
            let raw = UnsafeMutableRawBufferPointer(buffer)
            for position in 0 ..< count {
                let key = UnsafeMutableRawBufferPointer(rebasing: raw[position * width ..< (position + 1) * width])
                key.initializeMemory(as: UInt8.self, repeating: 0)
                write(position, key)
            }
            initialized = count * width
        }
        ends = [Int](unsafeUninitializedCapacity: count) { buffer, initialized in
            for position in 0 ..< count { buffer.initializeElement(at: position, to: (position + 1) * width) }
            initialized = count
        }
    }

    /// The number of keys.
    public var count: Int { ends.count }

    /// Whether there is no key.
    public var isEmpty: Bool { ends.isEmpty }

    /// The key at `position` (in `0 ..< count`), copied.
    ///
    /// ```swift
    /// let first = keys[0]
    /// ```
    public subscript(position: Int) -> [UInt8] {
        Array(bytes[(position == 0 ? 0 : ends[position - 1]) ..< ends[position]])
    }

    /// Every key, each copied into an array of its own (for a backend that reads them so).
    public var arrays: [[UInt8]] { (0 ..< count).map { self[$0] } }

    /// Makes room for `keyCount` keys of `byteCount` bytes in all.
    public mutating func reserveCapacity(_ keyCount: Int, bytes byteCount: Int) {
        ends.reserveCapacity(keyCount)
        bytes.reserveCapacity(byteCount)
    }

    /// Appends `key`.
    ///
    /// ```swift
    /// keys.append([0x50, 1])
    /// ```
    public mutating func append(_ key: [UInt8]) {
        bytes.append(contentsOf: key)
        ends.append(bytes.count)
    }

    /// Appends the bytes of `key`.
    ///
    /// ```swift
    /// withUnsafeBytes(of: UInt64(7).bigEndian) { keys.append($0) }
    /// ```
    public mutating func append(_ key: UnsafeRawBufferPointer) {
        // As typed bytes: one copy (a raw buffer appended as a sequence cost about 80
        // instructions for a 9-byte page key).
        bytes.appendBytes(key)
        ends.append(bytes.count)
    }

    /// Calls `body` with the keys where they lie (valid only during the call).
    ///
    /// ```swift
    /// keys.withUnsafeKeys { keys in print(keys[0].count) }
    /// ```
    public func withUnsafeKeys<Result>(_ body: (UnsafeKeys) throws -> Result) rethrows -> Result {
        try bytes.withUnsafeBytes { bytes in
            try ends.withUnsafeBufferPointer { ends in try body(UnsafeKeys(bytes: bytes, ends: ends)) }
        }
    }

    /// The keys of a ``PackedKeys`` where they lie, from ``PackedKeys/withUnsafeKeys(_:)``.
    public struct UnsafeKeys {
        fileprivate let bytes: UnsafeRawBufferPointer
        fileprivate let ends: UnsafeBufferPointer<Int>

        /// The number of keys.
        public var count: Int { ends.count }

        /// The key at `position` (in `0 ..< count`).
        public subscript(position: Int) -> UnsafeRawBufferPointer {
            UnsafeRawBufferPointer(rebasing: bytes[(position == 0 ? 0 : ends[position - 1]) ..< ends[position]])
        }
    }
}
