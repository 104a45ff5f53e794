// RawRecords: object records read and written behind a store's back, as damage or an attacker
// would leave them: straight through the backend, inside the class file's pages. Pages are
// sealed (encrypted store) or checksummed (plaintext) whole: reading opens them (with the
// store's key, to show what is inside), writing puts pages unsealed, with records in envelopes
// of their own, as format 4 wrote them (replacing a page written whole rather than merging).

@testable import Larder

/// The records of one class file, as bytes.
struct RawRecords {
    let backend: any Backend
    let table: String
    /// Told to forget what it cached of the files after a write.
    var store: Store?
    /// Opens sealed pages for reading: the store's key and the class's scope.
    var sealing = PageSealing.unsealed

    init(_ store: Store, _ table: String) {
        self.backend = store.backend
        self.table = table
        self.store = store
        sealing = store.pageSealing(scope: store.records[table]?.classID ?? 0)
    }

    init(backend: any Backend, table: String) {
        self.backend = backend
        self.table = table
    }

    /// The envelope of `rowID`'s record, or nil.
    func record(_ rowID: UInt64) throws -> [UInt8]? {
        try all()[rowID]
    }

    /// Every record's envelope, by rowID (opened from its page when the page is written whole).
    func all() throws -> [UInt64: [UInt8]] {
        try envelopes(skippingUnreadablePages: false)
    }

    /// The records of every page that opens (a sealed page does not, without the key), or
    /// with `skippingUnreadablePages` false, of every page.
    private func envelopes(skippingUnreadablePages: Bool) throws -> [UInt64: [UInt8]] {
        var records: [UInt64: [UInt8]] = [:]
        var opened: [UInt8] = []
        try backend.forEachRecord(in: table) { key, page in
            guard let number = RecordPage.number(inKey: key) else { return true }
            do {
                try sealing.withOpenedPage(page, number: number, scratch: &opened) { page, _ in
                    try RecordPage.forEachRecord(in: page, number: number) { rowID, envelope in
                        records[rowID] = Array(envelope)
                    }
                }
            } catch is RecordPage.Damage where skippingUnreadablePages {
                return true
            }
            return true
        }
        return records
    }

    /// Every page of the file as stored (sealed or not), by page number.
    func pages() throws -> [UInt64: [UInt8]] {
        var pages: [UInt64: [UInt8]] = [:]
        try backend.forEachRecord(in: table) { key, page in
            if let number = RecordPage.number(inKey: key) { pages[number] = Array(page) }
            return true
        }
        return pages
    }

    /// Puts `bytes` as page `number`, as they are.
    func putPage(_ bytes: [UInt8], number: UInt64) throws {
        var batch = WriteBatch()
        batch.put(bytes, forKey: RecordPage.key(forPage: number), in: table)
        try backend.apply(batch)
        store?.forgetCachedFileState()
    }

    /// The batch that puts `records` (envelopes, as they are) and deletes `deleting` in
    /// unsealed pages, merged with the pages as the file holds them; a page sealed or checked
    /// whole is replaced by an unsealed one with its records.
    func batch(_ records: [UInt64: [UInt8]] = [:], deleting: [UInt64] = []) throws -> WriteBatch {
        var pending = PendingRecords()
        let wholePages = try Set(pages().filter { page in page.value.withUnsafeBytes { PageSealing.Kind(of: $0) != .unsealed } }.keys)
        // A page written whole is rewritten unsealed: the records it holds first (those of a
        // sealed page are readable only with the key), then the changes, which win.
        let touched = Set((Array(records.keys) + deleting).map(RecordPage.number(of:))).intersection(wholePages)
        for (rowID, bytes) in try envelopes(skippingUnreadablePages: true).sorted(by: { $0.key < $1.key })
        where touched.contains(RecordPage.number(of: rowID)) {
            bytes.withUnsafeBytes { pending.add(envelope: $0, rowID: rowID) }
        }
        for (rowID, bytes) in records.sorted(by: { $0.key < $1.key }) {
            bytes.withUnsafeBytes { pending.add(envelope: $0, rowID: rowID) }
        }
        for rowID in deleting { pending.delete(rowID: rowID) }
        var batch = WriteBatch()
        _ = try pending.writePages(of: table, to: &batch, from: backend) { !wholePages.contains($0) }
        return batch
    }

    /// Applies ``batch(_:deleting:)`` to the files.
    func write(_ records: [UInt64: [UInt8]] = [:], deleting: [UInt64] = []) throws {
        try backend.apply(batch(records, deleting: deleting))
        store?.forgetCachedFileState()
    }

    /// `content` in a checksummed envelope (format 02) for `rowID`, as a store without a key
    /// writes it.
    static func sealed(_ content: DataBuffer, rowID: UInt64, version: UInt8 = 1) throws -> [UInt8] {
        var bytes = RowIDKey.bytes(rowID)
        try RecordEnvelope.append(version: version, content: content.bytes, to: &bytes, keyStart: 0, cipher: nil, scope: 0)
        return Array(bytes[RowIDKey.size...])
    }
}
