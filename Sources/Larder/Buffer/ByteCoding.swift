// ByteCoding: the one place where integers become bytes and bytes become integers, as
// LevelDB's util/coding.h: fixed-width little-endian (record formats, checksums, offsets) and
// big-endian (keys, whose byte order must be their numeric order), LEB128 varints, and raw
// memory appended with one copy (`Array.append(contentsOf:)` with an UnsafeRawBufferPointer
// goes element by element; a typed UInt8 buffer is copied at once). Shared by DataBuffer, the
// record pages, the journal, the text index and LarderDocuments.

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

    /// Appends `value` in little-endian byte order (formats, checksums, offsets).
    /// A byte at a time: for 8 bytes or fewer, appending each (a capacity check and a store)
    /// costs a third of `append(contentsOf:)`'s generic copy (callgrind: 144 instructions for
    /// a `UInt32` field).
    @inlinable
    package mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        let size = MemoryLayout<T>.size
        guard size <= 8 else { return Swift.withUnsafeBytes(of: value.littleEndian) { appendBytes($0) } }
        var shift = 0
        while shift < size &* 8 {
            append(UInt8(truncatingIfNeeded: value &>> shift))
            shift &+= 8
        }
    }

    /// Appends `value` in big-endian byte order (keys: byte order is then numeric order).
    @inlinable
    package mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        let size = MemoryLayout<T>.size
        guard size <= 8 else { return Swift.withUnsafeBytes(of: value.bigEndian) { appendBytes($0) } }
        var shift = size &* 8
        while shift > 0 {
            shift &-= 8
            append(UInt8(truncatingIfNeeded: value &>> shift))
        }
    }

    /// Overwrites the bytes at `offset` with `value` in little-endian byte order (a checksum
    /// or length written once the bytes after it are known).
    @inlinable
    package mutating func replaceLittleEndian<T: FixedWidthInteger>(_ value: T, at offset: Int) {
        Swift.withUnsafeBytes(of: value.littleEndian) { replaceSubrange(offset ..< offset + $0.count, with: $0) }
    }
}

extension FixedWidthInteger {
    /// The value's bytes in little-endian order.
    @inlinable
    package var littleEndianBytes: [UInt8] {
        withUnsafeBytes(of: littleEndian, Array.init)
    }
}

extension UnsafeRawBufferPointer {
    /// The little-endian `T` at `offset` (any alignment); the caller has checked the bounds.
    @inlinable
    package func loadLittleEndian<T: FixedWidthInteger>(_ type: T.Type, at offset: Int = 0) -> T {
        T(littleEndian: loadUnaligned(fromByteOffset: offset, as: T.self))
    }

    /// The big-endian `T` at `offset` (any alignment); the caller has checked the bounds.
    @inlinable
    package func loadBigEndian<T: FixedWidthInteger>(_ type: T.Type, at offset: Int = 0) -> T {
        T(bigEndian: loadUnaligned(fromByteOffset: offset, as: T.self))
    }
}

extension UnsafeMutableRawBufferPointer {
    /// Writes `value` big-endian at `offset` (any alignment); the caller has checked the bounds.
    @inlinable
    package func storeBigEndian<T: FixedWidthInteger>(_ value: T, at offset: Int = 0) {
        storeBytes(of: value.bigEndian, toByteOffset: offset, as: T.self)
    }
}

extension UnsafeRawPointer {
    /// The little-endian `T` at `offset` from this pointer (any alignment).
    @inlinable
    package func loadLittleEndian<T: FixedWidthInteger>(_ type: T.Type, at offset: Int = 0) -> T {
        T(littleEndian: loadUnaligned(fromByteOffset: offset, as: T.self))
    }
}
