// Checksum: the CRC-32 (zlib's, the ISO-HDLC polynomial) that guards records and the commit
// journal against damaged bytes. Where the processor multiplies without carries (x86-64's
// PCLMULQDQ), the 16-byte blocks of an input of 64 bytes or more are folded in CChecksum, with
// no tables; the rest (and every input elsewhere) is checksummed here, eight bytes a step
// (slicing-by-8). All give zlib's value.

import CChecksum

/// CRC-32 as computed by zlib's `crc32` (also what LarderDocuments' records carry).
///
/// ```swift
/// let crc = Array("123456789".utf8).withUnsafeBytes { Checksum.crc32($0) }   // 0xCBF43926
/// ```
public enum Checksum {
    /// Inputs at least this long have their blocks folded, where the processor can.
    private static let foldThreshold = 64
    /// Whether this processor folds blocks (checked once).
    static let canFold = larder_crc32_can_fold() == 1

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

    /// The CRC-32 of the bytes `crc` covers followed by `bytes` (zlib's `crc32(crc, ...)`);
    /// with `folding` false, from the tables alone (as on processors that cannot fold).
    static func update(_ crc: UInt32, with bytes: UnsafeRawBufferPointer, folding: Bool = canFold) -> UInt32 {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return crc }
        var c = ~crc
        var offset = 0
        let count = bytes.count
        if count >= foldThreshold, folding {
            offset = count & ~15
            c = larder_crc32_fold_blocks(c, base.assumingMemoryBound(to: UInt8.self), offset)
            if offset == count { return ~c }
        }
        let table = CRC32Table.shared.entries
        while count - offset >= 8 {
            let word = base.loadLittleEndian(UInt64.self, at: offset)
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
