// IndexableValue: the values object queries compare, order and index: every type DataBuffer
// writes, their optionals and references to stored objects. Each value has an order-preserving
// key (IndexKeyBytes): byte order of two keys is the order of the values, and no key is a prefix
// of another, so compound index keys concatenate them. Queries compare these keys, in an index
// and in a scan alike, so both always agree.

import Foundation

/// A value an ``ObjectPredicate`` can compare, an ``ObjectOrder`` can sort by and an
/// ``ObjectIndex`` can index: integers, `Float`, `Double`, `Bool`, `String`, `Data`, `Date`,
/// `UUID`, references to stored objects (compared by identity), and optionals of these.
///
/// Order: numbers by value, strings and `Data` by their bytes (UTF-8 code-point order, as
/// SQLite's `BINARY` collation), `false` before `true`, references by rowID, and `nil` before
/// every value.
///
/// ```swift
/// let long = try store.objects(of: Song.self, where: \.seconds > 300)
/// ```
public protocol IndexableValue {
    /// Appends the value's order-preserving key to `key`.
    func appendIndexKey(to key: inout [UInt8])
}

extension IndexableValue {
    /// The value's order-preserving key.
    internal var indexKey: [UInt8] {
        var key: [UInt8] = []
        appendIndexKey(to: &key)
        return key
    }
}

extension Int: IndexableValue {
    public func appendIndexKey(to key: inout [UInt8]) { IndexKeyBytes.appendSigned(Int64(self), to: &key) }
}

extension Int8: IndexableValue {
    public func appendIndexKey(to key: inout [UInt8]) { IndexKeyBytes.appendSigned(Int64(self), to: &key) }
}

extension Int16: IndexableValue {
    public func appendIndexKey(to key: inout [UInt8]) { IndexKeyBytes.appendSigned(Int64(self), to: &key) }
}

extension Int32: IndexableValue {
    public func appendIndexKey(to key: inout [UInt8]) { IndexKeyBytes.appendSigned(Int64(self), to: &key) }
}

extension Int64: IndexableValue {
    public func appendIndexKey(to key: inout [UInt8]) { IndexKeyBytes.appendSigned(self, to: &key) }
}

extension UInt: IndexableValue {
    public func appendIndexKey(to key: inout [UInt8]) { IndexKeyBytes.appendUnsigned(UInt64(self), to: &key) }
}

extension UInt8: IndexableValue {
    public func appendIndexKey(to key: inout [UInt8]) { IndexKeyBytes.appendUnsigned(UInt64(self), to: &key) }
}

extension UInt16: IndexableValue {
    public func appendIndexKey(to key: inout [UInt8]) { IndexKeyBytes.appendUnsigned(UInt64(self), to: &key) }
}

extension UInt32: IndexableValue {
    public func appendIndexKey(to key: inout [UInt8]) { IndexKeyBytes.appendUnsigned(UInt64(self), to: &key) }
}

extension UInt64: IndexableValue {
    public func appendIndexKey(to key: inout [UInt8]) { IndexKeyBytes.appendUnsigned(self, to: &key) }
}

extension Double: IndexableValue {
    public func appendIndexKey(to key: inout [UInt8]) { IndexKeyBytes.appendDouble(self, to: &key) }
}

extension Float: IndexableValue {
    public func appendIndexKey(to key: inout [UInt8]) { IndexKeyBytes.appendDouble(Double(self), to: &key) }
}

extension Bool: IndexableValue {
    public func appendIndexKey(to key: inout [UInt8]) { key.append(self ? IndexKeyBytes.trueTag : IndexKeyBytes.falseTag) }
}

extension String: IndexableValue {
    public func appendIndexKey(to key: inout [UInt8]) {
        key.append(IndexKeyBytes.stringTag)
        IndexKeyBytes.appendEscaped(utf8, to: &key)
    }
}

extension Data: IndexableValue {
    public func appendIndexKey(to key: inout [UInt8]) {
        key.append(IndexKeyBytes.dataTag)
        IndexKeyBytes.appendEscaped(self, to: &key)
    }
}

extension Date: IndexableValue {
    public func appendIndexKey(to key: inout [UInt8]) {
        IndexKeyBytes.appendDouble(timeIntervalSinceReferenceDate, to: &key)
    }
}

extension UUID: IndexableValue {
    public func appendIndexKey(to key: inout [UInt8]) {
        key.append(IndexKeyBytes.uuidTag)
        withUnsafeBytes(of: uuid) { key.append(contentsOf: $0) }
    }
}

extension StoredObject: IndexableValue {
    /// A reference's key: its rowID. An object not inserted in a store (rowID 0) equals no
    /// stored reference.
    public func appendIndexKey(to key: inout [UInt8]) {
        key.append(IndexKeyBytes.referenceTag)
        key.appendBigEndian(rowID)
    }
}

extension Optional: IndexableValue where Wrapped: IndexableValue {
    /// `nil` sorts before every value.
    public func appendIndexKey(to key: inout [UInt8]) {
        switch self {
        case .none: key.append(IndexKeyBytes.nilTag)
        case let .some(value): value.appendIndexKey(to: &key)
        }
    }
}
