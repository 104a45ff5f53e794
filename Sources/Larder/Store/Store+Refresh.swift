// Refresh: a store on a shared backend (EtcdBackend: several processes on several machines)
// takes in what other clients saved. The backend moves its reads to the newest state; the store
// reads its registry again, forgets cached pages and counts, learns from its change log which
// objects the other saves changed, turns those it holds back into faults (or deleted objects),
// and hands the changes to its subscribers and observations. Unsaved changes are kept, except
// those to objects another client changed meanwhile: they are dropped and named in
// StoreError.conflict (optimistic concurrency, object by object). saveChanges() does the same
// when the backend refuses a save because another client saved first, then saves again.

extension Store {
    /// Takes in what other clients of a shared backend (``Backend/refreshToNewestState()``:
    /// another process or machine on the same etcd prefix) saved since this store last read:
    /// objects they changed are read again at next use, objects they deleted become deleted
    /// (``StoredObject/isDeleted``), counts and queries see their saves, and their changes go to
    /// ``changes`` and to every observation, as this store's own saves do. Returns those changes,
    /// oldest first (empty when nothing changed: always, for a backend only this process writes).
    ///
    /// Unsaved changes are kept, except changes to objects another client changed or deleted
    /// meanwhile: those are dropped, the objects show the other client's save, and the call
    /// throws ``StoreError/conflict(objects:)`` naming them, after taking in everything else.
    /// ``saveChanges()`` refreshes by itself when another client saved first.
    ///
    /// ```swift
    /// for await _ in backend.remoteSaves { try store.refresh() }
    /// ```
    @discardableResult
    public func refresh() throws -> [StoreChange] {
        try checkOpen()
        guard enumerationDepth == 0 else { throw StoreError.saveDuringEnumeration }
        guard observationDepth == 0 else { throw StoreError.saveDuringObservation }
        let (changes, conflicts) = try takeInRemoteSaves()
        if !conflicts.isEmpty { throw StoreError.conflict(objects: conflicts) }
        return changes
    }

    /// What ``refresh()`` does: returns the changes taken in and the objects whose unsaved
    /// changes were dropped (rowIDs by class).
    internal func takeInRemoteSaves() throws -> (changes: [StoreChange], conflicts: [String: [UInt64]]) {
        let before = changeLog.sequence
        guard case .changed = try backend.refreshToNewestState() else { return ([], [:]) }
        forgetCachedFileState()
        try reloadMetadata()
        for entry in entriesByType.values {
            if let record = records[entry.name] { entry.adoptSavedRecord(record) }
            try attachTextIndex(to: entry)
            try attachObjectIndexes(to: entry)
        }
        // Nil when the log no longer reaches back (or is off, or a record of it does not read):
        // then every object may have changed.
        let remote = try? changes(since: before)
        let conflicts = remote.map(takeIn) ?? takeInUnknownChanges()
        if let remote {
            for change in remote {
                changeFeed.publish(change)
                notifyObservations(of: change)
            }
        } else if changeLog.sequence > before {
            changeFeed.publish(StoreChange(missed: before + 1 ... changeLog.sequence))
            let everything = Dictionary(uniqueKeysWithValues: entriesByName.keys.map { ($0, ChangedRowIDs()) })
            notifyObservations(of: StoreChange(sequence: changeLog.sequence, classes: everything, namedBuffers: []))
        }
        return (remote ?? [], conflicts)
    }

    /// Applies `changes` of other clients to the objects this store holds; returns the objects
    /// whose unsaved changes they overrule.
    private func takeIn(_ changes: [StoreChange]) -> [String: [UInt64]] {
        var conflicts: [String: [UInt64]] = [:]
        for change in changes {
            for (name, rows) in change.classes {
                guard let entry = entriesByName[name] else { continue }
                for rowID in rows.updated.rowIDs {
                    guard let object = entry.liveObject(rowID) else { continue }
                    if object.pendingChange != .none { conflicts[name, default: []].append(rowID) }
                    refault(object)
                }
                for rowID in rows.deleted.rowIDs {
                    guard let object = entry.liveObject(rowID) else { continue }
                    // Deleted here too: the same wish, not a conflict.
                    if object.pendingChange == .updated { conflicts[name, default: []].append(rowID) }
                    markDeleted(object)
                }
            }
        }
        return conflicts
    }

    /// Every object this store holds may have changed: all are read again, and every unsaved
    /// update or delete is dropped (nothing tells which ones another client overruled).
    private func takeInUnknownChanges() -> [String: [UInt64]] {
        var conflicts: [String: [UInt64]] = [:]
        for entry in entriesByType.values {
            for object in entry.allLiveObjects() where object.pendingChange != .inserted {
                if object.pendingChange != .none { conflicts[entry.name, default: []].append(object.rowID) }
                refault(object)
            }
        }
        return conflicts
    }

    /// Drops the unsaved change of `object` (not an insert) and makes it a fault of its saved
    /// state.
    private func refault(_ object: StoredObject) {
        dropPendingChange(of: object)
        object.hasContent = false
        faultErrors[ObjectIdentifier(object)] = nil
    }

    /// Drops the unsaved change of `object` (not an insert): another client deleted it.
    private func markDeleted(_ object: StoredObject) {
        dropPendingChange(of: object)
        object.entry?.forget(object)
        object.detach()
        object.isDeleted = true
    }

    private func dropPendingChange(of object: StoredObject) {
        switch object.pendingChange {
        case .none, .inserted: return
        case .updated: break
        case .deleted: object.entry?.pendingDeleteCount -= 1
        }
        object.pendingChange = .none
        pendingObjectCount -= 1
    }
}
