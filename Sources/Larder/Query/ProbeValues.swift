// ProbeValues: two different values of an indexable type, for KeyPathName to write through a
// key path on a probe object when several of its fields hold the same value. Covers the types
// Larder makes indexable (and their optionals, and references to stored objects); a value type
// of a user's own conformance has none, and an index on it is then named by `name:`.

import Foundation

/// Different values of the indexable types.
internal enum ProbeValues {
    /// Two or more different values of `Value`, or none when the type is not one Larder knows.
    static func values<Value: IndexableValue>(of _: Value.Type) -> [Value] {
        if let optional = Value.self as? any OptionalProbe.Type {
            var values: [Value] = []
            if let none = (Value.self as? any ExpressibleByNilLiteral.Type)?.init(nilLiteral: ()) as? Value { values.append(none) }
            for wrapped in anyValues(of: optional.wrappedType) {
                if let value = wrapped as? Value { values.append(value) }
            }
            return values
        }
        return anyValues(of: Value.self).compactMap { $0 as? Value }
    }

    private static func anyValues(of type: Any.Type) -> [Any] {
        if let objectType = type as? StoredObject.Type {
            let first = objectType.init(), second = objectType.init()
            first.rowID = 1
            second.rowID = 2
            return [first, second]
        }
        let known: [(Any.Type, [Any])] = [
            (Int.self, [0 as Int, 1 as Int]), (Int8.self, [0 as Int8, 1 as Int8]), (Int16.self, [0 as Int16, 1 as Int16]),
            (Int32.self, [0 as Int32, 1 as Int32]), (Int64.self, [0 as Int64, 1 as Int64]), (UInt.self, [0 as UInt, 1 as UInt]),
            (UInt8.self, [0 as UInt8, 1 as UInt8]), (UInt16.self, [0 as UInt16, 1 as UInt16]), (UInt32.self, [0 as UInt32, 1 as UInt32]),
            (UInt64.self, [0 as UInt64, 1 as UInt64]), (Double.self, [0 as Double, 1 as Double]), (Float.self, [0 as Float, 1 as Float]),
            (Bool.self, [false, true]), (String.self, ["", "probe"]), (Data.self, [Data(), Data([1])]),
            (Date.self, [Date(timeIntervalSinceReferenceDate: 0), Date(timeIntervalSinceReferenceDate: 1)]),
            (UUID.self, [UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)), UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1))]),
        ]
        return known.first { $0.0 == type }?.1 ?? []
    }
}

/// An optional type, for ProbeValues to find the type it wraps.
internal protocol OptionalProbe {
    static var wrappedType: Any.Type { get }
}

extension Optional: OptionalProbe {
    static var wrappedType: Any.Type { Wrapped.self }
}
