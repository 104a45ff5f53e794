// Appending to a byte array: raw memory with one copy (`Array.append(contentsOf:)` with an
// UnsafeRawBufferPointer goes element by element; a typed UInt8 buffer is copied at once), and
// LEB128 varints, shared by DataBuffer, the record pages and LarderDocuments.

extension Array where Element == UInt8 {
    /// Appends the bytes of `raw` with a single copy.
    @inlinable
    package mutating func appendBytes(_ raw: UnsafeRawBufferPointer) {
        guard let base = raw.baseAddress, raw.count > 0 else { return }
        append(contentsOf: UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: raw.count))
    }

    /// Appends `value` as an unsigned LEB128 varint (7 bits a byte, low bits first).
    @inlinable
    package mutating func appendVarInt(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        append(UInt8(v))
    }
}
