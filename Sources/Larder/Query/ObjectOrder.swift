// ObjectOrder: one key of the order of a query's results.

/// A sort key for ``Store/objects(of:where:orderBy:limit:offset:)``: a key path, ascending or
/// descending. Several keys sort by the first, then the next on ties, then by rowID. `nil`
/// comes first in both directions.
///
/// ```swift
/// let songs = try store.objects(of: Song.self, where: \.seconds > 60,
///                               orderBy: [.descending(\.rating), .ascending(\.title)])
/// ```
public struct ObjectOrder<Root: StoredObject>: @unchecked Sendable {
    // @unchecked: a key path is immutable.
    /// The key with its class erased, as queries take it.
    internal let key: QueryOrderKey

    /// Smallest first (`nil` first).
    ///
    /// ```swift
    /// let byTitle = try store.objects(of: Song.self, where: \.seconds > 60, orderBy: [.ascending(\.title)])
    /// ```
    public static func ascending<Value: IndexableValue>(_ keyPath: KeyPath<Root, Value>) -> Self {
        Self(key: QueryOrderKey(term: QueryTerm(keyPath), isDescending: false))
    }

    /// Largest first (`nil` still first).
    ///
    /// ```swift
    /// let best = try store.objects(of: Song.self, where: \.seconds > 60, orderBy: [.descending(\.rating)], limit: 10)
    /// ```
    public static func descending<Value: IndexableValue>(_ keyPath: KeyPath<Root, Value>) -> Self {
        Self(key: QueryOrderKey(term: QueryTerm(keyPath), isDescending: true))
    }

    /// "title", "rating DESC" (for messages and explain).
    internal var summary: String {
        key.term.name + (key.isDescending ? " DESC" : "")
    }
}
