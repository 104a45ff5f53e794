// Fetching: objects by rowID, all objects of a class, a streaming enumeration, counts; and the
// loading of a record into an object, shared by all of them and by faults.
//
// The public entry points are small inlinable generic wrappers over non-generic cores, so a
// caller's code is specialized for its class and the cores run without generic metadata
// lookups per object.

extension Store {
    /// The object of class `type` with `rowID`, with its content loaded, or nil when there is
    /// none (never saved, deleted, or deleted and not saved yet).
    ///
    /// ```swift
    /// if let song = try store.object(of: Song.self, rowID: 42) { print(song.title) }
    /// ```
    @inlinable
    public func object<T: StoredObject>(of type: T.Type, rowID: RowID) throws -> T? {
        guard let object = try storedObject(of: type, rowID: rowID) else { return nil }
        return unsafeDowncast(object, to: T.self)
    }

    /// Every object of class `type`, saved or inserted, not deleted, in ascending rowID order.
    ///
    /// Fetching a million objects holds them all in memory; ``forEachObject(of:_:)`` streams.
    ///
    /// ```swift
    /// let playlists = try store.allObjects(of: Playlist.self)
    /// ```
    @inlinable
    public func allObjects<T: StoredObject>(of type: T.Type) throws -> [T] {
        if let table = try objectTable(of: type) {
            return [T](unsafeUninitializedCapacity: table.count) { buffer, initialized in
                initialized = table.moveObjects(as: T.self, into: buffer)
            }
        }
        // Sparse rowIDs (many deletes): a table by rowID would be mostly empty.
        var objects: [T] = []
        objects.reserveCapacity(try expectedCount(of: type))
        var isSorted = true
        var previous: UInt64 = 0
        try forEachStoredObject(of: type) { object in
            if object.rowID < previous { isSorted = false }
            previous = object.rowID
            objects.append(unsafeDowncast(object, to: T.self))
        }
        if !isSorted { Self.orderByRowID(&objects, rowIDLimit: try nextRowID(of: type)) }
        return objects
    }

    /// Calls `body` with every object of class `type`, saved or inserted, not deleted, in
    /// storage order, holding only the objects `body` keeps: memory stays flat however many
    /// objects there are. Saving inside `body` throws ``StoreError/saveDuringEnumeration``.
    ///
    /// ```swift
    /// var total: UInt64 = 0
    /// try store.forEachObject(of: Song.self) { song in total += UInt64(song.seconds) }
    /// ```
    @inlinable
    public func forEachObject<T: StoredObject>(of type: T.Type, _ body: (T) throws -> Void) throws {
        try forEachStoredObject(of: type) { try body(unsafeDowncast($0, to: T.self)) }
    }

    /// The number of objects of class `type`, counting unsaved inserts and deletes, without
    /// fetching any.
    ///
    /// ```swift
    /// let songCount = try store.count(of: Song.self)
    /// ```
    public func count(of type: StoredObject.Type) throws -> Int {
        let entry = try entry(for: type)
        return try savedRecordCount(of: entry) + entry.pendingInsertCount - entry.pendingDeleteCount
    }

    /// ``count(of:)`` when it is known, else what the registry implies (rowIDs handed out
    /// less those deleted), without reading the class file: a capacity to reserve.
    @usableFromInline
    internal func expectedCount(of type: StoredObject.Type) throws -> Int {
        expectedCount(of: try entry(for: type))
    }

    private func expectedCount(of entry: ClassEntry) -> Int {
        let saved = entry.savedRecordCount
            ?? max(0, Int(clamping: entry.savedNextRowID) - 1 - entry.deletedRowIDs.count)
        return max(0, saved + entry.pendingInsertCount - entry.pendingDeleteCount)
    }

    // MARK: Cores

    /// ``object(of:rowID:)`` without generics.
    @usableFromInline
    internal func storedObject(of type: StoredObject.Type, rowID: UInt64) throws -> StoredObject? {
        let entry = try entry(for: type)
        if let live = entry.liveObject(rowID) {
            guard live.pendingChange != .deleted else { return nil }
            do {
                try live.fetchContent()
            } catch StoreError.missingRecord {
                return nil
            }
            return live
        }
        // RowIDs at or above the next one were never handed out: no such object.
        guard rowID >= 1, rowID < entry.nextRowID else { return nil }
        return try withRecord(of: rowID, entry: entry) { envelope, key, envelopeCipher in
            guard let envelope else { return nil }
            return try withReadScratch {
                try materialize(rowID: rowID, record: envelope, key: key, envelopeCipher: envelopeCipher, entry: entry, scratch: &$0)
            }
        }
    }

    /// The objects ``allObjects(of:)`` returns, placed by rowID, or nil when the class's rowIDs
    /// are too sparse for a table (more than four slots an object, beyond the first 4,096) or
    /// its memory cannot be had: then ``forEachStoredObject(of:_:)`` and a sort do it.
    @usableFromInline
    internal func objectTable(of type: StoredObject.Type) throws -> RowIDTable? {
        let entry = try entry(for: type)
        guard entry.nextRowID <= UInt64(4 * expectedCount(of: entry) + 4_096),
              let table = RowIDTable(size: Int(entry.nextRowID)) else { return nil }
        enumerationDepth += 1
        defer { enumerationDepth -= 1 }
        var scratch = DataBuffer()
        try forEachRecord(inClassFile: entry.name) { rowID, record, key, envelopeCipher in
            // Each object handed over owned: the table keeps the reference the record's
            // object was made with, instead of retaining it and releasing the maker's.
            guard let object = try enumeratedObject(rowID: rowID, record: record, key: key, envelopeCipher: envelopeCipher,
                                                    entry: entry, scratch: &scratch) else { return }
            table.place(object)
        }
        try forEachInsertedObject(of: entry) { table.place($0) }
        return table
    }

    /// ``forEachObject(of:_:)`` without generics.
    @usableFromInline
    internal func forEachStoredObject(of type: StoredObject.Type, _ body: (StoredObject) throws -> Void) throws {
        let entry = try entry(for: type)
        enumerationDepth += 1
        defer { enumerationDepth -= 1 }
        // One buffer for every record: its storage is reused instead of allocated per object.
        var scratch = DataBuffer()
        try forEachRecord(inClassFile: entry.name) { rowID, record, key, envelopeCipher in
            guard let object = try enumeratedObject(rowID: rowID, record: record, key: key, envelopeCipher: envelopeCipher,
                                                    entry: entry, scratch: &scratch) else { return }
            try body(object)
        }
        try forEachInsertedObject(of: entry, body)
    }

    /// The object of a record met while enumerating the class file of `entry`: the live one
    /// (loaded if it is a fault) or a new one, or nil for a live object deleted and not saved
    /// yet. A rowID never handed out is damage (a flipped bit must not become an object, nor
    /// a page of the identity map at a huge index).
    @inline(__always)
    private func enumeratedObject(rowID: UInt64, record: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer,
                                  envelopeCipher: RecordCipher?, entry: ClassEntry,
                                  scratch: inout DataBuffer) throws -> StoredObject? {
        guard rowID >= 1, rowID < entry.nextRowID else {
            throw StoreError.corruptRecord(class: entry.name, rowID: rowID)
        }
        if let live = entry.liveObject(rowID) {
            guard live.pendingChange != .deleted else { return nil }
            if !live.hasContent {
                try fill(live, from: record, key: key, envelopeCipher: envelopeCipher, entry: entry, scratch: &scratch)
            }
            return live
        }
        return try materialize(rowID: rowID, record: record, key: key, envelopeCipher: envelopeCipher,
                               entry: entry, scratch: &scratch)
    }

    /// Calls `body` with every object of the class of `entry` inserted and not saved yet.
    private func forEachInsertedObject(of entry: ClassEntry, _ body: (StoredObject) throws -> Void) throws {
        guard entry.pendingInsertCount > 0 else { return }
        for object in insertedObjects where object.pendingChange == .inserted && object.entry === entry {
            try body(object)
        }
    }

    // MARK: Internal

    /// The rowID the class hands out next: every rowID of the class is below it.
    @usableFromInline
    internal func nextRowID(of type: StoredObject.Type) throws -> UInt64 {
        try entry(for: type).nextRowID
    }

    /// The live instance for a reference read from a buffer: the object already in memory, a
    /// new fault, or nil for rowID 0 or a row that does not exist.
    internal func reference<T: StoredObject>(to type: T.Type, rowID: UInt64) throws -> T? {
        // Not Optional.map: left unspecialized, it cost a third of a reference.
        guard let object = reference(rowID: rowID, entry: try entry(for: type)) else { return nil }
        return unsafeDowncast(object, to: T.self)
    }

    internal func reference(rowID: UInt64, entry: ClassEntry) -> StoredObject? {
        guard rowID != 0 else { return nil }
        referenceObserver?(entry, rowID)
        if let live = entry.liveObject(rowID) { return live }
        guard entry.savedRowMayExist(rowID) else { return nil }
        let fault = entry.type.init()
        fault.attach(to: entry, rowID: rowID)
        fault.hasContent = false
        entry.remember(fault)
        return fault
    }

    /// Loads a fault's record (``StoredObject/fetchContent()``).
    internal func loadContent(of object: StoredObject) throws {
        try checkOpen()
        guard let entry = object.entry else {
            throw StoreError.objectNotInStore(class: type(of: object).storageName)
        }
        readDependencies?.noteClass(entry.name)
        try withRecord(of: object.rowID, entry: entry) { envelope, key, envelopeCipher in
            guard let envelope else { throw StoreError.missingRecord(class: entry.name, rowID: object.rowID) }
            try withReadScratch {
                try fill(object, from: envelope, key: key, envelopeCipher: envelopeCipher, entry: entry, scratch: &$0)
            }
        }
    }

    /// A new live object for a record read from the class file.
    internal func materialize(rowID: UInt64, record: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer,
                             envelopeCipher: RecordCipher?, entry: ClassEntry, scratch: inout DataBuffer) throws -> StoredObject {
        let object = entry.type.init()
        object.attach(to: entry, rowID: rowID)
        object.hasContent = false
        entry.remember(object)
        try fill(object, from: record, key: key, envelopeCipher: envelopeCipher, entry: entry, scratch: &scratch)
        return object
    }

    /// Reads `record` into `object`, which becomes an object with content; `envelopeCipher`
    /// opens the record's envelope (nil inside a page written whole). Writes made while reading
    /// are not tracked as updates.
    internal func fill(_ object: StoredObject, from record: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer,
                      envelopeCipher: RecordCipher?, entry: ClassEntry, scratch buffer: inout DataBuffer) throws {
        do {
            try RecordEnvelope.open(record, key: key, cipher: envelopeCipher, scope: entry.classID, into: &buffer)
        } catch .encryptedWithoutKey where cipher == nil {
            throw StoreError.encryptionKeyRequired
        } catch {
            throw StoreError.corruptRecord(class: entry.name, rowID: object.rowID)
        }
        try readContent(of: object, from: &buffer, entry: entry)
        if !faultErrors.isEmpty { faultErrors[ObjectIdentifier(object)] = nil }
    }

    /// Has `object` read its content from `buffer` (a record's content, its version set), as
    /// loading, not as an update; it then has content. A reader's own error becomes
    /// ``StoreError/undecodableRecord(class:rowID:reason:)``.
    @inline(__always)
    internal func readContent(of object: StoredObject, from buffer: inout DataBuffer, entry: ClassEntry) throws {
        object.isLoadingContent = true
        defer { object.isLoadingContent = false }
        do {
            try object.readContent(from: &buffer, in: self)
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.undecodableRecord(class: entry.name, rowID: object.rowID, reason: "\(error)")
        }
        object.hasContent = true
    }
}
