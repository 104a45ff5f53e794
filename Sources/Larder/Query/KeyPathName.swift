// KeyPathName: the name of the property a key path reads, for index definitions kept in the
// store and for explain. A key path to a `@Stored` property is a computed key path whose
// description is a code address (different in every build), so the name is found by reading
// the key path on a probe object that has no content: the `@Stored` getter's fault path then
// hands over its storage key path (`\Song._title`), whose description names the field.

import Foundation

/// Names of the properties key paths read.
internal enum KeyPathName {
    private static let lock = NSLock()
    /// Probes being read (by object), with the storage their read named.
    nonisolated(unsafe) private static var probes: [ObjectIdentifier: AnyKeyPath?] = [:]
    nonisolated(unsafe) private static var names: [AnyKeyPath: String] = [:]

    /// The property `keyPath` reads on objects of `root`: "title" for `\Song.title`; nil when
    /// it reads no `@Stored` property or plain stored property (a computed property, a chain).
    static func name(of keyPath: AnyKeyPath, root: StoredObject.Type) -> String? {
        if let known = lock.withLock({ names[keyPath] }) { return known }
        let probe = root.init()
        probe.hasContent = false
        let id = ObjectIdentifier(probe)
        lock.withLock { probes[id] = .some(nil) }
        _ = probe[keyPath: keyPath]
        let storage = lock.withLock { probes.removeValue(forKey: id) } ?? nil
        probe.hasContent = true
        guard let name = storage.flatMap({ fieldName(in: $0, dropping: "_") }) ?? fieldName(in: keyPath, dropping: nil) else {
            return nil
        }
        lock.withLock { names[keyPath] = name }
        return name
    }

    /// Called by the `@Stored` getter of an object outside any store that has no content.
    static func record(_ storage: AnyKeyPath, readBy object: StoredObject) {
        let id = ObjectIdentifier(object)
        lock.withLock {
            // Only the first read counts: a getter may read other properties.
            if let recorded = probes[id], recorded == nil { probes[id] = .some(storage) }
        }
    }

    /// "title" from `\Song._title` (dropping the leading "_") or `\Song.title`.
    private static func fieldName(in keyPath: AnyKeyPath, dropping prefix: Character?) -> String? {
        let description = String(describing: keyPath)
        guard !description.contains("<"), let dot = description.firstIndex(of: ".") else { return nil }
        var name = description[description.index(after: dot)...]
        if let prefix, name.first == prefix { name = name.dropFirst() }
        guard !name.isEmpty, !name.contains(".") else { return nil }
        return String(name)
    }
}
