// DataBufferError: what a read from a DataBuffer reports when the bytes are not what it expects.

/// A typed failure to read a value from a ``DataBuffer``.
///
/// Every read is bounds-checked; truncated or malformed bytes produce one of these cases, with
/// the offset at which the read started.
///
/// ```swift
/// var buffer = DataBuffer(bytes: [0x01])
/// do { _ = try buffer.readUInt32() }
/// catch DataBufferError.truncated(let offset, let needed, let available) { ... }
/// ```
public enum DataBufferError: Error, Equatable, Sendable {
    /// The read at `offset` needs `needed` bytes but only `available` remain.
    case truncated(offset: Int, needed: Int, available: Int)
    /// A Bool or presence byte at `offset` holds a value other than 0 or 1.
    case invalidBoolean(offset: Int, byte: UInt8)
    /// The string at `offset` is not valid UTF-8.
    case invalidUTF8(offset: Int)
    /// The variable-length integer at `offset` is longer than 10 bytes or overflows 64 bits.
    case malformedVarInt(offset: Int)
    /// A value read at `offset` (an `Int` on a 32-bit host, a length) is out of range.
    case valueOutOfRange(offset: Int)
}

extension DataBufferError: CustomStringConvertible {
    /// A sentence naming the failure and its offset.
    public var description: String {
        switch self {
        case let .truncated(offset, needed, available):
            return "truncated data at offset \(offset): needed \(needed) bytes, \(available) available"
        case let .invalidBoolean(offset, byte):
            return "invalid boolean byte 0x\(String(byte, radix: 16)) at offset \(offset)"
        case let .invalidUTF8(offset):
            return "invalid UTF-8 string at offset \(offset)"
        case let .malformedVarInt(offset):
            return "malformed variable-length integer at offset \(offset)"
        case let .valueOutOfRange(offset):
            return "value out of range at offset \(offset)"
        }
    }
}
