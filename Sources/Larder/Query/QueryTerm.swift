// QueryTerm: one key path of a predicate, an order or an index, type-erased: the key path
// (whose number identifies it, to match predicates with indexes) and how to append the key of
// its value in an object.

/// A key path of a stored class whose values are indexable.
internal struct QueryTerm: Hashable, @unchecked Sendable {
    // @unchecked: a key path is immutable; the closure captures only the key path.
    let keyPath: AnyKeyPath
    /// The key path's number (KeyPathIdentity): what terms are compared and hashed by.
    let identity: Int
    /// Appends the key of the value the key path reads in an object of `root` (or a subclass).
    let appendKey: (StoredObject, inout [UInt8]) -> Void
    /// Whether an object is a `root` (an index declared with another class's key path is refused).
    let accepts: (StoredObject) -> Bool
    /// The name of the property the key path reads (KeyPathName), or nil.
    let propertyName: () -> String?

    init<Root: StoredObject, Value: IndexableValue>(_ keyPath: KeyPath<Root, Value>) {
        self.keyPath = keyPath
        self.identity = KeyPathIdentity.of(keyPath)
        self.accepts = { $0 is Root }
        self.propertyName = { KeyPathName.name(of: keyPath) }
        self.appendKey = { object, key in
            unsafeDowncast(object, to: Root.self)[keyPath: keyPath].appendIndexKey(to: &key)
        }
    }

    /// The key of the value in `object`, which must be a `root`.
    func key(of object: StoredObject) -> [UInt8] {
        var key: [UInt8] = []
        appendKey(object, &key)
        return key
    }

    /// The property's name ("title" for `\Song.title`), or the key path's description when
    /// it names none.
    var name: String {
        propertyName() ?? String(describing: keyPath)
    }

    static func == (left: QueryTerm, right: QueryTerm) -> Bool {
        left.identity == right.identity
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(identity)
    }
}
