// DocumentError: every way a document operation fails other than a malformed query
// (QueryError) or a failure of the storage underneath (StoreError, passed through).

/// An error of a ``DocumentStore`` or ``DocumentCollection``.
///
/// ```swift
/// do {
///     try users.insert(["email": "ada@example.com"])
/// } catch DocumentError.uniqueConstraint(let index, let value) {
///     print("\(value) is already in \(index)")
/// }
/// ```
public enum DocumentError: Error, Equatable, Sendable {
    /// A write would give two documents the same key in a unique index; nothing of the call
    /// was stored. `index` is the index definition, `value` the duplicated key.
    case uniqueConstraint(index: String, value: JSON)
    /// `update` or `remove` was given a document without an integer `"__rowid__"`.
    case missingRowID
    /// No document with this rowID in the collection.
    case documentNotFound(collection: String, rowID: Int64)
    /// Documents are JSON objects; this was another kind of value.
    case notAnObject(JSON)
    /// A collection name must be 1-100 letters, digits, `_` or `-`, not starting with `_`.
    case invalidCollectionName(String)
    /// An alias name must be a bare identifier (letters, digits, `_`) and not a keyword.
    case invalidAlias(String)
    /// A metadata key must not be empty.
    case invalidMetadataKey(String)
    /// A document, default document or argument nests arrays and objects more than 100 deep
    /// (MongoDB's limit too).
    case nestedTooDeeply
    /// A stored document could not be read: its bytes are damaged.
    case corruptDocument(collection: String, rowID: Int64, reason: String)
    /// A stored index run could not be read: its bytes are damaged. `index` is the index
    /// definition; rebuilding the index (dropping and adding it) mends it.
    case corruptIndex(collection: String, index: String, reason: String)
    /// The collection was written in another layout of its tables than this version reads
    /// (format 1: before LarderDocuments' first release). Nothing was changed.
    case unsupportedFormat(collection: String, format: Int)
    /// The stored definition of a collection (or the store's metadata) is damaged.
    case corruptMetadata(key: String, reason: String)
    /// The store holds plaintext data and was opened with an encryption key: open it without
    /// one and call ``DocumentStore/rekey(to:iterations:compact:)`` to encrypt it.
    case storeNotEncrypted
    /// A collection has handed out every rowID or index ID (its definition is damaged or
    /// tampered with).
    case identifiersExhausted(collection: String)
}

extension DocumentError: CustomStringConvertible {
    /// A sentence naming what went wrong.
    ///
    /// ```swift
    /// print(DocumentError.missingRowID)   // the document has no integer "__rowid__"
    /// ```
    public var description: String {
        switch self {
        case let .uniqueConstraint(index, value): return "unique index \(index) already has \(value)"
        case .missingRowID: return "the document has no integer \"__rowid__\""
        case let .documentNotFound(collection, rowID): return "no document \(rowID) in \(collection)"
        case let .notAnObject(value): return "a document must be a JSON object, not \(value)"
        case let .invalidCollectionName(name): return "invalid collection name '\(name)'"
        case let .invalidAlias(name): return "invalid alias name '\(name)'"
        case let .invalidMetadataKey(key): return "invalid metadata key '\(key)'"
        case .nestedTooDeeply: return "a value nests arrays and objects more than \(JSON.maximumNesting) deep"
        case let .corruptDocument(collection, rowID, reason): return "document \(rowID) of \(collection) is damaged: \(reason)"
        case let .corruptIndex(collection, index, reason): return "index \(index) of \(collection) is damaged: \(reason)"
        case let .unsupportedFormat(collection, format):
            return "collection \(collection) is in document format \(format); this version reads format \(CollectionDefinition.currentFormat)"
        case let .corruptMetadata(key, reason): return "document metadata '\(key)' is damaged: \(reason)"
        case .storeNotEncrypted: return "the store is not encrypted: open it without a key, then rekey it to encrypt it"
        case let .identifiersExhausted(collection): return "collection \(collection) has no rowIDs or index IDs left to hand out"
        }
    }
}
