// CollectionDefinition: what persists about a collection besides its documents: the next
// rowID, its indexes, queryable fields, aliases and default document. Stored as one JSON
// record `collection.<name>` in the store's `_store` table, rewritten in every write batch
// that changes it.

import Larder

/// The persistent definition of a collection.
struct CollectionDefinition: Equatable, Sendable {
    /// The layout of the collection's tables this version writes: 5, documents in pages of 128
    /// rowIDs with a directory of their entries, and index entries in runs with restart points
    /// (docs/FORMAT.md, section 16). Formats 4 (runs without restart points), 3 (also pages
    /// without directory) and 2 (pages of 32 rowIDs) are read and written as they are. Format
    /// 1 (a record per document and per entry, before the first release) is not read.
    static let currentFormat = 5
    /// The oldest format this version reads.
    static let oldestReadableFormat = 2

    /// The format the collection's tables were written in.
    var format = Self.currentFormat

    /// How the collection's documents are grouped into pages.
    var pageLayout: PageLayout {
        switch format {
        case ...2: .objects
        case 3: .documents
        default: .indexedDocuments
        }
    }

    /// Whether the index runs it writes have restart points (IndexRun).
    var indexRunsHaveRestartPoints: Bool { format >= 5 }

    var nextRowID: Int64 = 1
    var nextIndexID = 1
    var indexes: [IndexDefinition] = []
    var queryableFields: [String] = []
    var aliases: [String: String] = [:]
    var defaults: JSON = [:]

    static func metadataKey(for collection: String) -> [UInt8] {
        Array("collection.\(collection)".utf8)
    }

    var json: JSON {
        ["format": .int(Int64(format)), "nextRowID": .int(nextRowID), "nextIndexID": .int(Int64(nextIndexID)),
         "indexes": .array(indexes.map(\.json)), "queryable": .array(queryableFields.map(JSON.string)),
         "aliases": .object(aliases.mapValues(JSON.string)), "defaults": defaults]
    }

    init() {}

    /// Reads a stored definition; nil when it is damaged.
    init?(json: JSON) {
        guard let nextRowID = json["nextRowID"].intValue, let nextIndexID = json["nextIndexID"].intValue,
              let indexes = json["indexes"].arrayValue, let queryable = json["queryable"].arrayValue,
              let aliases = json["aliases"].objectValue else { return nil }
        // Definitions without a format came before format 2.
        format = Int(json["format"].intValue ?? 1)
        self.nextRowID = nextRowID
        self.nextIndexID = Int(nextIndexID)
        self.indexes = indexes.compactMap(IndexDefinition.init(json:))
        self.queryableFields = queryable.compactMap(\.stringValue)
        self.aliases = aliases.compactMapValues(\.stringValue)
        self.defaults = json["defaults"]
        guard self.indexes.count == indexes.count, queryableFields.count == queryable.count,
              self.aliases.count == aliases.count else { return nil }
    }
}
