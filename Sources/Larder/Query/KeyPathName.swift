// KeyPathName: the name of the property a key path reads, for index definitions kept in the
// store and for explain. A key path to a `@Stored` property is a computed key path whose
// description is a code address (different in every build), so the name is found on a probe
// object: among its `@Stored` fields of the key path's value type (their labels, `_title`, come
// from Mirror), the one the key path reads. When several hold the same value, a different value
// is written through the key path and the field that takes it is the one. The `@Stored` getter
// is not involved: naming costs nothing on the path every property read takes.

import Foundation

/// Names of the properties key paths read.
internal enum KeyPathName {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var names: [AnyKeyPath: String] = [:]

    /// The property `keyPath` reads: "title" for `\Song.title`; nil when it reads no
    /// `@Stored` property or plain stored property (a computed property, a chain).
    static func name<Root: StoredObject, Value: IndexableValue>(of keyPath: KeyPath<Root, Value>) -> String? {
        if let known = lock.withLock({ names[keyPath] }) { return known }
        guard let name = fieldName(in: keyPath) ?? storedFieldName(of: keyPath) else { return nil }
        lock.withLock { names[keyPath] = name }
        return name
    }

    /// The `@Stored` field of a probe object `keyPath` reads.
    private static func storedFieldName<Root: StoredObject, Value: IndexableValue>(of keyPath: KeyPath<Root, Value>) -> String? {
        let probe = Root.init()
        let read = probe[keyPath: keyPath].indexKey
        var candidates = storedFields(of: probe, holding: Value.self).filter { $0.value == read }.map(\.label)
        if candidates.count > 1, let writable = keyPath as? ReferenceWritableKeyPath<Root, Value>,
           let other = ProbeValues.values(of: Value.self).first(where: { $0.indexKey != read }) {
            // Several fields hold the value: the one that takes another value written through
            // the key path is the one it reads.
            probe.isLoadingContent = true
            probe[keyPath: writable] = other
            probe.isLoadingContent = false
            let written = other.indexKey
            let changed = Set(storedFields(of: probe, holding: Value.self).filter { $0.value == written }.map(\.label))
            candidates = candidates.filter(changed.contains)
        }
        guard candidates.count == 1, let label = candidates.first, label.first == "_" else { return nil }
        return String(label.dropFirst())
    }

    /// The `@Stored` fields of `object` (its class's and its superclasses') whose values are
    /// `Value`s: their labels and the keys of their values.
    private static func storedFields<Value: IndexableValue>(of object: StoredObject, holding _: Value.Type) -> [(label: String, value: [UInt8])] {
        var fields: [(label: String, value: [UInt8])] = []
        var mirror: Mirror? = Mirror(reflecting: object)
        while let current = mirror {
            for child in current.children {
                guard let label = child.label, let stored = child.value as? Stored<Value> else { continue }
                fields.append((label, stored.storedValue.indexKey))
            }
            mirror = current.superclassMirror
        }
        return fields
    }

    /// "isrc" from `\Song.isrc`, a key path to a plain stored property (its description names it).
    private static func fieldName(in keyPath: AnyKeyPath) -> String? {
        let description = String(describing: keyPath)
        guard !description.contains("<"), let dot = description.firstIndex(of: ".") else { return nil }
        let name = description[description.index(after: dot)...]
        guard !name.isEmpty, !name.contains(".") else { return nil }
        return String(name)
    }
}
