// Tagged fields: the layout @StoredModel classes write. Each field is a 4-byte little-endian key
// (tag << 3 | wire) followed by its value; a reader matches keys it knows and skips the others by
// their wire. docs/FORMAT.md section 21 has the layout.

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
    public mutating func readFieldKey() throws -> UInt32? {
        guard readPosition < bytes.count else { return nil }
        return try readLittleEndian() as UInt32
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
    /// what ``writeReferences(_:)`` writes.
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
