// ObjectIndex: an index a StoredObject class declares on one or more of its properties.

/// An index on one or more properties of a stored class, declared in
/// ``StoredObject/indexes``. Queries use it for equality, `in`, ranges on a prefix of its keys,
/// and an order with a limit; a unique index makes a save that would give two objects the same
/// values throw ``StoreError/uniqueIndexViolation(class:index:)`` (objects with a `nil` key are
/// exempt, as in SQL).
///
/// An index is built when its class is registered, kept in the same atomic save as the objects,
/// and dropped when it leaves `indexes`. It is known in the store by its name: the names of its
/// properties ("album,title"), or `name` when given.
///
/// ```swift
/// final class Song: StoredObject {
///     @Stored var title = ""
///     @Stored var seconds: UInt32 = 0
///     @Stored var album: Album? = nil
///     @Stored var isrc = ""
///
///     override class var indexes: [ObjectIndex] {
///         [ObjectIndex(\Song.seconds),
///          ObjectIndex(\Song.album, \Song.title),
///          ObjectIndex(\Song.isrc, unique: true)]
///     }
/// }
/// ```
public struct ObjectIndex: @unchecked Sendable {
    // @unchecked: key paths are immutable.
    internal let terms: [QueryTerm]
    public let isUnique: Bool
    private let givenName: String?

    /// An index on the values of `keyPath`.
    ///
    /// ```swift
    /// ObjectIndex(\Song.isrc, unique: true)
    /// ```
    public init<Root: StoredObject, A: IndexableValue>(_ keyPath: KeyPath<Root, A>, unique: Bool = false, name: String? = nil) {
        self.init(terms: [QueryTerm(keyPath)], unique: unique, name: name)
    }

    /// A compound index: by the first key path's values, then the second's.
    ///
    /// ```swift
    /// ObjectIndex(\Song.album, \Song.title)
    /// ```
    public init<Root: StoredObject, A: IndexableValue, B: IndexableValue>(
        _ first: KeyPath<Root, A>, _ second: KeyPath<Root, B>, unique: Bool = false, name: String? = nil) {
        self.init(terms: [QueryTerm(first), QueryTerm(second)], unique: unique, name: name)
    }

    /// A compound index on three key paths, in that order.
    ///
    /// ```swift
    /// ObjectIndex(\Song.album, \Song.disc, \Song.track)
    /// ```
    public init<Root: StoredObject, A: IndexableValue, B: IndexableValue, C: IndexableValue>(
        _ first: KeyPath<Root, A>, _ second: KeyPath<Root, B>, _ third: KeyPath<Root, C>,
        unique: Bool = false, name: String? = nil) {
        self.init(terms: [QueryTerm(first), QueryTerm(second), QueryTerm(third)], unique: unique, name: name)
    }

    /// A compound index on four key paths, in that order.
    ///
    /// ```swift
    /// ObjectIndex(\Song.artist, \Song.album, \Song.disc, \Song.track)
    /// ```
    public init<Root: StoredObject, A: IndexableValue, B: IndexableValue, C: IndexableValue, D: IndexableValue>(
        _ first: KeyPath<Root, A>, _ second: KeyPath<Root, B>, _ third: KeyPath<Root, C>, _ fourth: KeyPath<Root, D>,
        unique: Bool = false, name: String? = nil) {
        self.init(terms: [QueryTerm(first), QueryTerm(second), QueryTerm(third), QueryTerm(fourth)], unique: unique, name: name)
    }

    private init(terms: [QueryTerm], unique: Bool, name: String?) {
        self.terms = terms
        self.isUnique = unique
        self.givenName = name
    }

    /// The index's name in the store: `name` when given, else its properties' names joined by
    /// commas; nil when a key path names no stored property and no name was given.
    public var name: String? {
        if let givenName { return givenName }
        var names: [String] = []
        for term in terms {
            guard let name = term.propertyName else { return nil }
            names.append(name)
        }
        return names.isEmpty ? nil : names.joined(separator: ",")
    }

    /// The index's entry for `object` (its keys, then its rowID), and whether a key is nil
    /// (unique indexes exempt those entries).
    internal func entry(for object: StoredObject) -> (bytes: [UInt8], hasNil: Bool) {
        var entry: [UInt8] = []
        entry.reserveCapacity(32)
        var hasNil = false
        for term in terms {
            let start = entry.count
            term.appendKey(object, &entry)
            if entry.count == start + 1, entry[start] == IndexKeyBytes.nilTag { hasNil = true }
        }
        entry.appendBigEndian(object.rowID)
        return (entry, hasNil)
    }
}
