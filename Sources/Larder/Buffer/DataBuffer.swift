// DataBuffer: the byte string a stored object writes itself into and reads itself back from.
//
// Every multi-byte value is little-endian whatever the host, so a store moves between
// machines unchanged. Writing appends at the end; reading consumes from a cursor that starts
// at the beginning. Every read is bounds-checked and throws `DataBufferError` on truncated or
// malformed bytes: a byte string from disk never crashes the process. A read that throws
// leaves the read position where it was. The exact layout of
// each type is documented in docs/FORMAT.md.

/// A growable byte buffer with typed, byte-order-independent reads and writes.
///
/// A ``StoredObject`` writes its fields into a `DataBuffer` in ``StoredObject/writeContent(to:)``
/// and reads them back, in the same order, in ``StoredObject/readContent(from:in:)``:
///
/// ```swift
/// var buffer = DataBuffer()
/// buffer.write("Blue in Green")
/// buffer.write(UInt32(337))
///
/// var reader = DataBuffer(bytes: buffer.bytes)
/// let title = try reader.readString()      // "Blue in Green"
/// let seconds = try reader.readUInt32()    // 337
/// ```
public struct DataBuffer: Sendable, Hashable {
    /// The buffer's bytes: everything written so far, or the record being read.
    public internal(set) var bytes: [UInt8]

    /// Where the next read starts, as an offset into ``bytes``.
    public internal(set) var readPosition: Int {
        get { cursor }
        set { cursor = newValue }
    }

    /// The storage of ``readPosition``, visible to the inlinable readers of tagged fields
    /// (`readFieldKey`), which a @StoredModel class calls once per field.
    @usableFromInline internal var cursor: Int = 0

    /// The per-instance version of the record being read: the ``StoredObject/version`` of the
    /// class that wrote it. Branch on it in ``StoredObject/readContent(from:in:)`` to read
    /// records written by older versions of a class.
    ///
    /// ```swift
    /// title = try buffer.readString()
    /// if buffer.versionOfData >= 2 { rating = try buffer.readUInt8() }
    /// ```
    public internal(set) var versionOfData: UInt8

    /// Classes written by ``writeAnyReference(_:)`` resolve through this table while encoding;
    /// the store sets it for the duration of a save. Not part of the value.
    internal var encodingContext: EncodingContext?

    /// Creates an empty buffer, for writing.
    ///
    /// ```swift
    /// var buffer = DataBuffer()
    /// buffer.write(true)
    /// buffer.bytes   // [1]
    /// ```
    public init() {
        self.bytes = []
        self.versionOfData = 1
    }

    /// Wraps bytes for reading, starting at the first byte.
    ///
    /// ```swift
    /// var buffer = DataBuffer(bytes: [0x04, 0x03, 0x02, 0x01])
    /// try buffer.readUInt32()   // 0x01020304
    /// ```
    public init(bytes: [UInt8]) {
        self.bytes = bytes
        self.versionOfData = 1
    }

    /// Wraps bytes read from a record written by version `versionOfData` of its class.
    ///
    /// ```swift
    /// let old = DataBuffer(bytes: record, versionOfData: 1)
    /// ```
    public init(bytes: [UInt8], versionOfData: UInt8) {
        self.bytes = bytes
        self.versionOfData = versionOfData
    }

    /// The number of bytes not read yet.
    ///
    /// ```swift
    /// while buffer.remainingCount > 0 { values.append(try buffer.readInt64()) }
    /// ```
    public var remainingCount: Int { bytes.count - readPosition }

    /// Reserves room for `count` bytes in total, to avoid regrowing during many writes.
    ///
    /// ```swift
    /// buffer.reserveCapacity(4096)
    /// ```
    public mutating func reserveCapacity(_ count: Int) {
        bytes.reserveCapacity(count)
    }

    /// Empties the buffer but keeps its storage, for reuse.
    internal mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        readPosition = 0
    }

    /// Replaces the buffer's bytes with `content`, ready for reading, keeping its storage.
    internal mutating func replaceContent(with content: UnsafeRawBufferPointer, versionOfData: UInt8) {
        if bytes.count == content.count, let source = content.baseAddress {
            // Records of a class are often the same size: copy over the bytes in place, without
            // Array's generic remove-and-append.
            bytes.withUnsafeMutableBytes { target in target.baseAddress?.copyMemory(from: source, byteCount: target.count) }
        } else {
            bytes.removeAll(keepingCapacity: true)
            bytes.appendBytes(content)
        }
        readPosition = 0
        self.versionOfData = versionOfData
    }

    /// Appends raw bytes (no length prefix).
    internal mutating func appendRaw(_ raw: UnsafeRawBufferPointer) {
        bytes.appendBytes(raw)
    }

    /// Equality covers the bytes and the version, not the read cursor.
    ///
    /// ```swift
    /// DataBuffer(bytes: [1]) == DataBuffer(bytes: [1])   // true
    /// ```
    public static func == (lhs: DataBuffer, rhs: DataBuffer) -> Bool {
        lhs.bytes == rhs.bytes && lhs.versionOfData == rhs.versionOfData
    }

    /// Hashes the bytes and the version, like ``==(_:_:)``.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(bytes)
        hasher.combine(versionOfData)
    }
}
