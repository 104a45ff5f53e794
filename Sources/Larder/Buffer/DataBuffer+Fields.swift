// Tagged fields: the layout @StoredModel classes write. Each field is a 4-byte little-endian key
// (tag << 3 | wire) followed by its value; a reader matches keys it knows and skips the others by
// their wire. docs/FORMAT.md section 21 has the layout.

import Foundation

extension DataBuffer {
    // MARK: Keys

    /// Appends a field key (``StoredFieldWire/key(forTag:)``), 4 bytes little-endian.
    ///
    /// ```swift
    /// buffer.writeFieldKey(StoredFieldWire.bytes.key(forTag: StoredField.tag(forName: "title")))
    /// buffer.write(title)
    /// ```
    public mutating func writeFieldKey(_ key: UInt32) { appendLittleEndian(key) }

    /// Reads the next field key, or nil at the end of the record.
    ///
    /// ```swift
    /// while let key = try buffer.readFieldKey() {
    ///     switch key {
    ///     case titleKey: title = try buffer.readString()
    ///     default: try buffer.skipField(key: key)
    ///     }
    /// }
    /// ```
    @inlinable
    public mutating func readFieldKey() throws -> UInt32? {
        // Inlined into the generated readContent: a call per field cost a fetch of a
        // two-field model 5% of its instructions.
        let position = cursor
        let available = bytes.count - position
        guard available > 0 else { return nil }
        guard available >= 4 else {
            throw DataBufferError.truncated(offset: position, needed: 4, available: available)
        }
        cursor = position + 4
        return bytes.withUnsafeBytes { $0.loadLittleEndian(UInt32.self, at: position) }
    }

    /// Skips the value of a field with `key` (one this reader does not know), by its wire.
    /// Damaged bytes throw ``DataBufferError`` with the read position left at the value.
    ///
    /// ```swift
    /// default: try buffer.skipField(key: key)
    /// ```
    public mutating func skipField(key: UInt32) throws {
        switch StoredFieldWire(rawValue: key & 7) ?? .null {
        case .byte: try skip(1)
        case .fixed16: try skip(2)
        case .fixed32: try skip(4)
        case .fixed64: try skip(8)
        case .varint: _ = try readVarInt()
        case .bytes, .sequence: readPosition += try readLength()
        case .null: break
        }
    }

    // MARK: Keyed values

    /// Appends a field key and an integer value in one append (the value as `write(_:)` lays
    /// out its type: 1, 2, 4 or 8 bytes, little-endian).
    ///
    /// ```swift
    /// buffer.writeField(StoredFieldWire.fixed32.key(forTag: StoredField.tag(forName: "seconds")), seconds)
    /// ```
    public mutating func writeField<T: FixedWidthInteger>(_ key: UInt32, _ value: T) {
        appendKeyed(key, UInt64(truncatingIfNeeded: value), size: MemoryLayout<T>.size)
    }

    /// Appends a field key and an `Int`, 8 bytes on every host (as `write(_: Int)`).
    ///
    /// ```swift
    /// buffer.writeField(key, playCount)
    /// ```
    public mutating func writeField(_ key: UInt32, _ value: Int) {
        appendKeyed(key, UInt64(truncatingIfNeeded: value), size: 8)
    }

    /// Appends a field key and a `UInt`, 8 bytes on every host (as `write(_: UInt)`).
    ///
    /// ```swift
    /// buffer.writeField(key, UInt(7))
    /// ```
    public mutating func writeField(_ key: UInt32, _ value: UInt) {
        appendKeyed(key, UInt64(value), size: 8)
    }

    /// Appends a field key and a Bool (one byte, 0 or 1).
    ///
    /// ```swift
    /// buffer.writeField(key, isFavorite)
    /// ```
    public mutating func writeField(_ key: UInt32, _ value: Bool) {
        appendKeyed(key, value ? 1 : 0, size: 1)
    }

    /// Appends a field key and a Float's bit pattern (4 bytes).
    ///
    /// ```swift
    /// buffer.writeField(key, Float(0.5))
    /// ```
    public mutating func writeField(_ key: UInt32, _ value: Float) {
        appendKeyed(key, UInt64(value.bitPattern), size: 4)
    }

    /// Appends a field key and a Double's bit pattern (8 bytes).
    ///
    /// ```swift
    /// buffer.writeField(key, 0.25)
    /// ```
    public mutating func writeField(_ key: UInt32, _ value: Double) {
        appendKeyed(key, value.bitPattern, size: 8)
    }

    /// Appends a field key and a Date (as `write(_: Date)`: seconds since 2001, a Double).
    ///
    /// ```swift
    /// buffer.writeField(key, Date())
    /// ```
    public mutating func writeField(_ key: UInt32, _ value: Date) {
        appendKeyed(key, value.timeIntervalSinceReferenceDate.bitPattern, size: 8)
    }

    /// Appends a field key and a string (as `write(_: String)`: a varint byte count, then UTF-8).
    ///
    /// ```swift
    /// buffer.writeField(key, title)
    /// ```
    public mutating func writeField(_ key: UInt32, _ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            if utf8.count < 0x80 {
                // The key and a one-byte count in one append.
                appendKeyed(key, UInt64(utf8.count), size: 1)
            } else {
                writeFieldKey(key)
                writeVarInt(UInt64(utf8.count))
            }
            bytes.append(contentsOf: utf8)
        }
    }

    /// Appends a field key and the bytes of `value` (as `write(_: Data)`).
    ///
    /// ```swift
    /// buffer.writeField(key, artwork)
    /// ```
    public mutating func writeField(_ key: UInt32, _ value: Data) {
        writeFieldKey(key)
        write(value)
    }

    /// Appends `key` (4 bytes LE) and the low `size` bytes of `value` (LE), with one append.
    @inline(__always)
    internal mutating func appendKeyed(_ key: UInt32, _ value: UInt64, size: Int) {
        var words = (key.littleEndian, UInt32(truncatingIfNeeded: value).littleEndian,
                     UInt32(truncatingIfNeeded: value >> 32).littleEndian)
        withUnsafeBytes(of: &words) { raw in
            bytes.appendBytes(UnsafeRawBufferPointer(rebasing: raw[..<(4 + size)]))
        }
    }

    // MARK: Unsigned Int

    /// Appends `value` as a 64-bit unsigned integer (8 bytes, little-endian) on every host.
    ///
    /// ```swift
    /// buffer.write(UInt(42))
    /// ```
    public mutating func write(_ value: UInt) { appendLittleEndian(UInt64(value)) }

    /// Reads a `UInt` written by `write(_: UInt)`. On a 32-bit host a value that does not fit
    /// throws ``DataBufferError/valueOutOfRange(offset:)``.
    ///
    /// ```swift
    /// let plays = try buffer.readUInt()
    /// ```
    public mutating func readUInt() throws -> UInt {
        let offset = readPosition
        let value: UInt64 = try readLittleEndian()
        guard let result = UInt(exactly: value) else {
            readPosition = offset
            throw DataBufferError.valueOutOfRange(offset: offset)
        }
        return result
    }

    // MARK: Sequences

    /// Appends an array as a tagged field's sequence: a varint byte count, then a varint element
    /// count and each element as `writeElement` writes it.
    ///
    /// ```swift
    /// buffer.writeSequence(tags) { $0.write($1) }   // a [String]
    /// ```
    public mutating func writeSequence<T>(_ values: [T], _ writeElement: (inout DataBuffer, T) -> Void) {
        writeLengthPrefixed { buffer in
            buffer.writeVarInt(UInt64(values.count))
            for value in values { writeElement(&buffer, value) }
        }
    }

    /// Reads an array written by ``writeSequence(_:_:)``. Elements that do not fill the
    /// sequence's byte count exactly throw ``DataBufferError/valueOutOfRange(offset:)``.
    ///
    /// ```swift
    /// tags = try buffer.readSequence { try $0.readString() }
    /// ```
    public mutating func readSequence<T>(_ readElement: (inout DataBuffer) throws -> T) throws -> [T] {
        try readLengthPrefixed { buffer in
            let count = try buffer.readCount()
            var values: [T] = []
            values.reserveCapacity(count)
            for _ in 0 ..< count { values.append(try readElement(&buffer)) }
            return values
        }
    }

    /// Appends an ordered relationship as a tagged field's sequence: a varint byte count, then
    /// what `writeReferences(_:)` writes.
    ///
    /// ```swift
    /// buffer.writeReferenceSequence(songs)
    /// ```
    public mutating func writeReferenceSequence(_ objects: [StoredObject]) {
        writeLengthPrefixed { $0.writeReferences(objects) }
    }

    /// Reads a relationship written by ``writeReferenceSequence(_:)``, as live instances or
    /// faults; references to rows that do not exist are left out.
    ///
    /// ```swift
    /// songs = try buffer.readReferenceSequence(to: Song.self, in: store)
    /// ```
    public mutating func readReferenceSequence<T: StoredObject>(to type: T.Type, in store: Store) throws -> [T] {
        try readLengthPrefixed { try $0.readReferences(to: type, in: store) }
    }

    // MARK: Helpers

    /// Appends a varint byte count and then what `body` writes.
    internal mutating func writeLengthPrefixed(_ body: (inout DataBuffer) -> Void) {
        // One byte kept for the count, the usual case; a longer count moves the payload once.
        let countPosition = bytes.count
        bytes.append(0)
        body(&self)
        let length = bytes.count - countPosition - 1
        if length < 0x80 {
            bytes[countPosition] = UInt8(length)
        } else {
            var count: [UInt8] = []
            count.appendVarInt(UInt64(length))
            bytes.replaceSubrange(countPosition ..< countPosition + 1, with: count)
        }
    }

    /// Reads a varint byte count and then, with `body`, exactly that many bytes; a body that
    /// reads more or fewer throws ``DataBufferError/valueOutOfRange(offset:)``. A read that
    /// throws leaves the read position at the count.
    internal mutating func readLengthPrefixed<T>(_ body: (inout DataBuffer) throws -> T) throws -> T {
        let offset = readPosition
        do {
            let length = try readLength()
            let end = readPosition + length
            let value = try body(&self)
            guard readPosition == end else { throw DataBufferError.valueOutOfRange(offset: offset) }
            return value
        } catch {
            readPosition = offset
            throw error
        }
    }

    /// Moves the read position `count` bytes on, or throws when fewer remain.
    internal mutating func skip(_ count: Int) throws {
        try requireBytes(count)
        readPosition += count
    }
}
