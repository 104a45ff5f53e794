// FieldPath: a dotted path into a document (`[address.country]`, `[items.0.sku]`) and how it
// reads a value: through objects by key, through arrays by index, falling back to the
// collection's default document, else null.

/// A path to a field of a document, as written between brackets in queries and indexes.
struct FieldPath: Hashable, Sendable, CustomStringConvertible {
    /// The components between dots.
    let components: [String]
    /// True for `[__rowid__]` (decided once: paths are read for every document).
    let isRowID: Bool

    /// The reserved field that carries a document's rowID.
    static let rowIDField = "__rowid__"

    /// `[__rowid__]`.
    static let rowID = FieldPath(components: [rowIDField])

    private init(components: [String]) {
        self.components = components
        isRowID = components == [Self.rowIDField]
    }

    /// Parses `address.country`; nil when a component is empty.
    init?(_ text: String) {
        // Most paths have one component: no splitting (every query parses its paths).
        let dot = UInt8(ascii: ".")
        guard text.utf8.contains(dot) else {
            guard !text.isEmpty else { return nil }
            self.init(components: [text])
            return
        }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.allSatisfy({ !$0.isEmpty }) else { return nil }
        self.init(components: parts)
    }

    var description: String { "[" + components.joined(separator: ".") + "]" }

    /// The value at this path in `document`, or nil when the path is missing; from `level`,
    /// the rest of the path in the value its first `level` components lead to.
    func lookup(in document: JSON, from level: Int = 0) -> JSON? {
        var current = document
        // By position: iterating a slice of the components cost 14% more (callgrind).
        for position in level ..< components.count {
            let component = components[position]
            switch current {
            case let .object(members):
                guard let next = members[component] else { return nil }
                current = next
            case let .array(elements):
                guard let index = Int(component), elements.indices.contains(index) else { return nil }
                current = elements[index]
            default:
                return nil
            }
        }
        return current
    }

    /// The value a query sees: the document's, else the default document's, else null.
    func value(in document: JSON, rowID: Int64, defaults: JSON) -> JSON {
        value(found: isRowID ? nil : lookup(in: document), rowID: rowID, defaults: defaults)
    }

    /// The value a query sees when the document's is `found` (``lookup(in:from:)``).
    func value(found: JSON?, rowID: Int64, defaults: JSON) -> JSON {
        if isRowID { return .int(rowID) }
        return found ?? lookup(in: defaults) ?? .null
    }
}
