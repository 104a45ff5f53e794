// QueryTerm: one key path of a predicate, an order or an index, type-erased: the key path's
// number (which identifies it, to match predicates with indexes) and its reader, which appends
// the key of its value in an object.

/// A key path of a stored class whose values are indexable.
internal struct QueryTerm: Hashable, Sendable {
    /// The key path's number (KeyPathIdentity): what terms are compared and hashed by.
    let identity: Int
    /// Reads the key path's values: the same instance for every term of one key path instance.
    let reader: any KeyPathReader

    init<Root: StoredObject, Value: IndexableValue>(_ keyPath: KeyPath<Root, Value>) {
        (identity, reader) = KeyPathIdentity.of(keyPath)
    }

    /// The key path read.
    var keyPath: AnyKeyPath { reader.keyPath }

    /// Appends the key of the value the key path reads in `object`, which must be a root.
    @inline(__always)
    func appendKey(_ object: StoredObject, _ key: inout [UInt8]) {
        reader.appendKey(of: object, to: &key)
    }

    /// Whether `object` is a root (an index declared with another class's key path is refused).
    func accepts(_ object: StoredObject) -> Bool { reader.accepts(object) }

    /// The name of the property the key path reads (KeyPathName), or nil.
    var propertyName: String? { reader.propertyName }

    /// The key of the value in `object`, which must be a `root`.
    func key(of object: StoredObject) -> [UInt8] {
        var key: [UInt8] = []
        appendKey(object, &key)
        return key
    }

    /// The property's name ("title" for `\Song.title`), or the key path's description when
    /// it names none.
    var name: String {
        propertyName ?? String(describing: keyPath)
    }

    static func == (left: QueryTerm, right: QueryTerm) -> Bool {
        left.identity == right.identity
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(identity)
    }
}
