// Checksum: the CRC-32 (zlib's, the ISO-HDLC polynomial) that guards records and the commit
// journal against damaged bytes. Records are short (tens of bytes), where a call into zlib
// costs more than the bytes: they are checksummed here, eight bytes a step (slicing-by-8);
// long inputs (a journal) go to zlib. Both give the same value.

import CZlib

/// CRC-32 as computed by zlib's `crc32` (also what LarderDocuments' records carry).
///
/// ```swift
/// let crc = Array("123456789".utf8).withUnsafeBytes { Checksum.crc32($0) }   // 0xCBF43926
/// ```
public enum Checksum {
    /// Inputs at least this long go to zlib.
    private static let zlibThreshold = 512

    /// The CRC-32 of `bytes`.
    ///
    /// ```swift
    /// let crc = record.withUnsafeBytes { Checksum.crc32($0) }
    /// ```
    @inline(__always)
    public static func crc32(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        update(0, with: bytes)
    }

    /// The CRC-32 of `first` followed by `second`, as if they were one byte string.
    ///
    /// ```swift
    /// let crc = key.withUnsafeBytes { key in value.withUnsafeBytes { Checksum.crc32(key, $0) } }
    /// ```
    @inline(__always)
    public static func crc32(_ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer) -> UInt32 {
        update(update(0, with: first), with: second)
    }

    /// The CRC-32 of the bytes `crc` covers followed by `bytes` (zlib's `crc32(crc, ...)`).
    static func update(_ crc: UInt32, with bytes: UnsafeRawBufferPointer) -> UInt32 {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return crc }
        if bytes.count >= zlibThreshold {
            let updated = CZlib.crc32(UInt(crc), base.assumingMemoryBound(to: UInt8.self), UInt32(bytes.count))
            return UInt32(truncatingIfNeeded: updated)
        }
        let table = CRC32Table.shared.entries
        var c = ~crc
        var offset = 0
        let count = bytes.count
        while count - offset >= 8 {
            let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            let low = UInt32(truncatingIfNeeded: word) ^ c
            let high = UInt32(truncatingIfNeeded: word >> 32)
            c = table[7 &* 256 &+ Int(low & 0xff)] ^ table[6 &* 256 &+ Int((low >> 8) & 0xff)]
                ^ table[5 &* 256 &+ Int((low >> 16) & 0xff)] ^ table[4 &* 256 &+ Int(low >> 24)]
                ^ table[3 &* 256 &+ Int(high & 0xff)] ^ table[2 &* 256 &+ Int((high >> 8) & 0xff)]
                ^ table[256 &+ Int((high >> 16) & 0xff)] ^ table[Int(high >> 24)]
            offset &+= 8
        }
        while offset < count {
            let byte = base.load(fromByteOffset: offset, as: UInt8.self)
            c = table[Int((c ^ UInt32(byte)) & 0xff)] ^ (c >> 8)
            offset &+= 1
        }
        return ~c
    }
}

/// The eight 256-entry tables of slicing-by-8 CRC-32, built once per process.
private final class CRC32Table: Sendable {
    static let shared = CRC32Table()
    /// Table `k` (entries `k*256 ..< (k+1)*256`) advances a byte through `k` further zero bytes.
    nonisolated(unsafe) let entries: UnsafeMutablePointer<UInt32>

    private init() {
        entries = UnsafeMutablePointer<UInt32>.allocate(capacity: 8 * 256)
        for n in 0 ..< 256 {
            var c = UInt32(n)
            for _ in 0 ..< 8 { c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
            entries[n] = c
        }
        for k in 1 ..< 8 {
            for n in 0 ..< 256 {
                let previous = entries[(k - 1) * 256 + n]
                entries[k * 256 + n] = entries[Int(previous & 0xff)] ^ (previous >> 8)
            }
        }
    }
}
