// JSON+RowID: a document's "__rowid__" as Larder's one RowID type, written and read without
// spelling out the JSON integer it is stored as.

import Larder

extension JSON {
    /// The JSON value of a document's rowID, for a `"__rowid__"` field or a query argument.
    ///
    /// ```swift
    /// let same = try people.find(where: "[__rowid__] >= ?", arguments: [.rowID(id)])
    /// ```
    public static func rowID(_ id: RowID) -> JSON {
        .int(Int64(clamping: id))
    }

    /// The document's `"__rowid__"`, or nil when it has none (or not a valid one).
    ///
    /// ```swift
    /// let id = try people.findOne(where: "[name] = ?", arguments: ["Ada"])?.rowID
    /// ```
    public var rowID: RowID? {
        guard case .int(let value)? = objectValue?["__rowid__"], value >= 1 else { return nil }
        return RowID(value)
    }
}
