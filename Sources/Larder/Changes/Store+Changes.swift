// The change feed: each save that changes something (and each named-buffer write or removal)
// gets the next sequence number, written with the save in its batch (the `sequence` record),
// with a change record for the log that `changes(since:)` reads; once the batch is applied and
// the store has adopted it, the change goes to every subscriber of `changes`.

extension Store {
    /// The changes of every save committed from now on, in commit order, each after its commit
    /// is durable; never one for a save that threw. Each subscriber keeps up to 256 changes for
    /// a reader that falls behind, then gets a gap marker (``StoreChange/missed``) before the
    /// next change it reads; ``changes(bufferSize:)`` sets another size. The stream finishes
    /// when the store closes.
    ///
    /// ```swift
    /// let feed = store.changes
    /// Task {
    ///     for await change in feed {
    ///         print(change.sequence, change.inserted(of: Song.self))
    ///     }
    /// }
    /// ```
    public var changes: AsyncStream<StoreChange> { changes(bufferSize: 256) }

    /// The changes of every save committed from now on, like ``changes``, keeping up to
    /// `bufferSize` changes (at least 1) for a reader that falls behind. A save never waits for
    /// a reader: a reader `bufferSize` changes behind misses the next ones and reads one gap
    /// marker for all of them.
    ///
    /// ```swift
    /// let feed = store.changes(bufferSize: 16)
    /// ```
    public func changes(bufferSize: Int) -> AsyncStream<StoreChange> {
        changeFeed.subscribe(bufferSize: bufferSize)
    }

    /// The sequence number of the last save that changed something (0 before the first); it is
    /// kept with the store.
    ///
    /// ```swift
    /// let mark = store.changeSequence      // keep it; later:
    /// let missed = try store.changes(since: mark)
    /// ```
    public var changeSequence: UInt64 { changeLog.sequence }

    /// The changes committed after save `sequence`, oldest first; empty when `sequence` is the
    /// last. The store keeps the last ``Configuration/changeLogLimit`` saves (1,000 by default):
    /// for an older number it throws ``StoreError/changesNoLongerAvailable(since:oldestAvailable:)``
    /// and the caller must read everything again; for a number the store has not reached,
    /// ``StoreError/futureSequence(since:current:)``. A damaged change record throws
    /// ``StoreError/corruptChangeLog(sequence:reason:)``.
    ///
    /// ```swift
    /// do {
    ///     for change in try store.changes(since: lastSeen) { apply(change) }
    /// } catch StoreError.changesNoLongerAvailable {
    ///     reloadEverything()
    /// }
    /// ```
    public func changes(since sequence: UInt64) throws -> [StoreChange] {
        try checkOpen()
        let current = changeLog.sequence
        guard sequence <= current else { throw StoreError.futureSequence(since: sequence, current: current) }
        guard sequence < current else { return [] }
        guard sequence + 1 >= changeLog.oldestKept else {
            throw StoreError.changesNoLongerAvailable(since: sequence, oldestAvailable: changeLog.oldestKept - 1)
        }
        let known = knownClasses()
        var changes: [StoreChange] = []
        // A few hundred records a read: a `sequence` record that claims more saves than are
        // kept stops at the first missing one, never allocates for them all.
        var first = sequence + 1
        while first <= current {
            let last = current - first < 255 ? current : first + 255
            let numbers = Array(first ... last)
            try backend.readValues(forKeys: numbers.map(ChangeRecord.key(for:)), in: Self.metadataTable) { position, value in
                changes.append(try change(number: numbers[position], stored: value, classes: known))
            }
            first = last + 1
        }
        return changes
    }

    // MARK: Internal

    /// The change a save of the pending objects makes: the rowIDs inserted, updated and deleted,
    /// by class storage name (classes with none left out).
    internal func pendingObjectChanges() -> [String: ChangedRowIDs] {
        var lists: [ObjectIdentifier: PendingRowIDs] = [:]
        gatherRowIDs(of: insertedObjects, as: .inserted, into: &lists)
        gatherRowIDs(of: updatedObjects, as: .updated, into: &lists)
        gatherRowIDs(of: deletedObjects, as: .deleted, into: &lists)
        var classes: [String: ChangedRowIDs] = [:]
        for list in lists.values {
            let rows = list.rows
            if !rows.isEmpty { classes[list.name] = rows }
        }
        return classes
    }

    /// Adds to `batch` what a commit that changes `classes` and `namedBuffers` writes for the
    /// feed: the next sequence number, its change record (unless the log is off), and the
    /// removal of the records the log no longer keeps. Returns what to adopt once the batch is
    /// applied (``changeCommitted(_:)``), or nil when nothing changes.
    internal func addChange(classes: [String: ChangedRowIDs], namedBuffers: Set<String> = [],
                            to batch: inout WriteBatch) throws -> CommittedChange? {
        guard !classes.isEmpty || !namedBuffers.isEmpty else { return nil }
        guard let (next, pruned) = changeLog.advanced(keeping: changeLogLimit) else {
            throw StoreError.corruptMetadata(key: "sequence", reason: "no sequence number is left")
        }
        let change = StoreChange(sequence: next.sequence, classes: classes, namedBuffers: namedBuffers)
        if changeLogLimit > 0 {
            let record = ChangeRecord(change) { records[$0]?.classID }
            try addMetadata(record.encoded(), forKey: ChangeRecord.key(for: next.sequence), to: &batch)
        }
        if let pruned {
            for key in try changeRecordKeys(in: pruned) { batch.removeValue(forKey: key, in: Self.metadataTable) }
        }
        try addMetadata(next.encoded(), forKey: ChangeSequenceRecord.key, to: &batch)
        return CommittedChange(record: next, change: change)
    }

    /// Adopts the sequence number of an applied batch and sends its change to every subscriber.
    internal func changeCommitted(_ committed: CommittedChange?) {
        guard let committed else { return }
        changeLog = committed.record
        // A pool's writer: the pool makes the commit visible to reads before anyone hears of it.
        commitAdopted?()
        changeFeed.publish(committed.change)
        notifyObservations(of: committed.change)
    }

    /// What a batch's commit changes for the feed.
    internal struct CommittedChange {
        var record: ChangeSequenceRecord
        var change: StoreChange
    }

    /// Reads the `sequence` record at open (absent in a new store and in one written before the
    /// change log: nothing saved yet, nothing kept).
    internal func loadChangeSequence(_ value: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer) throws {
        var buffer = try openMetadata(value, key: key, name: "sequence")
        do {
            changeLog = try ChangeSequenceRecord(decoding: &buffer)
        } catch {
            throw StoreError.corruptMetadata(key: "sequence", reason: "\(error)")
        }
    }

    /// Every class of the registry by classID: its storage name and next rowID as saved.
    internal func knownClasses() -> [UInt64: (name: String, nextRowID: UInt64)] {
        var known: [UInt64: (name: String, nextRowID: UInt64)] = [:]
        for (name, record) in records { known[record.classID] = (name, record.nextRowID) }
        return known
    }

    /// The change of save `number` from its stored record (nil: missing), or the typed error
    /// that says why it cannot be read.
    internal func change(number: UInt64, stored value: UnsafeRawBufferPointer?,
                         classes known: [UInt64: (name: String, nextRowID: UInt64)]) throws -> StoreChange {
        guard let value else { throw StoreError.corruptChangeLog(sequence: number, reason: "the record is missing") }
        let key = ChangeRecord.key(for: number)
        var buffer: DataBuffer
        do {
            buffer = try key.withUnsafeBytes { try openMetadata(value, key: $0, name: "change") }
        } catch let StoreError.corruptMetadata(_, reason) {
            throw StoreError.corruptChangeLog(sequence: number, reason: reason)
        }
        do {
            return try ChangeRecord(decoding: &buffer).change(sequence: number, classes: known)
        } catch let mismatch as ChangeRecordMismatch {
            throw StoreError.corruptChangeLog(sequence: number, reason: mismatch.reason)
        } catch {
            throw StoreError.corruptChangeLog(sequence: number, reason: "\(error)")
        }
    }

    /// Appends to `lists` the rowIDs of the objects of `objects` whose pending change is still
    /// `change`, by class. Runs of one class are the rule (a loop of inserts): one dictionary
    /// access per run, not per object.
    private func gatherRowIDs(of objects: [StoredObject], as change: PendingChange,
                              into lists: inout [ObjectIdentifier: PendingRowIDs]) {
        var current: UnsafeMutableRawPointer?
        var rowIDs: [UInt64] = []
        rowIDs.reserveCapacity(objects.count)
        func flush() {
            guard let current, !rowIDs.isEmpty else { return }
            let entry = Unmanaged<ClassEntry>.fromOpaque(current).takeUnretainedValue()
            lists[ObjectIdentifier(entry), default: PendingRowIDs(name: entry.name)].take(&rowIDs, as: change)
        }
        for object in objects where object.pendingChange == change {
            // Compared by address: no retain and release of the entry per object.
            guard let address = object.entryAddress else { continue }
            if address != current {
                flush()
                current = address
            }
            rowIDs.append(object.rowID)
        }
        flush()
    }

    /// The keys of the change records of `sequences` to remove: computed for a short range,
    /// found among the stored records for a long one (a limit lowered a lot, or a log turned
    /// off after a long one), so that a save never loops over numbers that have no record.
    private func changeRecordKeys(in sequences: ClosedRange<UInt64>) throws -> [[UInt8]] {
        if sequences.upperBound - sequences.lowerBound < 4_096 { return sequences.map(ChangeRecord.key(for:)) }
        var keys: [[UInt8]] = []
        try backend.forEachRecord(in: Self.metadataTable) { key, _ in
            if let number = ChangeRecord.sequence(inKey: key), sequences.contains(number) { keys.append(Array(key)) }
            return true
        }
        return keys
    }
}

/// The rowIDs of one class a save changes, gathered from the pending objects.
private struct PendingRowIDs {
    let name: String
    var inserted: [UInt64] = []
    var updated: [UInt64] = []
    var deleted: [UInt64] = []

    init(name: String) {
        self.name = name
    }

    /// Takes `rowIDs` (left empty, its storage taken when this list was empty: the one run of
    /// a save of one class is not copied).
    mutating func take(_ rowIDs: inout [UInt64], as change: PendingChange) {
        switch change {
        case .inserted: Self.move(&rowIDs, to: &inserted)
        case .updated: Self.move(&rowIDs, to: &updated)
        case .deleted: Self.move(&rowIDs, to: &deleted)
        case .none: rowIDs.removeAll(keepingCapacity: true)
        }
    }

    private static func move(_ rowIDs: inout [UInt64], to list: inout [UInt64]) {
        if list.isEmpty {
            swap(&rowIDs, &list)
        } else {
            list += rowIDs
            rowIDs.removeAll(keepingCapacity: true)
        }
    }

    /// The rowIDs as ranges.
    var rows: ChangedRowIDs {
        ChangedRowIDs(inserted: RowIDRanges(sorting: inserted), updated: RowIDRanges(sorting: updated),
                      deleted: RowIDRanges(sorting: deleted))
    }
}
