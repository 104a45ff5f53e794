// PendingHistory: the versions one save appends to the history of one class that keeps history
// (StoredObject.keepsHistory): each saved object's content as the save encoded it (copied once
// into one arena, no allocation per object), and each deletion. Store+History writes them into
// the save's batch under the save's sequence number.

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

    /// Calls `body` with each version in rowID order (the history table's key order): its
    /// rowID, class version (nil for a deletion) and content.
    func forEach(_ body: (_ rowID: UInt64, _ version: UInt8?, _ content: UnsafeRawBufferPointer) throws -> Void) rethrows {
        let ordered = isSorted ? versions : versions.sorted { $0.rowID < $1.rowID }
        try bytes.withUnsafeBytes { all in
            for version in ordered {
                try body(version.rowID, version.version,
                         UnsafeRawBufferPointer(rebasing: all[version.start ..< version.start + version.count]))
            }
        }
    }
}
