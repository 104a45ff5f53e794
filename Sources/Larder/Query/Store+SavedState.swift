// Store+SavedState: objects as they are saved, for queries and index maintenance. A query reads
// the saved state (as the index does), so an object changed in this unit of work is tested on
// a detached copy decoded from its record, and the live instance is what the query returns.

extension Store {
    /// The saved state of `rowID` for a query: the object to test (the live instance when it
    /// holds the saved values, else a detached copy decoded from the record) and the instance
    /// to return. Nil when the object is not saved or is deleted in this unit of work.
    internal func savedState(of rowID: UInt64, entry: ClassEntry) throws -> (view: StoredObject, result: StoredObject)? {
        if let live = entry.liveObject(rowID) {
            switch live.pendingChange {
            case .deleted, .inserted: return nil
            case .updated:
                guard let saved = try savedCopy(of: rowID, entry: entry) else { return nil }
                return (saved, live)
            case .none:
                do {
                    try live.fetchContent()
                } catch StoreError.missingRecord {
                    return nil
                }
                return (live, live)
            }
        }
        guard let object = try storedObject(of: entry.type, rowID: rowID) else { return nil }
        return (object, object)
    }

    /// A detached object holding the saved values of `rowID` (not in the identity map), or nil
    /// when it has no record.
    internal func savedCopy(of rowID: UInt64, entry: ClassEntry) throws -> StoredObject? {
        guard rowID >= 1, rowID < entry.savedNextRowID else { return nil }
        return try withRecord(of: rowID, entry: entry) { envelope, key, envelopeCipher in
            guard let envelope else { return nil }
            return try withReadScratch {
                try detachedCopy(of: rowID, from: envelope, key: key, envelopeCipher: envelopeCipher, entry: entry, scratch: &$0)
            }
        }
    }

    /// A new object of the class, outside the identity map, filled from the record `envelope`
    /// of `rowID`.
    private func detachedCopy(of rowID: UInt64, from envelope: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer,
                              envelopeCipher: RecordCipher?, entry: ClassEntry, scratch: inout DataBuffer) throws -> StoredObject {
        let copy = entry.type.init()
        copy.rowID = rowID
        try fill(copy, from: envelope, key: key, envelopeCipher: envelopeCipher, entry: entry, scratch: &scratch)
        return copy
    }

    /// Calls `body` with the saved state of every saved object of the class that is not deleted
    /// in this unit of work (or deleted too, `includingDeleted`): the object to test and a
    /// function that gives the instance to return. Objects not in memory are decoded into one reused copy, which becomes the live
    /// instance only when `body` asks for it: a scan allocates only the objects it returns.
    internal func forEachSavedState(of entry: ClassEntry, includingDeleted: Bool = false,
                                    _ body: (_ view: StoredObject, _ result: () -> StoredObject) throws -> Void) throws {
        enumerationDepth += 1
        defer { enumerationDepth -= 1 }
        var scratch = DataBuffer()
        var spare: StoredObject?
        try forEachRecord(inClassFile: entry.name) { rowID, record, key, envelopeCipher in
            guard rowID >= 1, rowID < entry.nextRowID else {
                throw StoreError.corruptRecord(class: entry.name, rowID: rowID)
            }
            if let live = entry.liveObject(rowID) {
                switch live.pendingChange {
                case .inserted: return
                case .deleted where !includingDeleted: return
                case .none:
                    if !live.hasContent {
                        try fill(live, from: record, key: key, envelopeCipher: envelopeCipher, entry: entry, scratch: &scratch)
                    }
                    try body(live, { live })
                case .updated, .deleted:
                    let copy = try detachedCopy(of: rowID, from: record, key: key, envelopeCipher: envelopeCipher,
                                                entry: entry, scratch: &scratch)
                    try body(copy, { live })
                }
                return
            }
            let copy = spare ?? entry.type.init()
            spare = copy
            copy.rowID = rowID
            try fill(copy, from: record, key: key, envelopeCipher: envelopeCipher, entry: entry, scratch: &scratch)
            try body(copy) {
                // Adopted: the copy becomes the live instance; the next record gets a new one.
                spare = nil
                copy.attach(to: entry, rowID: rowID)
                entry.remember(copy)
                return copy
            }
        }
    }

    /// Calls `body` with the saved state of each of `rowIDs` that is saved and not deleted in
    /// this unit of work, in the order given, until it returns false. The pages of the objects
    /// not in memory are read in one call to the backend (in place in the mapped file when it
    /// can), not one read per object; ascending rowIDs share their pages' reads.
    internal func forEachSavedState(of rowIDs: [UInt64], entry: ClassEntry,
                                    _ body: (_ view: StoredObject, _ result: StoredObject) throws -> Bool) throws {
        var start = 0
        // Opened (decrypted) pages; not the store's scratch, which a readContent that faults
        // in a neighbour reuses.
        var opened: [UInt8] = []
        var goesOn = true
        // A batch of pages at a time, so that an early stop reads little more than it needs.
        // (The loops below keep their state in locals and pass it inout, not in variables
        // that nested functions capture: those are checked for exclusive access at run time,
        // on every access.)
        while start < rowIDs.count, goesOn {
            // The keys of the pages needed, packed in one buffer; and for each page, where its
            // rowIDs end in `rowIDs` and whether it is read.
            var numbers: [UInt64] = []
            var ends: [(end: Int, isRead: Bool)] = []
            let batchSize = min(Self.pagesPerBatch, rowIDs.count - start)
            numbers.reserveCapacity(batchSize)
            ends.reserveCapacity(batchSize)
            var end = start
            while end < rowIDs.count, ends.count < Self.pagesPerBatch {
                let number = RecordPage.number(of: rowIDs[end])
                var last = end + 1
                while last < rowIDs.count, RecordPage.number(of: rowIDs[last]) == number { last += 1 }
                // Objects in memory need no page (unless changed: their saved copy is decoded).
                let needsPage = rowIDs[end ..< last].contains { rowID in
                    guard let live = entry.liveObject(rowID) else { return true }
                    return live.pendingChange == .updated || (live.pendingChange == .none && !live.hasContent)
                }
                if needsPage { numbers.append(number) }
                ends.append((last, needsPage))
                end = last
            }
            let wanted = RecordPage.keys(forPages: numbers)
            let inPlace = try backend.withValuesInPlace(forKeys: wanted, in: entry.name) { found in
                var pages: [UnsafeRawBufferPointer?] = Array(repeating: nil, count: ends.count)
                var next = 0
                for position in ends.indices where ends[position].isRead {
                    pages[position] = found[next]
                    next += 1
                }
                // Each page is read whole (its checksum or seal) on first touch: its cache lines
                // are asked for a few pages ahead, so that the misses overlap.
                func prefetch(_ position: Int) {
                    guard position < pages.count, let page = pages[position], let base = page.baseAddress else { return }
                    for line in stride(from: 0, to: min(page.count, 4_096), by: 64) { CacheLinePrefetch.request(base + line) }
                }
                for position in 0 ..< Self.pagesAhead { prefetch(position) }
                var pageStart = start
                for position in ends.indices {
                    prefetch(position + Self.pagesAhead)
                    goesOn = try forEachSavedState(of: rowIDs[pageStart ..< ends[position].end], in: pages[position], entry: entry,
                                                   opened: &opened, body)
                    guard goesOn else { return }
                    pageStart = ends[position].end
                }
            }
            if !inPlace {
                var copies: [[UInt8]?] = Array(repeating: nil, count: wanted.count)
                try backend.readValues(forKeys: wanted.arrays, in: entry.name) { position, page in copies[position] = page.map(Array.init) }
                var next = 0
                var pageStart = start
                for position in ends.indices {
                    var copy: [UInt8]?
                    if ends[position].isRead {
                        copy = copies[next]
                        next += 1
                    }
                    let rowIDsOfPage = rowIDs[pageStart ..< ends[position].end]
                    if let copy {
                        goesOn = try copy.withUnsafeBytes { try forEachSavedState(of: rowIDsOfPage, in: $0, entry: entry, opened: &opened, body) }
                    } else {
                        goesOn = try forEachSavedState(of: rowIDsOfPage, in: nil, entry: entry, opened: &opened, body)
                    }
                    guard goesOn else { return }
                    pageStart = ends[position].end
                }
            }
            start = end
        }
    }

    /// Calls `body` with the saved state of each of `rowIDs` (all in one page, `page` as
    /// stored, or nil when not read); returns false when `body` did. The page is opened (its
    /// checksum checked, or decrypted into `opened`) for the first object that needs it, not
    /// again for the others: a range query's objects share pages.
    private func forEachSavedState(of rowIDs: ArraySlice<UInt64>, in page: UnsafeRawBufferPointer?, entry: ClassEntry,
                                   opened: inout [UInt8],
                                   _ body: (_ view: StoredObject, _ result: StoredObject) throws -> Bool) throws -> Bool {
        var isOpen = false
        for rowID in rowIDs {
            guard let (view, result) = try savedState(of: rowID, entry: entry, page: page, scratch: &opened, isOpen: &isOpen) else {
                continue
            }
            guard try body(view, result) else { return false }
        }
        return true
    }

    /// Pages read per call to the backend by ``forEachSavedState(of:entry:_:)``.
    private static let pagesPerBatch = 256
    /// How many pages ahead of the one decoded its cache lines are asked for.
    private static let pagesAhead = 6

    /// The saved state of `rowID` from `page` (its stored page; nil when not read because the
    /// object is in memory, or when there is none), opened into `scratch` unless `isOpen` says
    /// the call before for this page did (then it is, once this returns).
    private func savedState(of rowID: UInt64, entry: ClassEntry, page: UnsafeRawBufferPointer?,
                            scratch opened: inout [UInt8], isOpen: inout Bool) throws -> (view: StoredObject, result: StoredObject)? {
        if let live = entry.liveObject(rowID) {
            switch live.pendingChange {
            case .deleted, .inserted: return nil
            case .none where live.hasContent: return (live, live)
            case .none, .updated: break
            }
        }
        guard let page else { return try savedState(of: rowID, entry: entry) }
        let number = RecordPage.number(of: rowID)
        do {
            let state = try openSavedState(of: rowID, entry: entry, page: page, number: number, scratch: &opened, isOpen: isOpen)
            isOpen = true
            return state
        } catch is RecordPage.Damage {
            throw StoreError.corruptRecord(class: entry.name, rowID: rowID)
        }
    }

    private func openSavedState(of rowID: UInt64, entry: ClassEntry, page: UnsafeRawBufferPointer, number: UInt64,
                                scratch opened: inout [UInt8], isOpen: Bool) throws -> (view: StoredObject, result: StoredObject)? {
        try pageSealing(scope: entry.classID).withOpenedPage(page, number: number, scratch: &opened,
                                                             isOpen: isOpen) { page, envelopeCipher in
            let envelope: UnsafeRawBufferPointer?
            do {
                envelope = try RecordPage.record(of: rowID, in: page)
            } catch {
                throw StoreError.corruptRecord(class: entry.name, rowID: rowID)
            }
            guard let envelope else { return nil }
            return try withUnsafeBytes(of: rowID.bigEndian) { key in
                try withReadScratch { scratch in
                    if let live = entry.liveObject(rowID) {
                        if live.pendingChange == .none {
                            try fill(live, from: envelope, key: key, envelopeCipher: envelopeCipher, entry: entry, scratch: &scratch)
                            return (live, live)
                        }
                        let copy = try detachedCopy(of: rowID, from: envelope, key: key, envelopeCipher: envelopeCipher,
                                                    entry: entry, scratch: &scratch)
                        return (copy, live)
                    }
                    let object = try materialize(rowID: rowID, record: envelope, key: key, envelopeCipher: envelopeCipher,
                                                 entry: entry, scratch: &scratch)
                    return (object, object)
                }
            }
        }
    }
}
