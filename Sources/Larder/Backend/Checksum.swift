// Checksum: the CRC-32 (zlib's, the ISO-HDLC polynomial) that guards records and the commit
// journal against damaged bytes.

import CZlib

/// CRC-32 as computed by zlib's `crc32` (also what LarderDocuments' records carry).
///
/// ```swift
/// let crc = Array("123456789".utf8).withUnsafeBytes { Checksum.crc32($0) }   // 0xCBF43926
/// ```
public enum Checksum {
    /// The CRC-32 of `parts`, in order, as if they were one byte string.
    ///
    /// ```swift
    /// let crc = key.withUnsafeBytes { key in value.withUnsafeBytes { Checksum.crc32(key, $0) } }
    /// ```
    public static func crc32(_ parts: UnsafeRawBufferPointer...) -> UInt32 {
        var crc: UInt = CZlib.crc32(0, nil, 0)
        for part in parts where part.count > 0 {
            crc = CZlib.crc32(crc, part.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt32(part.count))
        }
        return UInt32(truncatingIfNeeded: crc)
    }
}
