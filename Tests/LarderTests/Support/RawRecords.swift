// RawRecords: object records read and written behind a store's back, as damage or an attacker
// would leave them: straight through the backend, inside the class file's pages. In an
// encrypted store pages are sealed whole: reading opens them with the store's key (to show
// what is inside), writing puts pages unsealed, as someone without the key can (replacing a
// sealed page, which nobody without the key can merge with).

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

    /// Every record's envelope, by rowID (opened from its page when the page is sealed).
    func all() throws -> [UInt64: [UInt8]] {
        var records: [UInt64: [UInt8]] = [:]
        var opened: [UInt8] = []
        try backend.forEachRecord(in: table) { key, page in
            guard let number = RecordPage.number(inKey: key) else { return true }
            try sealing.withOpenedPage(page, number: number, scratch: &opened) { page, _ in
                try RecordPage.forEachRecord(in: page, number: number) { rowID, envelope in
                    records[rowID] = Array(envelope)
                }
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
    /// unsealed pages, merged with the pages as the file holds them; a sealed page is replaced.
    func batch(_ records: [UInt64: [UInt8]] = [:], deleting: [UInt64] = []) throws -> WriteBatch {
        var pending = PendingRecords()
        for (rowID, bytes) in records.sorted(by: { $0.key < $1.key }) {
            bytes.withUnsafeBytes { pending.add(envelope: $0, rowID: rowID) }
        }
        for rowID in deleting { pending.delete(rowID: rowID) }
        let sealedPages = try Set(pages().filter { $0.value.first == PageSeal.format }.keys)
        var batch = WriteBatch()
        _ = try pending.writePages(of: table, to: &batch, from: backend) { !sealedPages.contains($0) }
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
