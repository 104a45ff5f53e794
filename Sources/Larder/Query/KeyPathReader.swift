// KeyPathReader: what a query term does with its key path, for the key path's root and value
// types: append the key of the value it reads in an object, tell whether an object is of its
// root class, name the property it reads. One instance per key path (KeyPathIdentity keeps
// them), so that making a term allocates nothing and copying one retains one reference (three
// closures did: a plan copies terms for every index it weighs).

/// Reads the values of one key path of a stored class, its types erased.
internal protocol KeyPathReader: AnyObject, Sendable {
    /// The key path read.
    var keyPath: AnyKeyPath { get }
    /// Appends the key of the value the key path reads in `object`, which must be a root
    /// (or a subclass).
    func appendKey(of object: StoredObject, to key: inout [UInt8])
    /// Whether `object` is a root (an index declared with another class's key path is refused).
    func accepts(_ object: StoredObject) -> Bool
    /// The name of the property the key path reads (KeyPathName), or nil.
    var propertyName: String? { get }
}

/// The reader of a `KeyPath<Root, Value>`.
internal final class TypedKeyPathReader<Root: StoredObject, Value: IndexableValue>: KeyPathReader, @unchecked Sendable {
    // @unchecked: a key path is immutable.
    private let typedKeyPath: KeyPath<Root, Value>

    init(_ keyPath: KeyPath<Root, Value>) {
        typedKeyPath = keyPath
    }

    var keyPath: AnyKeyPath { typedKeyPath }

    func appendKey(of object: StoredObject, to key: inout [UInt8]) {
        unsafeDowncast(object, to: Root.self)[keyPath: typedKeyPath].appendIndexKey(to: &key)
    }

    func accepts(_ object: StoredObject) -> Bool { object is Root }

    var propertyName: String? { KeyPathName.name(of: typedKeyPath) }
}
