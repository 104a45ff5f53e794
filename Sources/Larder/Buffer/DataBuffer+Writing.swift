// Writing values into a DataBuffer. Fixed-width values are little-endian; lengths and counts
// are unsigned LEB128 variable-length integers ("varints"). docs/FORMAT.md has every layout.

import Foundation

extension DataBuffer {
    // MARK: Fixed-width integers

    /// Appends `value` as 1 byte.
    ///
    /// ```swift
    /// buffer.write(UInt8(7))   // 07
    /// ```
    public mutating func write(_ value: UInt8) { bytes.append(value) }

    /// Appends `value` as 2 bytes, little-endian.
    ///
    /// ```swift
    /// buffer.write(UInt16(0x0102))   // 02 01
    /// ```
    public mutating func write(_ value: UInt16) { appendLittleEndian(value) }

    /// Appends `value` as 4 bytes, little-endian.
    ///
    /// ```swift
    /// buffer.write(UInt32(0x01020304))   // 04 03 02 01
    /// ```
    public mutating func write(_ value: UInt32) { appendLittleEndian(value) }

    /// Appends `value` as 8 bytes, little-endian.
    ///
    /// ```swift
    /// buffer.write(UInt64(1))   // 01 00 00 00 00 00 00 00
    /// ```
    public mutating func write(_ value: UInt64) { appendLittleEndian(value) }

    /// Appends `value` as 1 byte, two's complement.
    ///
    /// ```swift
    /// buffer.write(Int8(-1))   // ff
    /// ```
    public mutating func write(_ value: Int8) { bytes.append(UInt8(bitPattern: value)) }

    /// Appends `value` as 2 bytes, two's complement, little-endian.
    ///
    /// ```swift
    /// buffer.write(Int16(-2))   // fe ff
    /// ```
    public mutating func write(_ value: Int16) { appendLittleEndian(value) }

    /// Appends `value` as 4 bytes, two's complement, little-endian.
    ///
    /// ```swift
    /// buffer.write(Int32(-3))   // fd ff ff ff
    /// ```
    public mutating func write(_ value: Int32) { appendLittleEndian(value) }

    /// Appends `value` as 8 bytes, two's complement, little-endian.
    ///
    /// ```swift
    /// buffer.write(Int64.min)   // 00 00 00 00 00 00 00 80
    /// ```
    public mutating func write(_ value: Int64) { appendLittleEndian(value) }

    /// Appends `value` as a 64-bit integer (8 bytes, little-endian) on every host.
    ///
    /// ```swift
    /// buffer.write(42)
    /// ```
    public mutating func write(_ value: Int) { appendLittleEndian(Int64(value)) }

    // MARK: Other scalars

    /// Appends `value` as one byte, 1 for true and 0 for false.
    ///
    /// ```swift
    /// buffer.write(true)   // 01
    /// ```
    public mutating func write(_ value: Bool) { bytes.append(value ? 1 : 0) }

    /// Appends the IEEE 754 bit pattern of `value`, 4 bytes little-endian (NaN payloads kept).
    ///
    /// ```swift
    /// buffer.write(Float(1.5))
    /// ```
    public mutating func write(_ value: Float) { appendLittleEndian(value.bitPattern) }

    /// Appends the IEEE 754 bit pattern of `value`, 8 bytes little-endian (NaN payloads kept).
    ///
    /// ```swift
    /// buffer.write(3.25)
    /// ```
    public mutating func write(_ value: Double) { appendLittleEndian(value.bitPattern) }

    /// Appends `value` as its seconds since 2001-01-01 00:00:00 UTC, a Double bit pattern: every
    /// `Date` round-trips exactly, the reference date itself included.
    ///
    /// ```swift
    /// buffer.write(Date())
    /// ```
    public mutating func write(_ value: Date) { write(value.timeIntervalSinceReferenceDate) }

    /// Appends the 16 bytes of `value` in the order of its string form.
    ///
    /// ```swift
    /// buffer.write(UUID())
    /// ```
    public mutating func write(_ value: UUID) {
        let u = value.uuid
        bytes.append(contentsOf: [u.0, u.1, u.2, u.3, u.4, u.5, u.6, u.7,
                                  u.8, u.9, u.10, u.11, u.12, u.13, u.14, u.15])
    }

    // MARK: Variable-length values

    /// Appends `value` as a varint byte count followed by its UTF-8 bytes.
    ///
    /// ```swift
    /// buffer.write("Café")   // 05 43 61 66 c3 a9
    /// ```
    public mutating func write(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            writeVarInt(UInt64(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    /// Appends `value` as a varint byte count followed by its bytes.
    ///
    /// ```swift
    /// buffer.write(Data([1, 2, 3]))   // 03 01 02 03
    /// ```
    public mutating func write(_ value: Data) {
        writeVarInt(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    /// Appends a byte blob: a varint byte count followed by the bytes.
    ///
    /// ```swift
    /// buffer.write([0xde, 0xad] as [UInt8])   // 02 de ad
    /// ```
    public mutating func write(_ value: [UInt8]) {
        writeVarInt(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    /// Appends `value` as an unsigned LEB128 varint: 7 bits a byte, low bits first, the high
    /// bit set on every byte but the last. Small numbers take one byte.
    ///
    /// ```swift
    /// buffer.writeVarInt(300)   // ac 02
    /// ```
    public mutating func writeVarInt(_ value: UInt64) {
        bytes.appendVarInt(value)
    }

    // MARK: Optionals

    /// Appends a presence byte (0 for nil, 1 otherwise) and then the string if there is one:
    /// `nil` and `""` are different values.
    ///
    /// ```swift
    /// buffer.write(nil as String?)   // 00
    /// buffer.write("" as String?)    // 01 00
    /// ```
    public mutating func write(_ value: String?) { writeOptional(value) { $0.write($1) } }

    /// Appends a presence byte and then the data if there is one.
    ///
    /// ```swift
    /// buffer.write(nil as Data?)
    /// ```
    public mutating func write(_ value: Data?) { writeOptional(value) { $0.write($1) } }

    /// Appends a presence byte and then the date if there is one.
    ///
    /// ```swift
    /// buffer.write(song.lastPlayed)   // a Date?
    /// ```
    public mutating func write(_ value: Date?) { writeOptional(value) { $0.write($1) } }

    /// Appends a presence byte and then the UUID if there is one.
    ///
    /// ```swift
    /// buffer.write(nil as UUID?)
    /// ```
    public mutating func write(_ value: UUID?) { writeOptional(value) { $0.write($1) } }

    /// Appends a presence byte and then the integer if there is one.
    ///
    /// ```swift
    /// buffer.write(song.rating)   // an Int?
    /// ```
    public mutating func write(_ value: Int?) { writeOptional(value) { $0.write($1) } }

    /// Appends a presence byte and then the double if there is one.
    ///
    /// ```swift
    /// buffer.write(nil as Double?)
    /// ```
    public mutating func write(_ value: Double?) { writeOptional(value) { $0.write($1) } }

    /// Appends a presence byte (0 or 1) and, when `value` is not nil, whatever `writeValue`
    /// writes. The building block for optionals of any type.
    ///
    /// ```swift
    /// buffer.writeOptional(song.bpm) { $0.write($1) }   // a UInt16?
    /// ```
    public mutating func writeOptional<T>(_ value: T?, _ writeValue: (inout DataBuffer, T) -> Void) {
        guard let value else {
            bytes.append(0)
            return
        }
        bytes.append(1)
        writeValue(&self, value)
    }

    // MARK: Helpers

    @inline(__always)
    internal mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        bytes.appendLittleEndian(value)
    }
}
