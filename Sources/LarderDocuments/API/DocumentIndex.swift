// DocumentIndex: one index of a collection as its user sees it (its keys, unique or not),
// the value `DocumentCollection.indexes` lists; IndexDefinition is the engine's own record.

/// One index of a collection, as ``DocumentCollection/indexes`` lists it.
///
/// ```swift
/// try people.addUniqueIndex("[email]")
/// let index = try people.indexes[0]
/// print(index.isUnique, index.keys[0].path, index)   // true [email] UNIQUE [email]
/// ```
public struct DocumentIndex: Sendable, Equatable, CustomStringConvertible {
    /// One key of an index: a field path, ascending or descending.
    public struct Key: Sendable, Equatable {
        /// The field path, as a query writes it: `[address.country]`.
        public var path: String
        /// The key is ordered from high to low (`DESC`).
        public var isDescending: Bool
    }

    /// The keys, most significant first.
    public var keys: [Key]
    /// No two documents may have the same values for the keys (nulls excepted, as in SQL).
    public var isUnique: Bool

    /// The keys as `DocumentCollection.addIndex(_:)` takes them: `[last_name], [first_name] DESC`.
    public var definition: String {
        keys.map { $0.path + ($0.isDescending ? " DESC" : "") }.joined(separator: ", ")
    }

    /// The definition, prefixed with `UNIQUE ` for a unique index.
    public var description: String { (isUnique ? "UNIQUE " : "") + definition }

    init(_ index: IndexDefinition) {
        keys = index.keys.map { Key(path: $0.path.description, isDescending: $0.descending) }
        isUnique = index.isUnique
    }
}
