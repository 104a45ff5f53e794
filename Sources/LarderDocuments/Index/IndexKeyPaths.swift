// IndexKeyPaths: the key paths of a collection's indexes, ready to be read from a stored
// document in one pass (JSONBinary.lookUp) without decoding it whole: an update or removal
// only needs the old document's key values, to tell which index entries change.

/// The key paths of a list of indexes, in index and key order.
struct IndexKeyPaths {
    /// The indexes' ids, in order: what the paths were made for.
    let indexIDs: [Int]
    /// Every index's key paths, one after another; nil when there are too many to look up in
    /// one pass (then the document is decoded whole).
    let lookup: JSONBinary.LookupPaths?

    init(_ indexes: [IndexDefinition]) {
        indexIDs = indexes.map(\.id)
        lookup = JSONBinary.LookupPaths(indexes.flatMap { $0.keys.map(\.path) })
    }

    /// Whether these are the paths of `indexes` (an index's keys never change: its id says).
    func fit(_ indexes: [IndexDefinition]) -> Bool {
        indexIDs.count == indexes.count && zip(indexIDs, indexes).allSatisfy { $0 == $1.id }
    }

    /// The key values (``IndexDefinition/keyValues(of:rowID:defaults:)``) of each of
    /// `indexes` (those the paths were made for), one index after another, in the stored
    /// document of `rowID` whose content (JSONBinary) is `content`.
    func keyValues(ofStored content: UnsafeRawBufferPointer, rowID: Int64, indexes: [IndexDefinition],
                   defaults: JSON) throws -> [JSON] {
        guard let lookup else {
            let document = try JSONBinary.decode(content, addingRowID: rowID)
            var values: [JSON] = []
            for index in indexes { index.appendKeyValues(of: document, rowID: rowID, defaults: defaults, to: &values) }
            return values
        }
        var (values, found) = try JSONBinary.lookUp(lookup, inDocument: content)
        for (position, path) in lookup.paths.enumerated() where found & (1 << UInt64(position)) == 0 {
            values[position] = path.value(found: nil, rowID: rowID, defaults: defaults)
        }
        return values
    }
}
