// The change log's fuzz target: the content of a `change/<n>` record of `_store` as a damaged or
// hostile file holds it (and the bytes of its key). It decodes or throws; a record decoded once
// encodes to bytes that decode to the same record; turning it into a StoreChange for a store
// that knows some classes gives a change or a mismatch, never a trap.

extension FuzzTarget {
    /// A change record's content (FORMAT.md 8.6).
    package static let changeRecord = FuzzTarget(name: "changeRecord", seeds: changeRecordSeeds) { input throws(FuzzViolation) in
        _ = input.withUnsafeBytes { ChangeRecord.sequence(inKey: $0) }
        var buffer = DataBuffer(bytes: input)
        guard let record = try? ChangeRecord(decoding: &buffer) else { return false }
        var encoded = record.encoded()
        let again = try? ChangeRecord(decoding: &encoded)
        try FuzzViolation.check(again == record, "a change record does not survive encoding: \(record)")
        let known: [UInt64: (name: String, nextRowID: UInt64)] = [1: ("Song", 1_000), 2: ("Playlist", .max), 7: ("Album", 2)]
        if let change = try? record.change(sequence: 9, classes: known) {
            for name in change.classNames {
                let largest = change.classes[name]?.largestRowID ?? 0
                let nextRowID = known.values.first { $0.name == name }?.nextRowID ?? 0
                try FuzzViolation.check(largest < nextRowID, "a change lists rowID \(largest) of \(name), never handed out")
            }
            _ = change.description
        }
        return true
    }

    @Sendable private static func changeRecordSeeds() -> [[UInt8]] {
        let rows = ChangedRowIDs(inserted: RowIDRanges(sorting: Array(1 ... 100)), updated: RowIDRanges(sorting: [200, 202, 500]),
                                 deleted: RowIDRanges(sorting: [150]))
        var record = ChangeRecord()
        let empty = record.encoded().bytes
        record.classes = [.init(classID: 1, rows: rows), .init(classID: 2, rows: ChangedRowIDs(inserted: RowIDRanges(sorting: [1]),
                                                                                            updated: RowIDRanges(), deleted: RowIDRanges()))]
        let objects = record.encoded().bytes
        record.namedBuffers = ["bookmark", "current-playlist", "é"]
        let both = record.encoded().bytes
        record.classes = []
        return [empty, objects, both, record.encoded().bytes]
    }
}
