// Store+ObjectIndexes: the indexes classes declare (StoredObject.indexes), kept by the store. At
// registration a class's declared indexes are matched by name with those the store holds
// (ObjectIndexRecord): new ones are built from the saved objects, removed ones dropped, in one
// batch. Every save adds the changes of its objects' entries to its own batch (atomic with the
// objects), after checking unique indexes; nothing is written when one is broken.

extension Store {
    /// Rebuilds every index of `type` from its saved objects, in one atomic batch (after
    /// `verify()` reported an index that disagrees with the objects).
    ///
    /// ```swift
    /// try store.rebuildIndexes(of: Song.self)
    /// ```
    public func rebuildIndexes(of type: StoredObject.Type) throws {
        let entry = try entry(for: type)
        guard !backend.isReadOnly else { throw StoreError.readOnly }
        guard !hasUnsavedChanges else { throw StoreError.unsavedChanges }
        var batch = WriteBatch()
        var write = ObjectIndexWrite()
        // Indexes left for first use are built with their record; then every other one.
        let unbuilt = Set((entry.pendingIndexBuild?.unbuilt ?? []).map(ObjectIdentifier.init))
        try addUnbuiltIndexes(of: entry, to: &batch, &write)
        write.tables += try build(entry.objectIndexes.filter { !unbuilt.contains(ObjectIdentifier($0)) }, of: entry, into: &batch)
        try applyToBackend(batch)
        write.adopt()
    }

    // MARK: Registration

    /// Matches the indexes `entry`'s class declares with the stored ones: builds the new ones
    /// (later, at first use, when a class its objects reference is not registered yet), drops
    /// the ones no longer declared.
    internal func attachObjectIndexes(to entry: ClassEntry) throws {
        let declared = entry.type.indexes
        let key = ObjectIndexRecord.key(for: entry.name)
        var record = try readIndexRecord(key: key, className: entry.name)
        guard !declared.isEmpty || !record.indexes.isEmpty else { return }
        let probe = entry.type.init()
        var states: [ObjectIndexState] = []
        var unbuilt: [ObjectIndexState] = []
        var kept: [ObjectIndexRecord.Index] = []
        for index in declared {
            guard let name = index.name else {
                throw StoreError.invalidIndex(class: entry.name, reason: "a key path names no stored property: give the index a name")
            }
            guard !index.terms.isEmpty, index.terms.allSatisfy({ $0.accepts(probe) }) else {
                throw StoreError.invalidIndex(class: entry.name, reason: "index \(name) has no key path of this class")
            }
            guard !states.contains(where: { $0.name == name }) else {
                throw StoreError.invalidIndex(class: entry.name, reason: "two indexes are named \(name)")
            }
            if let stored = record.indexes.first(where: { $0.name == name && $0.isUnique == index.isUnique }) {
                kept.append(stored)
                states.append(try indexState(index, name: name, number: stored.number, className: entry.name))
            } else if !backend.isReadOnly {
                let number = record.nextNumber
                record.nextNumber += 1
                kept.append(ObjectIndexRecord.Index(number: number, name: name, isUnique: index.isUnique))
                let state = try indexState(index, name: name, number: number, className: entry.name)
                states.append(state)
                unbuilt.append(state)
            }
            // A read-only store cannot build a new index: its queries scan.
        }
        let dropped = record.indexes.filter { stored in !kept.contains(stored) }
        entry.objectIndexes = states
        entry.pendingIndexBuild = nil
        guard !backend.isReadOnly, !unbuilt.isEmpty || !dropped.isEmpty else { return }
        record.indexes = kept
        var batch = WriteBatch()
        for index in dropped {
            let table = ObjectIndexRecord.table(number: index.number, className: entry.name)
            backend.declareOrderedTable(table)
            try BackendIndexStorage(backend).removeEveryRecord(in: table, into: &batch)
        }
        do {
            var write = ObjectIndexWrite(tables: try build(unbuilt, of: entry, into: &batch))
            try addMetadata(record.encoded(), forKey: key, to: &batch)
            try applyToBackend(batch)
            write.adopt()
        } catch StoreError.classNotRegistered {
            // The objects reference a class not registered yet: built at first use, with the
            // first query or save of this class, in the same batch.
            entry.pendingIndexBuild = PendingIndexBuild(
                record: record, unbuilt: unbuilt,
                droppedTables: dropped.map { ObjectIndexRecord.table(number: $0.number, className: entry.name) })
        }
    }

    /// Adds to `write`'s batch the indexes of `entry` left for first use, with their record.
    private func addUnbuiltIndexes(of entry: ClassEntry, to batch: inout WriteBatch, _ write: inout ObjectIndexWrite) throws {
        guard let pending = entry.pendingIndexBuild else { return }
        for table in pending.droppedTables { try BackendIndexStorage(backend).removeEveryRecord(in: table, into: &batch) }
        write.tables += try build(pending.unbuilt, of: entry, into: &batch)
        try addMetadata(pending.record.encoded(), forKey: ObjectIndexRecord.key(for: entry.name), to: &batch)
        write.builtEntries.append(entry)
    }

    /// Builds the indexes left for first use now, in their own batch (before a query).
    internal func buildUnbuiltIndexes(of entry: ClassEntry) throws {
        guard entry.pendingIndexBuild != nil, !backend.isReadOnly else { return }
        var batch = WriteBatch()
        var write = ObjectIndexWrite()
        try addUnbuiltIndexes(of: entry, to: &batch, &write)
        try applyToBackend(batch)
        write.adopt()
    }

    // MARK: Saving

    /// Adds to `batch` the index changes of the unit of work's objects, after checking unique
    /// indexes; the returned tables are adopted once the batch is applied.
    internal func addObjectIndexChanges(to batch: inout WriteBatch) throws -> ObjectIndexWrite {
        // A store without indexes pays one look at its classes, not a pass over the objects.
        guard entriesByType.values.contains(where: { !$0.objectIndexes.isEmpty }) else { return ObjectIndexWrite() }
        var objectsByEntry: [ObjectIdentifier: [StoredObject]] = [:]
        for objects in [updatedObjects, insertedObjects, deletedObjects] {
            for object in objects {
                guard let entry = object.entry, !entry.objectIndexes.isEmpty, object.pendingChange != .none else { continue }
                objectsByEntry[ObjectIdentifier(entry), default: []].append(object)
            }
        }
        var write = ObjectIndexWrite()
        for entry in entriesByType.values.sorted(by: { $0.classID < $1.classID }) {
            guard let objects = objectsByEntry[ObjectIdentifier(entry)] else { continue }
            try addUnbuiltIndexes(of: entry, to: &batch, &write)
            // The saved entries of objects changed or deleted, read once for every index.
            var savedCopies: [UInt64: StoredObject] = [:]
            for object in objects where object.pendingChange == .updated || object.pendingChange == .deleted {
                if let copy = try savedCopy(of: object.rowID, entry: entry) { savedCopies[object.rowID] = copy }
            }
            for index in entry.objectIndexes {
                var changes = IndexChanges()
                var added: [(bytes: [UInt8], hasNil: Bool)] = []
                var removedRowIDs = Set<UInt64>()
                for object in objects {
                    let old = savedCopies[object.rowID].map { index.definition.entry(for: $0) }
                    switch object.pendingChange {
                    case .inserted:
                        let new = index.definition.entry(for: object)
                        changes.appended.append(new.bytes)
                        added.append(new)
                    case .updated:
                        let new = index.definition.entry(for: object)
                        guard new.bytes != old?.bytes else { continue }
                        if let old {
                            changes.change(old.bytes, isAdded: false)
                            removedRowIDs.insert(object.rowID)
                        }
                        changes.change(new.bytes, isAdded: true)
                        added.append(new)
                    case .deleted:
                        guard let old else { continue }
                        changes.change(old.bytes, isAdded: false)
                        removedRowIDs.insert(object.rowID)
                    case .none:
                        continue
                    }
                }
                if index.isUnique { try checkUnique(added, removing: removedRowIDs, in: index) }
                guard !changes.appended.isEmpty || !changes.changed.isEmpty else { continue }
                var table = index.table
                try table.write(changes, into: &batch)
                write.tables.append((index, table))
            }
        }
        return write
    }

    /// Throws when two of `added` share their keys, or one shares them with a stored entry of
    /// another object not in `removed`. Entries with a nil key are exempt.
    private func checkUnique(_ added: [(bytes: [UInt8], hasNil: Bool)], removing removed: Set<UInt64>,
                             in index: ObjectIndexState) throws {
        var seen = Set<[UInt8]>()
        for entry in added where !entry.hasNil {
            let keys = Array(entry.bytes.dropLast(8))
            guard seen.insert(keys).inserted else {
                throw StoreError.uniqueIndexViolation(class: index.className, index: index.name)
            }
            let own = entry.bytes.withUnsafeBytes { RowIDKey.rowID(atEndOf: $0) }
            var taken = false
            try index.table.forEachEntry(from: keys, through: IndexKeyBytes.through(keys), reverse: false) { stored in
                if let rowID = RowIDKey.rowID(atEndOf: stored), rowID != own, !removed.contains(rowID) { taken = true }
                return !taken
            }
            if taken { throw StoreError.uniqueIndexViolation(class: index.className, index: index.name) }
        }
    }

    // MARK: Building

    /// Adds to `batch` the runs of `indexes` built from every saved object of `entry` (those
    /// deleted in this unit of work too: the index holds the saved state). The returned tables
    /// are adopted once the batch is applied.
    private func build(_ indexes: [ObjectIndexState], of entry: ClassEntry,
                       into batch: inout WriteBatch) throws -> [(ObjectIndexState, IndexTable)] {
        guard !indexes.isEmpty else { return [] }
        var entries = Array(repeating: [(bytes: [UInt8], hasNil: Bool)](), count: indexes.count)
        try forEachSavedState(of: entry, includingDeleted: true) { view, _ in
            for (position, index) in indexes.enumerated() { entries[position].append(index.definition.entry(for: view)) }
        }
        var written: [(ObjectIndexState, IndexTable)] = []
        for (position, index) in indexes.enumerated() {
            var sorted = entries[position]
            sorted.sort { ByteOrder.less($0.bytes, $1.bytes) }
            if index.isUnique {
                var previous: [UInt8]?
                for entry in sorted where !entry.hasNil {
                    let keys = Array(entry.bytes.dropLast(8))
                    if keys == previous { throw StoreError.uniqueIndexViolation(class: index.className, index: index.name) }
                    previous = keys
                }
            }
            var changes = IndexChanges()
            changes.replacesAll = true
            changes.appended = sorted.map(\.bytes)
            var table = index.table
            try table.write(changes, into: &batch)
            written.append((index, table))
        }
        return written
    }

    // MARK: Rekeying

    /// Adds to `batch` every index table of `className` (registered or not) rewritten sealed
    /// with `newCipher` (plaintext for nil): its entries read with the current key.
    internal func resealObjectIndexes(ofClass className: String, into batch: inout WriteBatch,
                                      with newCipher: RecordCipher?) throws {
        let record = try readIndexRecord(key: ObjectIndexRecord.key(for: className), className: className)
        for index in record.indexes {
            let name = ObjectIndexRecord.table(number: index.number, className: className)
            let current = try indexTable(named: name, className: className, index: index.name, cipher: cipher)
            var changes = IndexChanges()
            changes.replacesAll = true
            try current.forEachEntry(from: nil, through: nil, reverse: false) { entry in
                changes.appended.append(Array(entry))
                return true
            }
            // A new directory: the old one is not read with the new key.
            var resealed = unsealedIndexTable(named: name, className: className, index: index.name)
            resealed.sealedRuns = newCipher.map { SealedRuns(cipher: StoreIndexSealer(cipher: $0)) }
            try resealed.write(changes, into: &batch)
        }
    }

    /// Reopens the index tables of every registered class with the store's current key.
    internal func reopenObjectIndexTables() throws {
        for entry in entriesByType.values {
            for index in entry.objectIndexes {
                index.table = try indexTable(named: index.table.name, className: entry.name, index: index.name, cipher: cipher)
            }
        }
    }

    // MARK: Tables

    /// The stored index record of the class `className` (empty when it has none).
    internal func readIndexRecord(key: [UInt8], className: String) throws -> ObjectIndexRecord {
        try backend.withValue(forKey: key, in: Self.metadataTable) { value in
            guard let value else { return ObjectIndexRecord() }
            var buffer = try key.withUnsafeBytes { try openMetadata(value, key: $0, name: "index/" + className) }
            do {
                return try ObjectIndexRecord(decoding: &buffer)
            } catch {
                throw StoreError.corruptMetadata(key: "index/" + className, reason: "\(error)")
            }
        }
    }

    private func indexState(_ definition: ObjectIndex, name: String, number: UInt64, className: String) throws -> ObjectIndexState {
        let table = ObjectIndexRecord.table(number: number, className: className)
        return ObjectIndexState(definition: definition, name: name, className: className,
                                table: try indexTable(named: table, className: className, index: name, cipher: cipher))
    }

    /// The table of runs `table`, sealed with `cipher` when there is one.
    internal func indexTable(named table: String, className: String, index: String,
                             cipher: RecordCipher?) throws -> IndexTable {
        var indexTable = unsealedIndexTable(named: table, className: className, index: index)
        if let cipher {
            let sealer = StoreIndexSealer(cipher: cipher)
            indexTable.sealedRuns = SealedRuns(cipher: sealer, directory: try indexTable.readDirectory(with: sealer))
        }
        return indexTable
    }

    /// The table of runs `table` (declared ordered), as a plaintext table: its damage is
    /// `StoreError.corruptIndex` of `className`'s index `index`.
    private func unsealedIndexTable(named table: String, className: String, index: String) -> IndexTable {
        backend.declareOrderedTable(table)
        return IndexTable(storage: BackendIndexStorage(backend), name: table, restartPoints: true) { reason in
            StoreError.corruptIndex(class: className, index: index, reason: reason)
        }
    }
}
