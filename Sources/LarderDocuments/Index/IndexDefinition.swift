// IndexDefinition: one secondary index of a collection (its keys, uniqueness, whether it has
// seen arrays) and the index entries a document gives it: one per element of an array value,
// the cross product for several array keys, deduplicated.

/// A secondary index: a B+tree table `<collection>.<id>.idx` whose keys are the encoded key
/// values followed by the rowID.
struct IndexDefinition: Equatable, Sendable {
    var id: Int
    var keys: [SortKey]
    var isUnique: Bool
    /// Set once a document put an array under a key: the index then holds one entry per
    /// element, and the planner uses it only for equality on scalars and CONTAINS.
    var isMultiValued: Bool

    /// The keys as a definition reads: `[last_name], [first_name] DESC`.
    var name: String {
        keys.map { $0.path.description + ($0.descending ? " DESC" : "") }.joined(separator: ", ")
    }

    func table(in collection: String) -> String {
        "\(collection).\(id).idx"
    }

    /// One entry of a document: its full key (the encoded key values, then the rowID), and
    /// whether one of the values is null (unique indexes, like SQL's, let any number of
    /// documents have a null).
    struct Entry: Hashable {
        var key: [UInt8]
        var hasNull: Bool

        /// The encoded key values, without the rowID.
        var prefix: [UInt8] { Array(key.dropLast(8)) }
    }

    /// The entries of `document`, and whether an array value was found.
    func entries(for document: JSON, rowID: Int64, defaults: JSON) -> (entries: [Entry], sawArray: Bool) {
        entries(of: keyValues(of: document, rowID: rowID, defaults: defaults), rowID: rowID)
    }

    /// The values of the index's keys in `document`, in key order: what its entries encode.
    func keyValues(of document: JSON, rowID: Int64, defaults: JSON) -> [JSON] {
        var values: [JSON] = []
        values.reserveCapacity(keys.count)
        appendKeyValues(of: document, rowID: rowID, defaults: defaults, to: &values)
        return values
    }

    /// Appends ``keyValues(of:rowID:defaults:)`` to `values` (the key values of several indexes
    /// in one array).
    func appendKeyValues(of document: JSON, rowID: Int64, defaults: JSON, to values: inout [JSON]) {
        for key in keys { values.append(key.path.value(in: document, rowID: rowID, defaults: defaults)) }
    }

    /// The entries of a document of `rowID` whose key values are `values` (``keyValues(of:rowID:defaults:)``),
    /// and whether one of them is an array.
    func entries(of values: [JSON], rowID: Int64) -> (entries: [Entry], sawArray: Bool) {
        guard values.contains(where: \.isArray) else {
            // The common case, scalars only: one entry, built in one buffer.
            var key: [UInt8] = []
            key.reserveCapacity(48)
            for (value, sortKey) in zip(values, keys) { IndexKey.append(value, descending: sortKey.descending, to: &key) }
            IndexKey.appendRowID(rowID, to: &key)
            return ([Entry(key: key, hasNull: values.contains(where: \.isNull))], false)
        }
        var entries = [Entry(key: [], hasNull: false)]
        for (value, key) in zip(values, keys) {
            guard case let .array(choices) = value else {
                // One value: extend every entry in place.
                for position in entries.indices {
                    IndexKey.append(value, descending: key.descending, to: &entries[position].key)
                    if value.isNull { entries[position].hasNull = true }
                }
                continue
            }
            var encoded: [(isNull: Bool, bytes: [UInt8])] = []
            for choice in choices {
                let bytes = IndexKey.encode(choice, descending: key.descending)
                // Arrays are short: a linear search beats hashing byte arrays.
                if !encoded.contains(where: { $0.bytes == bytes }) { encoded.append((choice.isNull, bytes)) }
            }
            entries = entries.flatMap { entry in
                encoded.map { Entry(key: entry.key + $0.bytes, hasNull: entry.hasNull || $0.isNull) }
            }
        }
        for position in entries.indices { IndexKey.appendRowID(rowID, to: &entries[position].key) }
        return (entries, true)
    }

    /// The key values of an entry prefix, for error messages: the single value, or an array.
    func values(of document: JSON, rowID: Int64, defaults: JSON, matching prefix: [UInt8]) -> JSON {
        var found: [JSON] = []
        var remaining = prefix[...]
        for key in keys {
            let value = key.path.value(in: document, rowID: rowID, defaults: defaults)
            for choice in value.arrayValue ?? [value] {
                let encoded = IndexKey.encode(choice, descending: key.descending)
                if remaining.starts(with: encoded) {
                    found.append(choice)
                    remaining = remaining.dropFirst(encoded.count)
                    break
                }
            }
        }
        return found.count == 1 ? found[0] : .array(found)
    }

    // MARK: Persistence

    var json: JSON {
        ["id": .int(Int64(id)), "keys": .string(name), "unique": .bool(isUnique), "multi": .bool(isMultiValued)]
    }

    init(id: Int, keys: [SortKey], isUnique: Bool, isMultiValued: Bool = false) {
        self.id = id
        self.keys = keys
        self.isUnique = isUnique
        self.isMultiValued = isMultiValued
    }

    init?(json: JSON) {
        guard let id = json["id"].intValue, let text = json["keys"].stringValue,
              let keys = try? QueryParser.parseSortKeys(text, aliases: [:]),
              let unique = json["unique"].boolValue, let multi = json["multi"].boolValue else { return nil }
        self.init(id: Int(id), keys: keys, isUnique: unique, isMultiValued: multi)
    }
}
