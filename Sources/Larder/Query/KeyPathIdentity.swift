// KeyPathIdentity: one number per distinct key path, so that matching a query's conditions and
// order with a class's indexes compares integers. Two key paths compare equal by structure,
// which costs about a thousand instructions, and a plan makes several comparisons per index.
// A key path literal gives the same instance every time it runs, so most lookups are by
// instance (its address); the instances are kept (up to a bound) so that no address is reused,
// with their readers (KeyPathReader), so that a query's terms allocate nothing.

import Foundation

/// Numbers for key paths: equal key paths get the same number.
internal enum KeyPathIdentity {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var byInstance: [ObjectIdentifier: (number: Int, reader: any KeyPathReader)] = [:]
    nonisolated(unsafe) private static var instances: [AnyKeyPath] = []
    nonisolated(unsafe) private static var byValue: [AnyKeyPath: Int] = [:]
    /// Instances remembered by address at most (beyond, a lookup compares structure).
    private static let instanceLimit = 65_536

    /// The number of `keyPath`, and a reader of its values.
    static func of<Root: StoredObject, Value: IndexableValue>(_ keyPath: KeyPath<Root, Value>) -> (number: Int, reader: any KeyPathReader) {
        lock.withLock {
            if let known = byInstance[ObjectIdentifier(keyPath)] { return known }
            let number: Int
            if let known = byValue[keyPath] {
                number = known
            } else {
                number = byValue.count
                byValue[keyPath] = number
            }
            let reader = TypedKeyPathReader(keyPath)
            if instances.count < instanceLimit {
                instances.append(keyPath)
                byInstance[ObjectIdentifier(keyPath)] = (number, reader)
            }
            return (number, reader)
        }
    }
}
