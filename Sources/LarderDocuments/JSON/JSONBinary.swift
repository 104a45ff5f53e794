// JSONBinary: the compact storage encoding of a JSON value (documents, definitions,
// metadata), one tag byte then the payload; see docs/FORMAT.md. Decoding is bounds-checked
// and depth-limited: damaged bytes give an error, never a crash.

import Larder

/// Encodes and decodes JSON in Larder's binary document format.
enum JSONBinary {
    static let null: UInt8 = 0, falseTag: UInt8 = 1, trueTag: UInt8 = 2, int: UInt8 = 3, double: UInt8 = 4
    static let string: UInt8 = 5, array: UInt8 = 6, object: UInt8 = 7
    /// Deeper nesting than this is refused when decoding (and cannot come from a sane writer).
    static let maximumDepth = 128

    struct DecodingFailure: Error { var reason: String }

    static func encode(_ value: JSON) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64)
        append(value, to: &bytes)
        return bytes
    }

    static func append(_ value: JSON, to bytes: inout [UInt8]) {
        switch value {
        case .null: bytes.append(null)
        case let .bool(flag): bytes.append(flag ? trueTag : falseTag)
        case let .int(number):
            bytes.append(int)
            bytes.appendVarInt(UInt64(bitPattern: (number << 1) ^ (number >> 63)))   // zigzag
        case let .double(number):
            bytes.append(double)
            bytes.appendLittleEndian(number.bitPattern)
        case let .string(text):
            bytes.append(string)
            appendString(text, to: &bytes)
        case let .array(elements):
            bytes.append(array)
            bytes.appendVarInt(UInt64(elements.count))
            for element in elements { append(element, to: &bytes) }
        case let .object(members):
            bytes.append(object)
            bytes.appendVarInt(UInt64(members.count))
            for (key, member) in members {
                appendString(key, to: &bytes)
                append(member, to: &bytes)
            }
        }
    }

    /// Appends a document as stored: an object without its `"__rowid__"` member (the key of
    /// its record says which document it is). Readers add the member back.
    static func appendDocument(_ document: JSON, to bytes: inout [UInt8]) {
        guard case let .object(members) = document, let rowIDMember = members.index(forKey: FieldPath.rowIDField) else {
            return append(document, to: &bytes)
        }
        bytes.append(object)
        bytes.appendVarInt(UInt64(members.count - 1))
        for position in members.indices where position != rowIDMember {
            let (key, member) = members[position]
            appendString(key, to: &bytes)
            append(member, to: &bytes)
        }
    }

    static func appendString(_ text: String, to bytes: inout [UInt8]) {
        var text = text
        text.withUTF8 { utf8 in
            bytes.appendVarInt(UInt64(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    /// The value encoded in `bytes`, which must hold exactly one.
    static func decode(_ bytes: UnsafeRawBufferPointer) throws -> JSON {
        try decode(bytes, addingRowID: nil)
    }

    /// The value encoded in `bytes`; an object gets `"__rowid__": rowID` too when `rowID` is
    /// given (a stored document as readers see it, without a second pass to add it).
    /// `shapes`, when given, holds the key sets of objects decoded before on this thread.
    static func decode(_ bytes: UnsafeRawBufferPointer, addingRowID rowID: Int64?, shapes: ObjectShapes? = nil) throws -> JSON {
        var reader = Reader(bytes: bytes, rowID: rowID, shapes: shapes)
        let value = try reader.value(depth: 0)
        guard reader.offset == bytes.count else { throw DecodingFailure(reason: "trailing bytes") }
        return value
    }

    static func decode(_ bytes: [UInt8]) throws -> JSON {
        try bytes.withUnsafeBytes { try decode($0) }
    }

    /// Reads encoded values (decoding here, path lookups in JSONBinary+PathLookup).
    struct Reader {
        let bytes: UnsafeRawBufferPointer
        /// Added as `"__rowid__"` to the outermost object.
        let rowID: Int64?
        /// Objects of known key sets are copied from these; nil decodes member by member.
        let shapes: ObjectShapes?
        var offset = 0
        /// Whether short ASCII strings can be built inline (read once: each read of the
        /// static is a call).
        private let buildsSmallStrings = SmallASCIIString.isAvailable

        init(bytes: UnsafeRawBufferPointer, rowID: Int64?, shapes: ObjectShapes?) {
            self.bytes = bytes
            self.rowID = rowID
            self.shapes = shapes
        }

        mutating func byte() throws -> UInt8 {
            guard offset < bytes.count else { throw DecodingFailure(reason: "truncated at \(offset)") }
            defer { offset += 1 }
            return bytes[offset]
        }

        @inline(__always)
        mutating func varint() throws -> UInt64 {
            let start = offset
            switch DataBuffer.decodeVarInt(bytes.assumingMemoryBound(to: UInt8.self), at: &offset) {
            case let .value(value): return value
            case .truncated: throw DecodingFailure(reason: "truncated at \(offset)")
            case .malformed: throw DecodingFailure(reason: "varint too long at \(start)")
            }
        }

        /// A count or length: how many elements or bytes follow, each at least one byte.
        @inline(__always)
        mutating func count() throws -> Int {
            let value = try varint()
            // Every element takes at least one byte: a larger count is damage.
            guard value <= UInt64(bytes.count &- offset) else { throw countPastTheEnd() }
            return Int(value)
        }

        /// Out of line: the message is built only for damage.
        @inline(never)
        func countPastTheEnd() -> DecodingFailure {
            DecodingFailure(reason: "count past the end at \(offset)")
        }

        /// The UTF-8 of a string, not yet checked.
        @inline(__always)
        mutating func stringBytes() throws -> UnsafeRawBufferPointer {
            // `count()` checked that `length` bytes are left.
            let length = try count()
            let start = offset
            offset &+= length
            return UnsafeRawBufferPointer(start: bytes.baseAddress.map { $0 + start }, count: length)
        }

        mutating func string() throws -> String {
            let slice = try stringBytes()
            // A short one is read as two words of the record: from its start or, near the
            // record's end, back from its end.
            if slice.count <= SmallASCIIString.capacity, buildsSmallStrings, let start = slice.baseAddress {
                let made = bytes.count - (offset - slice.count) >= 16 ? SmallASCIIString.make(reading: start, count: slice.count)
                    : offset >= 16 ? SmallASCIIString.make(readingBackFrom: start + slice.count, count: slice.count) : nil
                if let made { return made }
            }
            guard let text = UTF8Decoding.string(slice) else {
                throw DecodingFailure(reason: "invalid UTF-8 at \(offset - slice.count)")
            }
            return text
        }

        mutating func value(depth: Int) throws -> JSON {
            guard depth < JSONBinary.maximumDepth else { throw DecodingFailure(reason: "nested too deeply") }
            switch try byte() {
            case JSONBinary.null: return .null
            case JSONBinary.falseTag: return .bool(false)
            case JSONBinary.trueTag: return .bool(true)
            case JSONBinary.int:
                let zigzag = try varint()
                return .int(Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1))
            case JSONBinary.double:
                guard bytes.count - offset >= 8 else { throw DecodingFailure(reason: "truncated double at \(offset)") }
                var bits: UInt64 = 0
                for index in 0 ..< 8 { bits |= UInt64(bytes[offset + index]) << (8 * UInt64(index)) }
                offset += 8
                return .double(Double(bitPattern: bits))
            case JSONBinary.string: return .string(try string())
            case JSONBinary.array:
                let count = try count()
                var elements: [JSON] = []
                if count > 0 { elements.reserveCapacity(DecodedArrayCapacity.forElements(count)) }
                for _ in 0 ..< count { elements.append(try value(depth: depth + 1)) }
                return .array(elements)
            case JSONBinary.object:
                let count = try count()
                let addsRowID = depth == 0 && rowID != nil
                var matched: [String: JSON]?
                var read = 0
                if let shapes {
                    let start = offset
                    switch try shapedMembers(count: count, addingRowID: addsRowID, depth: depth, shapes: shapes) {
                    case let .complete(complete):
                        return .object(complete)
                    case let .partial(decoded, membersRead):
                        // Carried on member by member: no value is decoded twice, so a
                        // nested object reads in time linear in its size.
                        matched = decoded
                        read = membersRead
                    case .unmatched:
                        offset = start
                    }
                }
                // A document gets "__rowid__" added when returned: room for it saves a rehash.
                var members = matched ?? [String: JSON](minimumCapacity: addsRowID ? count + 1 : count)
                for _ in read ..< count {
                    let key = try string()
                    members[key] = try value(depth: depth + 1)
                }
                if addsRowID, let rowID { members[FieldPath.rowIDField] = .int(rowID) }
                shapes?.noteMiss(members)
                return .object(members)
            case let tag: throw DecodingFailure(reason: "unknown tag \(tag) at \(offset - 1)")
            }
        }

        /// ``ObjectShapes/Shape/head(of:)`` of `key`, a part of `bytes`: one load when the
        /// record has 8 bytes from its start.
        @inline(__always)
        func head(of key: UnsafeRawBufferPointer) -> UInt64 {
            guard let start = key.baseAddress, let base = bytes.baseAddress, bytes.count - (start - base) >= 8 else {
                return ObjectShapes.Shape.head(of: key)
            }
            let word = start.loadLittleEndian(UInt64.self)
            return key.count >= 8 ? word : word & ((1 &<< UInt64(truncatingIfNeeded: key.count &* 8)) &- 1)
        }

        /// How far decoding an object through the known key sets got.
        enum ShapedMembers {
            /// Its keys are one known set, each once: the whole object.
            case complete([String: JSON])
            /// Its first `read` members matched a set, and were decoded; the reader is at the
            /// key of member `read`, to go on member by member.
            case partial([String: JSON], read: Int)
            /// No set holds its first key: nothing was decoded (the reader is to be rewound).
            case unmatched
        }

        /// The `count` members of an object, decoded into a copy of a known key set's
        /// dictionary, or as many as some set holds. Each value is decoded once: a key that
        /// the set being filled lacks moves the values read so far to the next set that holds
        /// them all and that key, if there is one; the sets of as many keys are tried in turn,
        /// the last used first.
        mutating func shapedMembers(count: Int, addingRowID addsRowID: Bool, depth: Int,
                                    shapes: ObjectShapes) throws -> ShapedMembers {
            let keyCount = addsRowID ? count + 1 : count
            guard count > 0, keyCount <= ObjectShapes.maximumKeys else { return .unmatched }
            let firstKey = try stringBytes()
            guard var (fill, slot) = ShapeFill.next(in: shapes, keyCount: keyCount, holding: firstKey, head: head(of: firstKey))
            else { return .unmatched }
            for index in 0 ..< count {
                if index > 0 {
                    let keyStart = offset
                    let key = try stringBytes()
                    let keyHead = head(of: key)
                    if let next = fill.shape.slot(of: key, head: keyHead) {
                        // A key met twice: no set matches; member by member, the last one wins.
                        guard !fill.holds(next) else {
                            offset = keyStart
                            return .partial(fill.plainMembers(room: count + 1), read: index)
                        }
                        slot = next
                    } else if let (other, next) = ShapeFill.next(in: shapes, keyCount: keyCount, holding: key, head: keyHead,
                                                                  after: fill) {
                        (fill, slot) = (other, next)
                    } else {
                        offset = keyStart
                        return .partial(fill.plainMembers(room: count + 1), read: index)
                    }
                }
                fill.set(slot, to: try value(depth: depth + 1))
            }
            if addsRowID, let rowID {
                guard let rowIDSlot = fill.shape.rowIDSlot, !fill.holds(rowIDSlot) else {
                    // Another set, or a stored "__rowid__" member: finished member by member.
                    return .partial(fill.plainMembers(room: count + 1), read: count)
                }
                fill.set(rowIDSlot, to: .int(rowID))
            }
            // Each key was one of the set's and none came twice: all are filled.
            shapes.noteHit(at: fill.position)
            return .complete(fill.members)
        }
    }
}
