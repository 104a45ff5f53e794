// PendingHistory: the versions one save appends to the history of one class that keeps history
// (StoredObject.keepsHistory): each saved object's content as the save encoded it (copied once
// into one arena, no allocation per object), and each deletion. Store+History writes them into
// the save's batch under the save's sequence number, one HistoryRecord per history page of 256 rowIDs.

/// The versions of one class's objects that the save in progress appends to its history.
internal struct PendingHistory {
    private struct Version {
        var rowID: UInt64
        /// The class version that wrote the content; nil for a deletion.
        var version: UInt8?
        var start: Int
        var count: Int
    }

    private var bytes: [UInt8] = []
    private var versions: [Version] = []
    private var isSorted = true

    var isEmpty: Bool { versions.isEmpty }
    var count: Int { versions.count }

    /// Adds the version saved for `rowID`: `content` written by class version `version`.
    mutating func addSaved(rowID: UInt64, version: UInt8, content: [UInt8]) {
        let start = bytes.count
        bytes.append(contentsOf: content)
        append(Version(rowID: rowID, version: version, start: start, count: content.count))
    }

    /// Adds the deletion of `rowID`.
    mutating func addDeletion(rowID: UInt64) {
        append(Version(rowID: rowID, version: nil, start: bytes.count, count: 0))
    }

    private mutating func append(_ version: Version) {
        if let last = versions.last, last.rowID >= version.rowID { isSorted = false }
        versions.append(version)
    }

    /// Calls `body` with the versions of each page (HistoryRecord.layout) in page order: the
    /// page's number and its versions in rowID order, each with its class version (nil for a
    /// deletion) and content. Returns the number of pages.
    @discardableResult
    func forEachPage(_ body: (_ page: UInt64, _ count: Int,
                              _ versions: (_ each: (UInt64, UInt8?, UnsafeRawBufferPointer) -> Void) -> Void) throws -> Void) rethrows -> Int {
        let ordered = isSorted ? versions : versions.sorted { $0.rowID < $1.rowID }
        let layout = HistoryRecord.layout
        var pages = 0
        try bytes.withUnsafeBytes { all in
            var start = 0
            while start < ordered.count {
                let page = layout.number(of: ordered[start].rowID)
                var end = start + 1
                while end < ordered.count, layout.number(of: ordered[end].rowID) == page { end += 1 }
                let slice = ordered[start ..< end]
                try body(page, slice.count) { each in
                    for version in slice {
                        each(version.rowID, version.version, UnsafeRawBufferPointer(rebasing: all[version.start ..< version.start + version.count]))
                    }
                }
                pages += 1
                start = end
            }
        }
        return pages
    }
}
