// RowIDKey: how a rowID is written as a record key: 8 bytes, big-endian, so that byte order is
// numeric order in any ordered file.

/// The key encoding of rowIDs in class files: 8 bytes, big-endian.
///
/// ```swift
/// RowIDKey.bytes(1)   // [0, 0, 0, 0, 0, 0, 0, 1]
/// ```
public enum RowIDKey {
    /// The size of an encoded rowID key.
    public static let size = 8

    /// The key bytes of `rowID`.
    ///
    /// ```swift
    /// let key = RowIDKey.bytes(song.rowID)
    /// ```
    public static func bytes(_ rowID: UInt64) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(size)
        append(rowID, to: &bytes)
        return bytes
    }

    /// The rowID in key bytes, or nil when they are not 8 bytes long.
    ///
    /// ```swift
    /// RowIDKey.rowID(in: key)   // 1
    /// ```
    public static func rowID(in key: UnsafeRawBufferPointer) -> UInt64? {
        guard key.count == size else { return nil }
        return key.loadBigEndian(UInt64.self)
    }

    /// The rowID at the end of an index entry (keys, then the rowID, 8 bytes big-endian), or
    /// nil when the entry is shorter.
    ///
    /// ```swift
    /// RowIDKey.rowID(atEndOf: entry)
    /// ```
    package static func rowID(atEndOf entry: UnsafeRawBufferPointer) -> UInt64? {
        guard entry.count >= size else { return nil }
        return entry.loadBigEndian(UInt64.self, at: entry.count - size)
    }

    internal static func append(_ rowID: UInt64, to bytes: inout [UInt8]) {
        bytes.appendBigEndian(rowID)
    }
}
