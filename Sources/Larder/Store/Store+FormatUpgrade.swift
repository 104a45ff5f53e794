// Format upgrade: a store written by an older Larder is brought to the current format when a
// writer opens it, in one journaled batch (all of it, or none of it after a crash).
//
// Formats 1 and 2 kept one Tokyo Cabinet record per object, under its 8-byte rowID key;
// format 3 groups them into pages (RecordPage); format 4 seals an encrypted store's pages
// whole (PageSeal). A plaintext store's envelopes are moved as they are; an encrypted store's
// are opened and their contents sealed in pages.

extension Store {
    /// The format in which class files hold one record per object.
    static let lastFormatWithoutPages: UInt64 = 2
    /// The format from which a plaintext store's pages are checksummed whole.
    static let firstFormatWithCheckedPages: UInt64 = 5

    /// Adds to `batch` the move of every record of every class file in the registry from its
    /// rowID key into its page (checked or sealed whole, as the store writes pages).
    internal func addUpgradeToPages(to batch: inout WriteBatch) throws {
        for (name, record) in records.sorted(by: { $0.key < $1.key }) {
            var pending = PendingRecords()
            let sealing = pageSealing(scope: record.classID)
            var oldKeys: [UInt64] = []
            try backend.forEachRecord(in: name) { key, value in
                // Other keys (a page, damage) are left where they are, for verify() to report.
                guard let rowID = RowIDKey.rowID(in: key) else { return true }
                try add(value, key: key, rowID: rowID, openingWith: cipher, to: &pending, sealing: sealing)
                oldKeys.append(rowID)
                return true
            }
            for rowID in oldKeys {
                batch.removeValue(forKey: RowIDKey.bytes(rowID), in: name)
            }
            _ = try pending.writePages(of: name, to: &batch, from: backend, reading: sealing) { _ in false }
        }
    }

    /// Adds to `batch` every page of the class file `table` that is not written whole as the
    /// store writes pages yet: sealed with the store's cipher (records encrypted one by one in
    /// format 3, or plaintext ones when encryption is turned on), or checksummed whole in a
    /// plaintext store (records checksummed one by one before format 5). A page that does not
    /// parse is left as it is, for ``verify()`` to report.
    internal func addPagesWrittenWhole(ofClassFile table: String, scope: UInt64, readingWith readCipher: RecordCipher?,
                                       to batch: inout WriteBatch) throws {
        let writing = pageSealing(scope: scope)
        let reading = PageSealing(cipher: readCipher, scope: scope, checksPages: true)
        var opened: [UInt8] = []
        var pending = PendingRecords()
        var rewritten: Set<UInt64> = []
        try backend.forEachRecord(in: table) { key, stored in
            guard let number = RecordPage.number(inKey: key), PageSealing.Kind(of: stored) != writing.kind else { return true }
            var pagePending = PendingRecords()
            do {
                try reading.withOpenedPage(stored, number: number, scratch: &opened) { page, envelopeCipher in
                    try RecordPage.forEachRecord(in: page, number: number) { rowID, envelope in
                        try withUnsafeBytes(of: rowID.bigEndian) { key in
                            try add(envelope, key: key, rowID: rowID, openingWith: envelopeCipher, to: &pagePending, sealing: writing)
                        }
                    }
                }
            } catch is RecordPage.Damage {
                return true
            }
            pending.append(pagePending)
            rewritten.insert(number)
            return true
        }
        _ = try pending.writePages(of: table, to: &batch, from: backend, reading: reading, writing: writing) {
            rewritten.contains($0)
        }
    }

    /// Adds the record `envelope` of `rowID` to `pending` as `sealing` writes it: opened with
    /// `cipher` and put in a plain envelope for a page written whole. A record that does not
    /// open is kept as it is: inside a page written whole it still reads as damaged, nothing is
    /// lost or made up.
    private func add(_ envelope: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, rowID: UInt64,
                     openingWith cipher: RecordCipher?, to pending: inout PendingRecords, sealing: PageSealing) throws {
        guard sealing.writesWholePages else { return pending.add(envelope: envelope, rowID: rowID) }
        guard let content = try? RecordEnvelope.open(envelope, key: key, cipher: cipher, scope: sealing.scope) else {
            return pending.add(envelope: envelope, rowID: rowID)
        }
        do {
            try pending.seal(rowID: rowID, version: content.versionOfData, content: content.bytes, for: sealing)
        } catch {
            throw StoreError.encryptionFailure(reason: "\(error)")
        }
    }
}
