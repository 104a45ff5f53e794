// IndexTable: one index's B+tree table of runs (IndexRun), the index engine that object
// indexes and document collections share. Reads ranges of entries a run at a time, counts
// them without decoding the runs that lie wholly inside a range, and applies a write's changes
// by rewriting only the runs they fall into: one cursor scan and one put per run touched, into
// the write's batch. In an encrypted store the runs are sealed and found through a directory
// (IndexTable+SealedRuns.swift).
//
// The table knows neither objects nor documents: it reads through an IndexTableStorage (a
// plain Backend, or the document store's lock-wrapped SharedBackend), seals with an
// IndexRunSealer, and reports a damaged record with the error its owner makes (`corrupt`).

/// The runs of one index table.
///
/// ```swift
/// backend.declareOrderedTable("Song.1.idx")
/// var table = IndexTable(storage: BackendIndexStorage(backend), name: "Song.1.idx", restartPoints: true,
///                        corrupt: { reason in StoreError.corruptMetadata(key: "Song.1.idx", reason: reason) })
/// var batch = WriteBatch()
/// try table.write(IndexChanges(appended: entries), into: &batch)
/// try backend.apply(batch)
/// ```
package struct IndexTable: Sendable {
    /// Where the table's records are read (writes go into the caller's batch).
    package let storage: any IndexTableStorage
    /// The table's name (a document collection's index: `<collection>.<id>.idx`), declared
    /// ordered (``Backend/declareOrderedTable(_:)``) by the caller before the table is used.
    package let name: String
    /// Whether the runs it writes have restart points (document collections of format 5 on).
    package let restartPoints: Bool
    /// In an encrypted store, the sealer and directory of the sealed runs.
    package var sealedRuns: SealedRuns?
    /// The error for damage to this table's records, given its reason ("index run checksum
    /// mismatch"): the owner's, so that a document collection reports
    /// `DocumentError.corruptIndex` and an object store its own.
    package let corrupt: @Sendable (_ reason: String) -> any Error

    /// A table read through `storage` under `name`, plaintext unless `sealedRuns` is given.
    package init(storage: any IndexTableStorage, name: String, restartPoints: Bool, sealedRuns: SealedRuns? = nil,
                 corrupt: @escaping @Sendable (_ reason: String) -> any Error) {
        self.storage = storage
        self.name = name
        self.restartPoints = restartPoints
        self.sealedRuns = sealedRuns
        self.corrupt = corrupt
    }

    // MARK: Reading

    /// Calls `body` with every entry between `start` and `end` (inclusive; nil is open), in
    /// ascending order or descending when `reverse`, until it returns false.
    package func forEachEntry(from start: [UInt8]?, through end: [UInt8]?, reverse: Bool,
                              _ body: (UnsafeRawBufferPointer) throws -> Bool) throws {
        if reverse { return try forEachEntryBackwards(from: start, through: end, body) }
        try forEachRun(from: start, through: end) { key, value in
            var goesOn = true
            try checked {
                try IndexRun.forEachEntry(key: key, value: value, from: start) { entry in
                    if let end, ByteOrder.compare(entry, end) > 0 {
                        goesOn = false
                        return false
                    }
                    goesOn = try body(entry)
                    return goesOn
                }
            }
            return goesOn
        }
    }

    private func forEachEntryBackwards(from start: [UInt8]?, through end: [UInt8]?,
                                       _ body: (UnsafeRawBufferPointer) throws -> Bool) throws {
        try forEachRunBackwards(through: end) { key, value in
            let entries = try checked { try IndexRun.entries(key: key, value: value) }
            for entry in entries.reversed() {
                let goesOn: Bool = try entry.withUnsafeBytes { entry in
                    if let end, ByteOrder.compare(entry, end) > 0 { return true }
                    if let start, ByteOrder.compare(entry, start) < 0 { return false }
                    return try body(entry)
                }
                if !goesOn { return false }
            }
            // Runs before this one hold only entries before its key.
            if let start, ByteOrder.compare(key, start) <= 0 { return false }
            return true
        }
    }

    /// The number of entries between `start` and `end` (inclusive; nil is open). A run is
    /// decoded only when it may cross an end of the range: one that starts inside the range
    /// and is followed by another that does is counted from its header.
    package func count(from start: [UInt8]?, through end: [UInt8]?) throws -> Int {
        // Each run's share is how many of its entries sort before the end's successor (the
        // smallest key after it) less how many sort before the start: two searches of its
        // restart points, not a walk of its entries.
        let afterEnd = end.map { $0 + [0x00] }
        var total = 0
        try forEachRun(from: start, through: end) { key, value in
            total += try checked { try IndexRun.count(key: key, value: value, from: start, before: afterEnd) }
            return true
        }
        return total
    }

    /// Calls `body` with the runs that may hold entries from `start` through `end`, in order:
    /// from the one holding `start` (the last that begins at or before it) on.
    private func forEachRun(from start: [UInt8]?, through end: [UInt8]?,
                            _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws {
        if let sealedRuns { return try forEachSealedRun(sealedRuns, from: start, through: end, reverse: false, body) }
        guard let start else { return try storage.forEachRecord(in: name, from: nil, through: end, reverse: false, body) }
        try storage.forEachRecord(in: name, holding: start, through: end, body)
    }

    /// Calls `body` with the runs that start at or before `end` (nil: all), last first.
    private func forEachRunBackwards(through end: [UInt8]?,
                                     _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws {
        if let sealedRuns { return try forEachSealedRun(sealedRuns, from: nil, through: end, reverse: true, body) }
        try storage.forEachRecord(in: name, from: nil, through: end, reverse: true, body)
    }

    /// A stored run as read for a merge: its key and value (none for the changes before the
    /// first run), and the key of the run after it.
    private struct StoredRun {
        var key: [UInt8]?
        var value: [UInt8] = []
        var next: [UInt8]?

        /// The run's last entry (decoding the run), or nil for no run.
        func lastEntry() throws -> [UInt8]? {
            guard let key else { return nil }
            return try key.withUnsafeBytes { key in
                try value.withUnsafeBytes { value in
                    let count = try IndexRun.count(key: key, value: value)
                    var seen = 0
                    var last: [UInt8]?
                    try IndexRun.forEachEntry(key: key, value: value) { entry in
                        seen += 1
                        if seen == count { last = Array(entry) }
                        return true
                    }
                    return last
                }
            }
        }
    }

    /// The run that holds `key` when it is in the table: the last run starting at or before
    /// it, and the key of the run after it.
    private func run(holding key: [UInt8]) throws -> StoredRun {
        if let sealedRuns {
            let found = try sealedRun(holding: key, in: sealedRuns)
            return StoredRun(key: found.key, value: found.value, next: found.next)
        }
        var run = StoredRun()
        // One scan: the run holding `key`, then the one after it. When every run starts after
        // `key`, the scan's first record is that next run.
        try storage.forEachRecord(in: name, holding: key, through: nil) { found, value in
            if run.key == nil, ByteOrder.compare(found, key) <= 0 {
                run.key = Array(found)
                run.value = Array(value)
                return true
            }
            run.next = Array(found)
            return false
        }
        return run
    }

    /// Runs `body`, reporting a damaged run with the owner's error (``corrupt``).
    @discardableResult
    func checked<Result>(_ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch let damage as IndexRun.Damage {
            throw corrupt(damage.reason)
        }
    }

    // MARK: Writing

    /// Adds to `batch` the puts and deletes of runs that apply `changes` (in an encrypted
    /// store, sealed, with the directory ``sealedRuns`` updated and put).
    package mutating func write(_ changes: IndexChanges, into batch: inout WriteBatch) throws {
        let touched = changes.sorted()
        if changes.replacesAll {
            try removeEveryRun(into: &batch)
            try store(runs(of: touched), replacing: nil, into: &batch)
        } else {
            var position = 0
            while position < touched.count {
                let run = try run(holding: touched[position].entry)
                // The changes up to the next run's key fall into this run.
                var end = position + 1
                while end < touched.count, run.next.map({ ByteOrder.less(touched[end].entry, $0) }) ?? true { end += 1 }
                let runs = try checked { try merge(run, touched[position ..< end]) }
                try store(runs, replacing: run.key, into: &batch)
                position = end
            }
        }
        if let sealedRuns { try writeDirectory(sealedRuns, into: &batch) }
    }

    /// Adds to `batch` the removal of every run (read by key only: damaged runs go too).
    private mutating func removeEveryRun(into batch: inout WriteBatch) throws {
        guard var sealed = sealedRuns else { return try storage.removeEveryRecord(in: name, into: &batch) }
        try removeEverySealedRun(&sealed, into: &batch)
        sealedRuns = sealed
    }

    /// Adds to `batch` the puts of `runs`, which replace the stored run starting at `key` (nil:
    /// none), and the removal of that run when none of them takes its key.
    private mutating func store(_ runs: [(key: [UInt8], value: [UInt8])], replacing key: [UInt8]?,
                                into batch: inout WriteBatch) throws {
        if var sealed = sealedRuns {
            try replaceSealedRun(startingAt: key, with: runs, in: &sealed, into: &batch)
            sealedRuns = sealed
            return
        }
        if let key, runs.first.map({ $0.key != key }) ?? true { batch.removeValue(forKey: key, in: name) }
        for run in runs { batch.put(run.value, forKey: run.key, in: name) }
    }

    /// The runs of the entries added by `touched` (sorted).
    private func runs(of touched: [(entry: [UInt8], isAdded: Bool)]) -> [(key: [UInt8], value: [UInt8])] {
        var builder = IndexRunBuilder(restartPoints: restartPoints)
        for change in touched where change.isAdded { builder.append(change.entry) }
        return builder.finish()
    }

    /// The runs of `run`'s entries with `changes` applied (sorted): additions merged in,
    /// removals left out. Entries appended after the run's last fill runs whole; others
    /// spread evenly, leaving room in each run.
    private func merge(_ run: StoredRun, _ changes: ArraySlice<(entry: [UInt8], isAdded: Bool)>) throws
        -> [(key: [UInt8], value: [UInt8])] {
        // Changes are sorted: they all follow the run's entries when the first does. Only
        // then is the run decoded for its last entry.
        let appendsOnly = try changes.allSatisfy(\.isAdded)
            && (run.lastEntry().map { ByteOrder.less($0, changes[changes.startIndex].entry) } ?? true)
        let size = run.value.count + changes.reduce(0) { $0 + ($1.isAdded ? $1.entry.count + 2 : 0) }
        var builder = IndexRunBuilder(budget: appendsOnly ? IndexRun.targetSize : IndexRunBuilder.evenBudget(forBytes: size),
                                      restartPoints: restartPoints)
        if let key = run.key {
            try key.withUnsafeBytes { key in
                try run.value.withUnsafeBytes { value in try builder.append(run: key, value: value, merging: changes) }
            }
        } else {
            for change in changes where change.isAdded { builder.append(change.entry) }
        }
        return builder.finish()
    }
}

