// IndexKey: the order-preserving byte encoding of JSON values for B+tree index keys. Byte
// order of encoded values equals JSON.compare order, and every encoding is self-delimiting
// (no encoding is a prefix of another), so compound keys concatenate components and a
// descending component is its encoding with every byte complemented. See docs/FORMAT.md.

import Larder

/// Builds index keys: components in order, then the document's rowID (8 bytes big-endian),
/// which makes every key unique.
enum IndexKey {
    static let nullTag: UInt8 = 0x05, falseTag: UInt8 = 0x10, trueTag: UInt8 = 0x11
    static let nanTag: UInt8 = 0x1F, numberTag: UInt8 = 0x20, stringTag: UInt8 = 0x30
    static let arrayTag: UInt8 = 0x40, objectTag: UInt8 = 0x50, endTag: UInt8 = 0x00
    /// Appended to a key prefix, sorts after every key that extends the prefix.
    static let prefixEnd: [UInt8] = Array(repeating: 0xFF, count: 9)

    /// Appends `value`, complemented when `descending`.
    static func append(_ value: JSON, descending: Bool, to key: inout [UInt8]) {
        let start = key.count
        append(value, to: &key)
        if descending {
            for index in start ..< key.count { key[index] = ~key[index] }
        }
    }

    /// The encoding of one value.
    static func encode(_ value: JSON, descending: Bool = false) -> [UInt8] {
        var key: [UInt8] = []
        append(value, descending: descending, to: &key)
        return key
    }

    /// True when `left` and `right` certainly encode to the same bytes, value by value: the
    /// same scalars (strings byte for byte: `==` on strings also equates canonically
    /// equivalent ones, which encode differently), arrays of such. Cheaper than encoding
    /// both; false when unsure (objects, whose keys a dictionary matches canonically).
    static func encodeAlike(_ left: ArraySlice<JSON>, _ right: ArraySlice<JSON>) -> Bool {
        guard left.count == right.count else { return false }
        // By position, each value matched where it is (no pair of copies to switch over).
        var rightIndex = right.startIndex
        for leftIndex in left.indices {
            guard encodeAlike(left[leftIndex], right[rightIndex]) else { return false }
            rightIndex += 1
        }
        return true
    }

    private static func encodeAlike(_ left: JSON, _ right: JSON) -> Bool {
        switch left {
        case .null: if case .null = right { return true }
        case let .bool(flag): if case let .bool(other) = right { return flag == other }
        case let .int(number): if case let .int(other) = right { return number == other }
        case let .double(number): if case let .double(other) = right { return number.bitPattern == other.bitPattern }
        case let .string(text): if case let .string(other) = right { return sameUTF8(text, other) }
        case let .array(elements): if case let .array(others) = right { return encodeAlike(elements[...], others[...]) }
        case .object: return false
        }
        return false
    }

    /// Whether two strings have the same UTF-8, compared in place (a native string's is
    /// contiguous) rather than a byte at a time through iterators.
    private static func sameUTF8(_ left: String, _ right: String) -> Bool {
        var left = left, right = right
        return left.withUTF8 { left in
            right.withUTF8 { right in ByteOrder.compare(UnsafeRawBufferPointer(left), UnsafeRawBufferPointer(right)) == 0 }
        }
    }

    static func appendRowID(_ rowID: Int64, to key: inout [UInt8]) {
        key.appendBigEndian(UInt64(bitPattern: rowID))
    }

    /// The rowID at the end of a full index key.
    static func rowID(in key: UnsafeRawBufferPointer) -> Int64? {
        RowIDKey.rowID(atEndOf: key).map { Int64(bitPattern: $0) }
    }

    private static func append(_ value: JSON, to key: inout [UInt8]) {
        switch value {
        case .null: key.append(nullTag)
        case let .bool(flag): key.append(flag ? trueTag : falseTag)
        case let .int(number):
            key.append(numberTag)
            appendOrderedDouble(Double(number), to: &key)
            appendBiased(number, to: &key)
        case let .double(number):
            guard !number.isNaN else { return key.append(nanTag) }
            key.append(numberTag)
            appendOrderedDouble(number == 0 ? 0 : number, to: &key)
            appendBiased(tieBreak(number), to: &key)
        case let .string(text):
            key.append(stringTag)
            appendEscaped(text, to: &key)
        case let .array(elements):
            key.append(arrayTag)
            for element in elements { append(element, to: &key) }
            key.append(endTag)
        case let .object(members):
            key.append(objectTag)
            for (name, member) in members.sorted(by: { JSON.compareUTF8($0.key, $1.key) < 0 }) {
                appendEscaped(name, to: &key)
                append(member, to: &key)
            }
            key.append(endTag)
        }
    }

    /// Strings: UTF-8 with 0x00 escaped as 0x00 0xFF, ended by 0x00 0x01 (sorts before any
    /// continuation, so "a" < "ab").
    private static func appendEscaped(_ text: String, to key: inout [UInt8]) {
        let copied = text.utf8.withContiguousStorageIfAvailable { utf8 -> Bool in
            // Text without NUL bytes (nearly all) is copied whole.
            guard !utf8.contains(0) else { return false }
            key.append(contentsOf: utf8)
            return true
        }
        if copied != true {
            for byte in text.utf8 {
                key.append(byte)
                if byte == 0 { key.append(0xFF) }
            }
        }
        key.append(0x00)
        key.append(0x01)
    }

    /// IEEE bits flipped so that unsigned byte order is numeric order.
    private static func appendOrderedDouble(_ number: Double, to key: inout [UInt8]) {
        let bits = number.bitPattern
        let ordered = bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63)
        key.appendBigEndian(ordered)
    }

    /// Integers past 2^53 share a double: the exact value (sign bit flipped) breaks the tie.
    private static func appendBiased(_ number: Int64, to key: inout [UInt8]) {
        key.appendBigEndian((UInt64(bitPattern: number) ^ (1 << 63)))
    }

    /// The integer a double ties with: itself when integral and in range, else the nearest
    /// end (only integral doubles can equal an integer's double).
    private static func tieBreak(_ number: Double) -> Int64 {
        if number >= 9_223_372_036_854_775_808.0 { return .max }
        if number < -9_223_372_036_854_775_808.0 { return .min }
        return Int64(exactly: number) ?? Int64(number.rounded(.towardZero))
    }
}
