// Format upgrade: a store written by an older Larder is brought to the current format when a
// writer opens it, in one journaled batch (all of it, or none of it after a crash).
//
// Formats 1 and 2 kept one Tokyo Cabinet record per object, under its 8-byte rowID key;
// format 3 groups them into pages (RecordPage). The envelopes are moved as they are: nothing
// is decoded, decrypted or re-encrypted.

extension Store {
    /// The format in which class files hold one record per object.
    static let lastFormatWithoutPages: UInt64 = 2

    /// Adds to `batch` the move of every record of every class file in the registry from its
    /// rowID key into its page.
    internal func addUpgradeToPages(to batch: inout WriteBatch) throws {
        for name in records.keys.sorted() {
            var pending = PendingRecords()
            var oldKeys: [UInt64] = []
            try backend.forEachRecord(in: name) { key, value in
                // Other keys (a page, damage) are left where they are, for verify() to report.
                guard let rowID = RowIDKey.rowID(in: key) else { return true }
                pending.add(envelope: value, rowID: rowID)
                oldKeys.append(rowID)
                return true
            }
            for rowID in oldKeys {
                batch.removeValue(forKey: RowIDKey.bytes(rowID), in: name)
            }
            _ = try pending.writePages(of: name, to: &batch, from: backend) { _ in false }
        }
    }
}
