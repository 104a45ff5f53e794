// PendingRecords: the records one save writes to one class file, in their envelopes, then
// grouped into pages (RecordPage): each page touched gets one put (or a delete, when its last
// record goes), merged with the page as the file holds it, and checked or sealed whole
// (PageSealing).

/// The sealed records and deletions of one class in one save.
package struct PendingRecords {
    /// How the table groups rowIDs into pages.
    package let layout: PageLayout

    package init(layout: PageLayout = .objects) {
        self.layout = layout
    }

    /// A record to write (`envelopeCount >= 0`) or a rowID to delete (`envelopeCount == -1`).
    private struct Change {
        var rowID: UInt64
        var envelopeStart: Int
        var envelopeCount: Int
    }

    /// Each record as `[8-byte rowID key][envelope]`: the envelope's checksum covers the key
    /// before it.
    private var bytes: [UInt8] = []
    private var changes: [Change] = []
    private var isSorted = true
    /// How many records the save is expected to seal (``expect(records:)``), until the first.
    private var expectedRecords = 0

    /// Reserves room for `count` records, so that a large save grows its arrays once instead
    /// of doubling them (and faulting in their pages again) twenty times: the changes now,
    /// the bytes at the first record, from its size. A hint: more or fewer may follow.
    package mutating func expect(records count: Int) {
        guard changes.isEmpty, count > 1 else { return }
        changes.reserveCapacity(count)
        expectedRecords = count
    }

    /// True when nothing is pending.
    package var isEmpty: Bool { changes.isEmpty }

    /// Adds `content` in the envelope `sealing` writes (plain inside a page checked or sealed
    /// whole, checksummed in an unsealed one) as the record of `rowID`.
    mutating func seal(rowID: UInt64, version: UInt8, content: [UInt8], for sealing: PageSealing) throws(RecordEnvelope.Failure) {
        let keyStart = bytes.count
        if expectedRecords > 0 {
            // A quarter more than the first record's size (up to a kilobyte) for each: longer
            // ones do not regrow the bytes, and pages never written do not count.
            bytes.reserveCapacity(expectedRecords * (RowIDKey.size + 16 + min(content.count, 1024)) * 5 / 4)
            expectedRecords = 0
        }
        RowIDKey.append(rowID, to: &bytes)
        do {
            try sealing.appendEnvelope(version: version, content: content, to: &bytes, keyStart: keyStart)
        } catch {
            bytes.removeSubrange(keyStart...)
            throw error
        }
        add(Change(rowID: rowID, envelopeStart: keyStart + RowIDKey.size,
                   envelopeCount: bytes.count - keyStart - RowIDKey.size))
    }

    /// Adds `envelope` as it is as the record of `rowID` (a record copied from a file).
    package mutating func add(envelope: UnsafeRawBufferPointer, rowID: UInt64) {
        let start = bytes.count
        bytes.appendBytes(envelope)
        add(Change(rowID: rowID, envelopeStart: start, envelopeCount: envelope.count))
    }

    /// Adds every change of `other` after this one's.
    package mutating func append(_ other: PendingRecords) {
        let offset = bytes.count
        bytes.append(contentsOf: other.bytes)
        for change in other.changes {
            add(Change(rowID: change.rowID, envelopeStart: change.envelopeCount >= 0 ? change.envelopeStart + offset : 0,
                       envelopeCount: change.envelopeCount))
        }
    }

    /// Adds the deletion of `rowID`'s record.
    package mutating func delete(rowID: UInt64) {
        add(Change(rowID: rowID, envelopeStart: 0, envelopeCount: -1))
    }

    private mutating func add(_ change: Change) {
        if let last = changes.last, last.rowID >= change.rowID { isSorted = false }
        changes.append(change)
    }

    /// Adds to `batch` one put or delete of each page of `table` that the changes touch.
    ///
    /// `pageMayExist(number)` says whether the file may hold the page already (a record of it
    /// was saved before): such a page is read from `backend`, opened with `reading`, and
    /// merged; others are written as new. Pages are written with `writing` (by default
    /// `reading`; a rekey reads with the old key and writes with the new). Returns how many
    /// records the file gains (negative when it loses some). Throws
    /// ``StoreError/corruptRecord(class:rowID:)`` (with the page's first rowID) when a page to
    /// merge with does not parse or open, or would carry a record over into a page of another
    /// kind (unsealed, checked or sealed whole: PageSealing.Kind).
    package func writePages(of table: String, to batch: inout WriteBatch, from backend: any Backend,
                            reading: PageSealing = .unsealed, writing: PageSealing? = nil,
                            pageMayExist: (UInt64) -> Bool) throws -> Int {
        let writing = writing ?? reading
        var opened: [UInt8] = []
        var sealingScratch: [UInt8] = []
        // Stable: when a rowID appears twice, the later change wins.
        let ordered = isSorted ? changes : changes.enumerated()
            .sorted { ($0.element.rowID, $0.offset) < ($1.element.rowID, $1.offset) }.map(\.element)
        var page: [UInt8] = []
        // A page's entries, written in place and appended to `page` in one copy.
        var entries = ByteRoom(capacity: 4096)
        var gained = 0
        try bytes.withUnsafeBytes { all in
            var start = 0
            while start < ordered.count {
                let number = layout.number(of: ordered[start].rowID)
                var end = start + 1
                while end < ordered.count, layout.number(of: ordered[end].rowID) == number { end += 1 }
                let key = RecordPage.key(forPage: number)
                page.removeAll(keepingCapacity: true)
                var before = 0
                var after = 0
                let mayExist = pageMayExist(number)
                do {
                    if mayExist {
                        try backend.readValue(forKey: key, in: table) { stored in
                            guard let stored else {
                                (before, after) = try merge(nil, number: number, ordered[start ..< end], all, into: &page, entries: &entries,
                                                            mayCarryOver: true)
                                return
                            }
                            // Envelopes are copied as they are: only into a page of the same kind.
                            let mayCarryOver = PageSealing.Kind(of: stored) == writing.kind
                            try reading.withOpenedPage(stored, number: number, scratch: &opened, layout: layout) { existing, _ in
                                (before, after) = try merge(existing, number: number, ordered[start ..< end], all, into: &page, entries: &entries,
                                                            mayCarryOver: mayCarryOver)
                            }
                        }
                    } else {
                        (before, after) = try merge(nil, number: number, ordered[start ..< end], all, into: &page, entries: &entries,
                                                    mayCarryOver: true)
                    }
                } catch let damage as RecordPage.Damage {
                    throw StoreError.corruptRecord(class: table, rowID: damage.firstRowID)
                }
                if after > 0 {
                    try writing.seal(&page, number: number, scratch: &sealingScratch)
                    let isNew = !mayExist
                    key.withUnsafeBytes { key in
                        page.withUnsafeBytes { value in
                            batch.put(value, forKey: key, in: table, isNew: isNew)
                        }
                    }
                } else if before > 0 {
                    batch.removeValue(forKey: key, in: table)
                }
                gained += after - before
                start = end
            }
        }
        return gained
    }

    /// Writes page `number` into `page`: the records of `existing` (nil: none) with `changes`
    /// applied. Returns the record counts before and after; after 0, `page` is to be deleted.
    /// Without `mayCarryOver`, a record of `existing` that no change replaces is damage (its
    /// envelope is of the other kind of page).
    private func merge(_ existing: UnsafeRawBufferPointer?, number: UInt64, _ changes: ArraySlice<Change>,
                       _ all: UnsafeRawBufferPointer, into page: inout [UInt8], entries: inout ByteRoom,
                       mayCarryOver: Bool) throws -> (Int, Int) {
        let layout = layout
        var reader = try existing.map { page throws(RecordPage.Damage) in
            try RecordPage.Reader(page: page, firstRowID: layout.firstRowID(ofPage: number), layout: layout)
        }
        var current = try reader?.next()
        var before = current == nil ? 0 : 1
        var after = 0
        var length = 0
        var index = changes.startIndex
        while index < changes.endIndex || current != nil {
            let changeSlot = index < changes.endIndex ? layout.slot(of: changes[index].rowID) : Int.max
            if let (slot, envelope) = current, slot < changeSlot {
                guard mayCarryOver else { throw RecordPage.Damage(firstRowID: layout.firstRowID(ofPage: number)) }
                RecordPage.writeEntry(slot: slot, envelope: envelope, into: &entries, at: &length)
                after += 1
                current = try reader?.next()
                if current != nil { before += 1 }
                continue
            }
            // The last change of this slot wins; it replaces the file's record of the slot.
            while index + 1 < changes.endIndex, layout.slot(of: changes[index + 1].rowID) == changeSlot { index += 1 }
            let change = changes[index]
            index += 1
            if let (slot, _) = current, slot == changeSlot {
                current = try reader?.next()
                if current != nil { before += 1 }
            }
            if change.envelopeCount >= 0 {
                let envelope = UnsafeRawBufferPointer(rebasing: all[change.envelopeStart ..< change.envelopeStart + change.envelopeCount])
                RecordPage.writeEntry(slot: changeSlot, envelope: envelope, into: &entries, at: &length)
                after += 1
            }
        }
        RecordPage.beginPage(in: &page, layout: layout)
        page.appendBytes(entries.bytes(length))
        RecordPage.finishPage(&page, layout: layout)
        return (before, after)
    }
}
