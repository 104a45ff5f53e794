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
    /// The end of the block of rowIDs the backend reserved for this session
    /// (``Backend/reserveRowIDs(_:in:atLeast:)``): 0 before the first insert asks for one,
    /// `.max` when the backend leaves rowIDs to the store.
    @exclusivity(unchecked) var rowIDBlockEnd: UInt64 = 0
    /// How many rowIDs a block reserves: 65,536, so that a long run of inserts asks the backend
    /// once per 65,536 objects (each asking is a transaction on a shared backend). A session
    /// that inserts a few objects costs nothing more: the store gives the unused end back when
    /// it closes, and a block another client's block followed is counted deleted, one range.
    static let rowIDBlockSize = 1 << 16
    /// The registry record must be written at the next save.
    @exclusivity(unchecked) var needsRecordWrite = false

    /// The identity map: the live instance of each rowID, not retained. An object removes
    /// itself in its deinit.
    @exclusivity(unchecked) private var liveObjects = IdentityMap()
    /// The page of the class file read last.
    @exclusivity(unchecked) var pageCache = PageCache()
    /// The number of records in the class file, once counted (``Store/count(of:)``), kept up
    /// to date by saves; known from the start (0) for a class that never handed out a rowID,
    /// so that counting after a bulk load into a new class reads no page.
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
    /// Saved objects of this class marked updated and not saved yet.
    @exclusivity(unchecked) var pendingUpdateCount = 0

    /// Where the class's objects find this entry and the store (``EntryAnchor``); freed with
    /// the entry.
    let anchor: EntryAnchor

    /// The entry of class `type` in `store`, as its registry `record` describes it.
    init(type: StoredObject.Type, name: String, record: ClassRecord, store: Store) {
        self.type = type
        self.name = name
        self.classID = record.classID
        self.version = type.version
        self.keepsHistory = type.keepsHistory
        self.nextRowID = record.nextRowID
        self.savedNextRowID = record.nextRowID
        // Any record in the file of a class that handed out no rowID would be damage (a rowID
        // never handed out): the count the store can stand behind is 0.
        self.savedRecordCount = record.nextRowID <= 1 ? 0 : nil
        self.deletedRowIDs = record.deletedRowIDs
        self.needsRecordWrite = record.version != type.version
        // The anchor's memory first: every stored property must be set before `self` is used.
        self.anchor = EntryAnchor(address: EntryAnchor.allocateMemory())
        anchor.bind(entry: self, store: store)
    }


    /// True when rowIDs come from blocks a shared backend reserved: other clients hand out
    /// rowIDs of the class too, below and above this session's.
    var sharesRowIDs: Bool { rowIDBlockEnd != 0 && rowIDBlockEnd != .max }

    /// The registry record as it will be saved, with `newlyDeleted` rowIDs added. With shared
    /// rowIDs, `inserted` (the rowIDs the save writes) keeps the record exact: its next rowID
    /// rises to cover them (and the rowIDs handed out and dropped), and every rowID below it
    /// that no save wrote (another client's block left unused, or not saved yet) is counted
    /// deleted until a save writes it.
    func record(addingDeleted newlyDeleted: [UInt64], inserted: [UInt64] = []) -> ClassRecord {
        let deleted = deletedRowIDs.union(newlyDeleted + droppedRowIDs)
        guard sharesRowIDs else {
            return ClassRecord(classID: classID, nextRowID: nextRowID, version: version, deletedRowIDs: deleted)
        }
        let written = RowIDRanges(sorting: inserted)
        let top = max(savedNextRowID, (written.ranges.last?.upperBound ?? 0) + 1, (droppedRowIDs.max() ?? 0) + 1)
        let skipped = top > savedNextRowID ? RowIDRanges(validating: [savedNextRowID ... top - 1]) ?? RowIDRanges() : RowIDRanges()
        return ClassRecord(classID: classID, nextRowID: top, version: version,
                           deletedRowIDs: deleted.union(skipped).subtracting(written))
    }

    /// Takes a block of rowIDs the backend reserved: the next inserts are given its rowIDs.
    func adoptRowIDBlock(_ block: Range<UInt64>) {
        nextRowID = block.lowerBound
        rowIDBlockEnd = block.upperBound
    }

    /// Takes the registry record another client saved (the store refreshed): the saved next
    /// rowID and deleted rowIDs. RowIDs this session hands out stay in its block.
    func adoptSavedRecord(_ record: ClassRecord) {
        savedNextRowID = record.nextRowID
        deletedRowIDs = record.deletedRowIDs
        if !sharesRowIDs { nextRowID = max(nextRowID, record.nextRowID) }
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
        anchor.deallocate()
    }
}
