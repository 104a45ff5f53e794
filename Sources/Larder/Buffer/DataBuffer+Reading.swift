// Reading values from a DataBuffer, each the mirror of a write in DataBuffer+Writing.swift.
// Every read checks bounds first and throws DataBufferError; none can crash on bad bytes.

import Foundation

extension DataBuffer {
    // MARK: Fixed-width integers

    /// Reads 1 byte.
    ///
    /// ```swift
    /// let rating = try buffer.readUInt8()
    /// ```
    @inlinable @inline(__always)
    public mutating func readUInt8() throws -> UInt8 {
        try requireBytes(1)
        let position = cursor
        cursor = position + 1
        return bytes[position]
    }

    /// Reads a little-endian 2-byte unsigned integer.
    ///
    /// ```swift
    /// let year = try buffer.readUInt16()
    /// ```
    @inlinable @inline(__always)
    public mutating func readUInt16() throws -> UInt16 { try readLittleEndian() }

    /// Reads a little-endian 4-byte unsigned integer.
    ///
    /// ```swift
    /// let seconds = try buffer.readUInt32()
    /// ```
    @inlinable @inline(__always)
    public mutating func readUInt32() throws -> UInt32 { try readLittleEndian() }

    /// Reads a little-endian 8-byte unsigned integer.
    ///
    /// ```swift
    /// let bytesPlayed = try buffer.readUInt64()
    /// ```
    @inlinable @inline(__always)
    public mutating func readUInt64() throws -> UInt64 { try readLittleEndian() }

    /// Reads a 1-byte two's complement integer.
    ///
    /// ```swift
    /// let offset = try buffer.readInt8()
    /// ```
    @inlinable @inline(__always)
    public mutating func readInt8() throws -> Int8 { Int8(bitPattern: try readUInt8()) }

    /// Reads a little-endian 2-byte two's complement integer.
    ///
    /// ```swift
    /// let delta = try buffer.readInt16()
    /// ```
    @inlinable @inline(__always)
    public mutating func readInt16() throws -> Int16 { try readLittleEndian() }

    /// Reads a little-endian 4-byte two's complement integer.
    ///
    /// ```swift
    /// let gain = try buffer.readInt32()
    /// ```
    @inlinable @inline(__always)
    public mutating func readInt32() throws -> Int32 { try readLittleEndian() }

    /// Reads a little-endian 8-byte two's complement integer.
    ///
    /// ```swift
    /// let balance = try buffer.readInt64()
    /// ```
    @inlinable @inline(__always)
    public mutating func readInt64() throws -> Int64 { try readLittleEndian() }

    /// Reads an `Int` written by `write(_: Int)` (8 bytes on disk). On a 32-bit host a value
    /// that does not fit throws ``DataBufferError/valueOutOfRange(offset:)``.
    ///
    /// ```swift
    /// let playCount = try buffer.readInt()
    /// ```
    public mutating func readInt() throws -> Int {
        let offset = readPosition
        let value: Int64 = try readLittleEndian()
        guard let result = Int(exactly: value) else { throw DataBufferError.valueOutOfRange(offset: offset) }
        return result
    }

    // MARK: Other scalars

    /// Reads a Bool: the byte must be 0 or 1.
    ///
    /// ```swift
    /// let isFavorite = try buffer.readBool()
    /// ```
    public mutating func readBool() throws -> Bool {
        let offset = readPosition
        switch try readUInt8() {
        case 0: return false
        case 1: return true
        case let other:
            readPosition = offset
            throw DataBufferError.invalidBoolean(offset: offset, byte: other)
        }
    }

    /// Reads a Float from its 4-byte little-endian bit pattern.
    ///
    /// ```swift
    /// let volume = try buffer.readFloat()
    /// ```
    @inlinable @inline(__always)
    public mutating func readFloat() throws -> Float { Float(bitPattern: try readLittleEndian()) }

    /// Reads a Double from its 8-byte little-endian bit pattern.
    ///
    /// ```swift
    /// let tempo = try buffer.readDouble()
    /// ```
    @inlinable @inline(__always)
    public mutating func readDouble() throws -> Double { Double(bitPattern: try readLittleEndian()) }

    /// Reads a Date stored as seconds since 2001-01-01 00:00:00 UTC.
    ///
    /// ```swift
    /// let added = try buffer.readDate()
    /// ```
    public mutating func readDate() throws -> Date {
        Date(timeIntervalSinceReferenceDate: try readDouble())
    }

    /// Reads a UUID from its 16 bytes.
    ///
    /// ```swift
    /// let id = try buffer.readUUID()
    /// ```
    public mutating func readUUID() throws -> UUID {
        try requireBytes(16)
        let b = bytes
        let p = readPosition
        readPosition += 16
        return UUID(uuid: (b[p], b[p + 1], b[p + 2], b[p + 3], b[p + 4], b[p + 5], b[p + 6], b[p + 7],
                           b[p + 8], b[p + 9], b[p + 10], b[p + 11], b[p + 12], b[p + 13], b[p + 14], b[p + 15]))
    }

    // MARK: Variable-length values

    /// Reads a string: a varint byte count, then that many bytes of valid UTF-8.
    ///
    /// ```swift
    /// let title = try buffer.readString()
    /// ```
    public mutating func readString() throws -> String {
        let offset = readPosition
        let count: Int
        // A length under 128 (one varint byte), the rule for titles and names, read here:
        // through readLength and readVarInt it cost 50 instructions a string.
        if offset >= 0, offset < bytes.count, case let length = Int(bytes[offset]), length < 0x80,
           length < bytes.count - offset {
            count = length
            readPosition = offset + 1
        } else {
            count = try readLength()
        }
        let start = readPosition
        let string = bytes.withUnsafeBufferPointer { all -> String? in
            UTF8Decoding.string(UnsafeBufferPointer(rebasing: all[start ..< start + count]))
        }
        guard let string else {
            readPosition = offset
            throw DataBufferError.invalidUTF8(offset: offset)
        }
        readPosition = start + count
        return string
    }

    /// Reads `Data`: a varint byte count, then the bytes.
    ///
    /// ```swift
    /// let artwork = try buffer.readData()
    /// ```
    public mutating func readData() throws -> Data {
        let count = try readLength()
        defer { readPosition += count }
        return Data(bytes[readPosition ..< readPosition + count])
    }

    /// Reads a byte blob written by `write(_: [UInt8])`: a varint byte count, then the bytes.
    ///
    /// ```swift
    /// let fingerprint = try buffer.readBytes()
    /// ```
    public mutating func readBytes() throws -> [UInt8] {
        let count = try readLength()
        defer { readPosition += count }
        return Array(bytes[readPosition ..< readPosition + count])
    }

    /// Reads an unsigned LEB128 varint written by ``writeVarInt(_:)``.
    ///
    /// ```swift
    /// let count = try buffer.readVarInt()
    /// ```
    public mutating func readVarInt() throws -> UInt64 {
        let offset = readPosition
        var position = offset
        let decoded = bytes.withUnsafeBufferPointer { Self.decodeVarInt($0, at: &position) }
        switch decoded {
        case let .value(value):
            readPosition = position
            return value
        case .truncated:
            throw DataBufferError.truncated(offset: offset, needed: position - offset + 1, available: bytes.count - offset)
        case .malformed:
            throw DataBufferError.malformedVarInt(offset: offset)
        }
    }

    /// What ``decodeVarInt(_:at:)`` found.
    @usableFromInline
    package enum DecodedVarInt {
        case value(UInt64)
        /// The bytes end inside the varint (the position is at the end).
        case truncated
        /// More than 64 bits.
        case malformed
    }

    /// Decodes the LEB128 varint at `position` in `bytes`, moving `position` past it (or, when
    /// the bytes end first, to their end): the one decoder of every varint read, LarderDocuments'
    /// included.
    @inlinable @inline(__always)
    package static func decodeVarInt(_ bytes: UnsafeBufferPointer<UInt8>, at position: inout Int) -> DecodedVarInt {
        // Most varints (lengths, counts, small integers) are one byte.
        if position >= 0, position < bytes.count, let base = bytes.baseAddress, base[position] < 0x80 {
            defer { position &+= 1 }
            return .value(UInt64(base[position]))
        }
        return decodeLongVarInt(bytes, at: &position)
    }

    /// ``decodeVarInt(_:at:)`` past its one-byte case.
    @inlinable
    package static func decodeLongVarInt(_ bytes: UnsafeBufferPointer<UInt8>, at position: inout Int) -> DecodedVarInt {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        let end = bytes.count
        while true {
            guard position < end else { return .truncated }
            let byte = bytes[position]
            position &+= 1
            let payload = UInt64(byte & 0x7f)
            // The tenth byte may only carry the 64th bit.
            guard shift < 63 || (shift == 63 && payload <= 1) else { return .malformed }
            result |= payload << shift
            if byte < 0x80 { return .value(result) }
            shift &+= 7
        }
    }

    // MARK: Optionals

    /// Reads a string written by `write(_: String?)`: nil or a string, `""` included.
    ///
    /// ```swift
    /// let subtitle = try buffer.readOptionalString()
    /// ```
    public mutating func readOptionalString() throws -> String? { try readOptional { try $0.readString() } }

    /// Reads optional `Data`.
    ///
    /// ```swift
    /// let artwork = try buffer.readOptionalData()
    /// ```
    public mutating func readOptionalData() throws -> Data? { try readOptional { try $0.readData() } }

    /// Reads an optional Date.
    ///
    /// ```swift
    /// let lastPlayed = try buffer.readOptionalDate()
    /// ```
    public mutating func readOptionalDate() throws -> Date? { try readOptional { try $0.readDate() } }

    /// Reads an optional UUID.
    ///
    /// ```swift
    /// let externalID = try buffer.readOptionalUUID()
    /// ```
    public mutating func readOptionalUUID() throws -> UUID? { try readOptional { try $0.readUUID() } }

    /// Reads an optional Int.
    ///
    /// ```swift
    /// let rating = try buffer.readOptionalInt()
    /// ```
    public mutating func readOptionalInt() throws -> Int? { try readOptional { try $0.readInt() } }

    /// Reads an optional Double.
    ///
    /// ```swift
    /// let gain = try buffer.readOptionalDouble()
    /// ```
    public mutating func readOptionalDouble() throws -> Double? { try readOptional { try $0.readDouble() } }

    /// Reads a presence byte and, when it is 1, the value `readValue` reads; the mirror of
    /// ``writeOptional(_:_:)``.
    ///
    /// ```swift
    /// let bpm = try buffer.readOptional { try $0.readUInt16() }
    /// ```
    public mutating func readOptional<T>(_ readValue: (inout DataBuffer) throws -> T) throws -> T? {
        let offset = readPosition
        guard try readBool() else { return nil }
        do {
            return try readValue(&self)
        } catch {
            // Like every read that throws, leave the position where it was (not past the presence byte).
            readPosition = offset
            throw error
        }
    }

    // MARK: Helpers

    /// Throws unless `count` more bytes can be read.
    @inlinable @inline(__always)
    internal func requireBytes(_ count: Int) throws {
        guard count <= bytes.count - readPosition else {
            throw DataBufferError.truncated(offset: readPosition, needed: count, available: bytes.count - readPosition)
        }
    }

    /// Reads a varint length and checks that many bytes follow.
    internal mutating func readLength() throws -> Int {
        let offset = readPosition
        let raw = try readVarInt()
        guard let count = Int(exactly: raw), count <= bytes.count - readPosition else {
            let available = bytes.count - readPosition
            readPosition = offset
            throw DataBufferError.truncated(offset: offset, needed: Int(clamping: raw), available: available)
        }
        return count
    }

    /// Inlined into the caller (a class's `readContent`, in the user's module): a call for each
    /// integer field cost a fetched object about 30 instructions a field.
    @inlinable @inline(__always)
    internal mutating func readLittleEndian<T: FixedWidthInteger>() throws -> T {
        let size = MemoryLayout<T>.size
        try requireBytes(size)
        let position = cursor
        cursor = position + size
        return bytes.withUnsafeBytes { $0.loadLittleEndian(T.self, at: position) }
    }
}
