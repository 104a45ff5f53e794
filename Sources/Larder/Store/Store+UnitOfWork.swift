// The unit of work: insert, update and delete objects in memory, then save them all in one
// write batch, or discard them.

extension Store {
    /// True when inserts, updates or deletes are waiting for ``saveChanges()``.
    ///
    /// ```swift
    /// if store.hasUnsavedChanges { try store.saveChanges() }
    /// ```
    public var hasUnsavedChanges: Bool { pendingObjectCount > 0 }

    /// Adds a new object to the store: it gets its rowID at once and is written at the next
    /// save. Inserting an object already in this store does nothing.
    ///
    /// New objects referenced by a saved object are inserted by the save itself, so inserting
    /// the root of a new graph is enough.
    ///
    /// ```swift
    /// let playlist = Playlist()
    /// try store.insert(playlist)
    /// ```
    public func insert(_ object: StoredObject) throws {
        try checkOpen()
        if let owner = object.attachedStore {
            guard owner === self else {
                throw StoreError.objectInAnotherStore(class: type(of: object).storageName, rowID: object.rowID)
            }
            return
        }
        guard !object.isDeleted else {
            throw StoreError.objectDeleted(class: type(of: object).storageName, rowID: object.rowID)
        }
        // A read-only store could never save the object: say so now, before a rowID is taken.
        guard !backend.isReadOnly else { throw StoreError.readOnly }
        let entry = try entry(for: type(of: object))
        if entry.nextRowID >= entry.rowIDBlockEnd { try reserveRowIDBlock(for: entry) }
        object.attach(to: entry, rowID: try entry.allocateRowID())
        object.hasContent = true
        entry.remember(object)
        object.pendingChange = .inserted
        entry.pendingInsertCount += 1
        pendingObjectCount += 1
        insertedObjects.append(object)
    }

    /// Marks an object as changed, so the next save writes it. Faults the object in first, so
    /// its unchanged fields are saved as they were. Properties declared with ``Stored`` call
    /// this by themselves.
    ///
    /// ```swift
    /// try store.willUpdate(playlist)
    /// playlist.songs.append(song)
    /// ```
    public func willUpdate(_ object: StoredObject) throws {
        try checkOwnership(of: object)
        switch object.pendingChange {
        case .inserted, .updated:
            return
        case .deleted:
            throw StoreError.objectDeleted(class: type(of: object).storageName, rowID: object.rowID)
        case .none:
            try object.fetchContent()
            beginUpdate(of: object)
        }
    }

    /// Deletes an object: marks it as being deleted, calls its
    /// ``StoredObject/prepareForDelete()`` (the delete rules), then removes it at the next save.
    /// Its rowID is never handed out again. Deleting an object that is already deleted, or
    /// whose delete rules are running (a rule that deletes the object again, or two objects
    /// whose rules delete each other), does nothing.
    ///
    /// ```swift
    /// try store.delete(song)
    /// try store.saveChanges()
    /// ```
    public func delete(_ object: StoredObject) throws {
        try checkOwnership(of: object)
        guard !backend.isReadOnly else { throw StoreError.readOnly }
        guard let entry = object.entry, !object.isBeingDeleted else { return }
        // Marked before the rules run, so that a rule reaching this object again stops there.
        // The rules cannot throw: nothing below fails once the mark is set.
        object.isBeingDeleted = true
        defer { object.isBeingDeleted = false }
        switch object.pendingChange {
        case .deleted:
            return
        case .inserted:
            object.prepareForDelete()
            guard object.pendingChange == .inserted else { return }
            entry.pendingInsertCount -= 1
            pendingObjectCount -= 1
            entry.drop(object.rowID)
            entry.forget(object)
            object.detach()
            object.isDeleted = true
        case .none, .updated:
            // Delete rules usually need the object's relationships; a record that cannot be
            // read is deleted all the same.
            try? object.fetchContent()
            object.prepareForDelete()
            if object.pendingChange == .none { pendingObjectCount += 1 }
            object.pendingChange = .deleted
            entry.pendingDeleteCount += 1
            deletedObjects.append(object)
        }
    }

    /// Writes every pending insert, update and delete, and the registry changes they imply, in
    /// one batch, with the save's sequence number and change record; once it is committed, the
    /// subscribers of ``changes`` get its ``StoreChange``. If it throws, the store in memory is
    /// as it was before the call: still dirty, and the save can be retried.
    ///
    /// On a shared backend, when another client saved first (``BackendError/conflict(reason:)``),
    /// the store takes in that save (``refresh()``) and saves again; if the other client changed
    /// or deleted an object this save changes, it throws ``StoreError/conflict(objects:)``
    /// instead, having dropped those objects' changes (optimistic concurrency, checked on the
    /// objects a save writes, as Core Data's optimistic locking does: not on those it only read).
    ///
    /// ```swift
    /// try store.saveChanges()
    /// ```
    public func saveChanges() throws {
        var tries = 0
        while true {
            do {
                return try saveOnce()
            } catch BackendError.conflict(let reason) {
                tries += 1
                guard tries < Self.saveTries else { throw BackendError.conflict(reason: reason) }
                let conflicts = try takeInRemoteSaves().conflicts
                if !conflicts.isEmpty { throw StoreError.conflict(objects: conflicts) }
            }
        }
    }

    /// How many times a save is tried while other clients keep saving first.
    private static let saveTries = 16

    private func saveOnce() throws {
        try checkOpen()
        guard enumerationDepth == 0 else { throw StoreError.saveDuringEnumeration }
        guard observationDepth == 0 else { throw StoreError.saveDuringObservation }
        let dirtyEntries = entriesByType.values.filter(\.needsRecordWrite)
        guard hasUnsavedChanges || !dirtyEntries.isEmpty else { return }

        let context = EncodingContext(store: self)
        var newlyDeleted: [ObjectIdentifier: [UInt64]] = [:]
        var registry: [(entry: ClassEntry, record: ClassRecord)] = []
        var gains: [(entry: ClassEntry, gained: Int)] = []
        var committed: CommittedChange?
        var historyCounted: [String: UInt64] = [:]
        defer {
            for entry in entriesByType.values where !entry.pendingRecords.isEmpty { entry.pendingRecords = PendingRecords() }
            if historyClassCount > 0 { clearPendingHistory() }
        }
        do {
            var buffer = DataBuffer()
            buffer.encodingContext = context
            for entry in entriesByType.values where entry.pendingInsertCount + entry.pendingUpdateCount > 0 {
                entry.pendingRecords.expect(records: entry.pendingInsertCount + entry.pendingUpdateCount)
            }
            // Updates first: the new objects they reference are appended to the inserts.
            for object in updatedObjects where object.pendingChange == .updated {
                try encode(object, using: &buffer)
            }
            var index = 0
            while index < insertedObjects.count {
                let object = insertedObjects[index]
                index += 1
                if object.pendingChange == .inserted { try encode(object, using: &buffer) }
            }
            if let error = context.error { throw error }
            for object in deletedObjects where object.pendingChange == .deleted {
                guard let entry = object.entry else { continue }
                entry.pendingRecords.delete(rowID: object.rowID)
                if entry.keepsHistory { entry.pendingHistory.addDeletion(rowID: object.rowID) }
                newlyDeleted[ObjectIdentifier(entry), default: []].append(object.rowID)
            }
            var batch = WriteBatch()
            gains = try addPendingRecords(to: &batch)
            let textUpdate = try addTextIndexChanges(to: &batch)
            var indexWrite = try addObjectIndexChanges(to: &batch)
            // The versions of classes that keep history, under the number addChange gives the
            // save (the `sequence` record holds a number below the largest, so this adds safely).
            if historyClassCount > 0 { historyCounted = try addHistory(sequence: changeLog.sequence + 1, to: &batch) }
            // The registry goes last, after the class files it describes.
            registry = changedRegistryRecords(newlyDeleted: newlyDeleted)
            try add(registry, to: &batch)
            // The next sequence number and the save's change record, in the same batch.
            committed = try addChange(classes: hasUnsavedChanges ? pendingObjectChanges() : [:], to: &batch)
            try apply(batch)
            textUpdate?.adopt()
            indexWrite.adopt()
        } catch {
            for object in context.autoInserted.reversed() { undoInsert(of: object) }
            throw error
        }
        for (entry, gained) in gains {
            entry.savedRecordCount = entry.savedRecordCount.map { $0 + gained }
        }
        finishSave(registry: registry)
        historyCounts.merge(historyCounted) { $1 }
        // Subscribers hear of the save once it is durable and adopted.
        changeCommitted(committed)
    }

    /// Forgets every pending change: inserted objects leave the store, updated and deleted
    /// ones become faults again and reload their saved content on next use.
    ///
    /// ```swift
    /// song.title = "Typo"
    /// store.discardChanges()
    /// song.title   // the saved title
    /// ```
    public func discardChanges() {
        for object in insertedObjects where object.pendingChange == .inserted {
            undoInsert(of: object)
        }
        // Two loops, not `updatedObjects + deletedObjects`: the sum would copy (and retain)
        // every pending object once more.
        for objects in [updatedObjects, deletedObjects] {
            for object in objects where object.pendingChange != .none {
                object.pendingChange = .none
                object.hasContent = false
            }
        }
        for entry in entriesByType.values {
            entry.pendingInsertCount = 0
            entry.pendingDeleteCount = 0
            entry.pendingUpdateCount = 0
        }
        insertedObjects.removeAll()
        updatedObjects.removeAll()
        deletedObjects.removeAll()
        pendingObjectCount = 0
    }

    // MARK: Internal

    /// Marks an object updated from a `Stored` property's setter (which cannot throw). An
    /// object whose content could not be loaded is not marked: saving it would overwrite its
    /// record with partial fields.
    internal func markUpdated(_ object: StoredObject) {
        guard object.pendingChange == .none, object.hasContent, object.entry != nil else { return }
        beginUpdate(of: object)
    }

    /// Inserts an object met as a reference while encoding a save; failures are kept in the
    /// context and thrown by the save.
    internal func insertReferenced(_ object: StoredObject, context: EncodingContext) {
        do {
            try insert(object)
            context.autoInserted.append(object)
        } catch {
            context.record(error)
        }
    }

    private func beginUpdate(of object: StoredObject) {
        object.pendingChange = .updated
        object.entry?.pendingUpdateCount += 1
        pendingObjectCount += 1
        updatedObjects.append(object)
    }

    private func checkOwnership(of object: StoredObject) throws {
        try checkOpen()
        guard let owner = object.attachedStore else {
            if object.isDeleted {
                throw StoreError.objectDeleted(class: type(of: object).storageName, rowID: object.rowID)
            }
            throw StoreError.objectNotInStore(class: type(of: object).storageName)
        }
        guard owner === self else {
            throw StoreError.objectInAnotherStore(class: type(of: object).storageName, rowID: object.rowID)
        }
    }

    private func encode(_ object: StoredObject, using buffer: inout DataBuffer) throws {
        guard let entry = object.entry else { return }
        buffer.removeAll()
        object.writeContent(to: &buffer)
        do {
            try entry.pendingRecords.seal(rowID: object.rowID, version: entry.version, content: buffer.bytes,
                                          for: pageSealing(scope: entry.classID))
        } catch {
            throw StoreError.encryptionFailure(reason: "\(error)")
        }
        if entry.keepsHistory { entry.pendingHistory.addSaved(rowID: object.rowID, version: entry.version, content: buffer.bytes) }
    }

    /// Applies a batch that may touch class files: cached pages are forgotten first, and the
    /// record counts too when the batch fails (it may have been applied in part and rolled
    /// forward).
    internal func apply(_ batch: WriteBatch) throws {
        forgetCachedPages()
        do {
            try applyToBackend(batch)
        } catch {
            for entry in entriesByType.values { entry.savedRecordCount = nil }
            throw error
        }
    }

    /// Applies a batch to the backend; a read-only store refuses it with its own error.
    internal func applyToBackend(_ batch: WriteBatch) throws {
        guard !backend.isReadOnly else { throw StoreError.readOnly }
        try backend.apply(batch)
    }

    /// Takes back an insert that was never saved: the object leaves the store, its rowID is
    /// not reused.
    private func undoInsert(of object: StoredObject) {
        guard object.pendingChange == .inserted, let entry = object.entry else { return }
        entry.pendingInsertCount -= 1
        pendingObjectCount -= 1
        entry.drop(object.rowID)
        entry.forget(object)
        object.detach()
        object.rowID = 0
    }

    /// The registry record of every class whose next rowID or deleted rowIDs changed, as it
    /// will be written: computed once, put in the batch, then adopted when the batch is applied.
    internal func changedRegistryRecords(newlyDeleted: [ObjectIdentifier: [UInt64]]) -> [(entry: ClassEntry, record: ClassRecord)] {
        var inserted: [ObjectIdentifier: [UInt64]] = [:]
        if entriesByType.values.contains(where: \.sharesRowIDs) {
            for object in insertedObjects where object.pendingChange == .inserted {
                if let entry = object.entry, entry.sharesRowIDs { inserted[ObjectIdentifier(entry), default: []].append(object.rowID) }
            }
        }
        return entriesByType.values.compactMap { entry in
            let deleted = newlyDeleted[ObjectIdentifier(entry)]
            guard entry.needsRecordWrite || deleted != nil else { return nil }
            return (entry, entry.record(addingDeleted: deleted ?? [], inserted: inserted[ObjectIdentifier(entry)] ?? []))
        }
    }

    /// Asks the backend for the next block of rowIDs of `entry`'s class (a shared backend
    /// reserves one no other client is given); a backend that leaves rowIDs to the store is
    /// asked once.
    private func reserveRowIDBlock(for entry: ClassEntry) throws {
        let floor = entry.rowIDBlockEnd == 0 ? entry.nextRowID : max(entry.nextRowID, entry.savedNextRowID)
        if let block = try backend.reserveRowIDs(ClassEntry.rowIDBlockSize, in: entry.name, atLeast: floor) {
            entry.adoptRowIDBlock(block)
        } else if entry.rowIDBlockEnd == 0 {
            entry.rowIDBlockEnd = .max
        } else {
            throw StoreError.rowIDsExhausted(class: entry.name)
        }
    }

    /// Adds registry records to a batch.
    internal func add(_ registry: [(entry: ClassEntry, record: ClassRecord)], to batch: inout WriteBatch) throws {
        for (entry, record) in registry {
            try addMetadata(record.encoded(), forKey: ClassRecord.key(for: entry.name), to: &batch)
        }
    }

    /// Adopts registry records once the batch that carried them is applied.
    internal func registryRecordsWritten(_ registry: [(entry: ClassEntry, record: ClassRecord)]) {
        for (entry, record) in registry {
            records[entry.name] = record
            entry.deletedRowIDs = record.deletedRowIDs
            entry.droppedRowIDs = []
            entry.savedNextRowID = record.nextRowID
            entry.needsRecordWrite = false
        }
    }

    private func finishSave(registry: [(entry: ClassEntry, record: ClassRecord)]) {
        registryRecordsWritten(registry)
        for entry in entriesByType.values {
            entry.pendingInsertCount = 0
            entry.pendingDeleteCount = 0
            entry.pendingUpdateCount = 0
        }
        // Each list on its own, not `insertedObjects + updatedObjects`: the sum copied (and
        // retained and released) every saved object once more, 2-3% of SimpleUpdate's time.
        for objects in [insertedObjects, updatedObjects] {
            for object in objects where object.pendingChange == .inserted || object.pendingChange == .updated {
                object.pendingChange = .none
            }
        }
        for object in deletedObjects where object.pendingChange == .deleted {
            object.entry?.forget(object)
            object.detach()
            object.isDeleted = true
        }
        insertedObjects.removeAll()
        updatedObjects.removeAll()
        deletedObjects.removeAll()
        pendingObjectCount = 0
    }
}
