// ClassEntry: what a store knows about one registered class in this session: its persisted
// registry data (classID, next rowID, deleted rowIDs), its identity map and its pending counts.

/// One registered class of an open store.
internal final class ClassEntry {
    let type: StoredObject.Type
    let name: String
    let classID: UInt64
    let version: UInt8
    /// The class keeps history (``StoredObject/keepsHistory``): its saves append versions.
    let keepsHistory: Bool

    /// The next rowID to hand out in this session.
    @exclusivity(unchecked) var nextRowID: UInt64
    /// The next rowID as last saved: rows at or above it exist only in memory.
    @exclusivity(unchecked) var savedNextRowID: UInt64
    /// RowIDs deleted (or handed out and never saved), as saved.
    var deletedRowIDs: RowIDRanges
    /// RowIDs handed out in this session and dropped before any save, to add at the next save.
    var droppedRowIDs: [UInt64] = []
    /// The class's full-text index, when it declares indexed text or the store has one for it.
    var textIndex: TextIndex?
    /// The indexes the class declares that this session can use (Store+ObjectIndexes).
    var objectIndexes: [ObjectIndexState] = []
    /// Index builds left for the class's first query or save (Store+ObjectIndexes).
    var pendingIndexBuild: PendingIndexBuild?
    /// The registry record must be written at the next save.
    @exclusivity(unchecked) var needsRecordWrite = false

    /// The identity map: the live instance of each rowID, not retained. An object removes
    /// itself in its deinit.
    @exclusivity(unchecked) private var liveObjects = IdentityMap()
    /// The page of the class file read last.
    @exclusivity(unchecked) var pageCache = PageCache()
    /// The number of records in the class file, once counted (``Store/count(of:)``), kept up
    /// to date by saves.
    @exclusivity(unchecked) var savedRecordCount: Int?
    /// The records the save in progress writes (empty between saves).
    @exclusivity(unchecked) var pendingRecords = PendingRecords()
    /// The versions the save in progress appends to the class's history (empty between saves,
    /// and always for a class that keeps none).
    @exclusivity(unchecked) var pendingHistory = PendingHistory()
    /// Objects of this class inserted and not saved yet.
    @exclusivity(unchecked) var pendingInsertCount = 0
    /// Saved objects of this class deleted and not saved yet.
    @exclusivity(unchecked) var pendingDeleteCount = 0

    init(type: StoredObject.Type, name: String, record: ClassRecord) {
        self.type = type
        self.name = name
        self.classID = record.classID
        self.version = type.version
        self.keepsHistory = type.keepsHistory
        self.nextRowID = record.nextRowID
        self.savedNextRowID = record.nextRowID
        self.deletedRowIDs = record.deletedRowIDs
        self.needsRecordWrite = record.version != type.version
    }

    /// The registry record as it will be saved, with `newlyDeleted` rowIDs added.
    func record(addingDeleted newlyDeleted: [UInt64]) -> ClassRecord {
        ClassRecord(classID: classID, nextRowID: nextRowID, version: version,
                    deletedRowIDs: deletedRowIDs.union(newlyDeleted + droppedRowIDs))
    }

    /// Whether a saved record may exist for `rowID` (a reference to anything else reads as nil).
    func savedRowMayExist(_ rowID: UInt64) -> Bool {
        rowID >= 1 && rowID < savedNextRowID && !deletedRowIDs.contains(rowID)
    }

    /// Hands out the next rowID; ``StoreError/rowIDsExhausted(class:)`` when there is none
    /// (a damaged registry record), leaving the entry unchanged.
    func allocateRowID() throws -> UInt64 {
        let rowID = nextRowID
        let (next, overflow) = nextRowID.addingReportingOverflow(1)
        guard !overflow else { throw StoreError.rowIDsExhausted(class: name) }
        nextRowID = next
        needsRecordWrite = true
        return rowID
    }

    /// Records that `rowID` was handed out and will never be saved.
    func drop(_ rowID: UInt64) {
        droppedRowIDs.append(rowID)
        needsRecordWrite = true
    }

    @inline(__always)
    func liveObject(_ rowID: UInt64) -> StoredObject? {
        liveObjects.object(at: rowID)
    }

    func remember(_ object: StoredObject) {
        liveObjects.insert(object)
    }

    /// Removes `object` from the identity map if it is the instance there.
    func forget(_ object: StoredObject) {
        liveObjects.remove(object)
    }

    /// Retains and returns every live object, then empties the identity map.
    func takeAllLiveObjects() -> [StoredObject] {
        let objects = liveObjects.allObjects()
        liveObjects.removeAll()
        return objects
    }

    /// Retains and returns every live object, leaving the map as it is.
    func allLiveObjects() -> [StoredObject] {
        liveObjects.allObjects()
    }

    deinit {
        liveObjects.removeAll()
    }
}
