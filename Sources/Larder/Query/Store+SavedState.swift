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
            let copy = entry.type.init()
            copy.rowID = rowID
            try withReadScratch { try fill(copy, from: envelope, key: key, envelopeCipher: envelopeCipher, entry: entry, scratch: &$0) }
            return copy
        }
    }

    /// Calls `body` with the saved state of every saved object of the class that is not deleted
    /// in this unit of work (or deleted too, `includingDeleted`): the object to test and a function that gives the instance to
    /// return. Objects not in memory are decoded into one reused copy, which becomes the live
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
                    let copy = entry.type.init()
                    copy.rowID = rowID
                    try fill(copy, from: record, key: key, envelopeCipher: envelopeCipher, entry: entry, scratch: &scratch)
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
                copy.attach(to: self, entry: entry, rowID: rowID)
                entry.remember(copy)
                return copy
            }
        }
    }
}
