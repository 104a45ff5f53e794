// DocumentTable: where a collection's documents live. Like Larder's class files, the table
// holds one Tokyo Cabinet record per page of consecutive rowIDs (RecordPage; 128 a page since
// format 3, 32 in format 2; since format 4 with a directory of the page's entries), each
// document in its own checksummed DocumentRecord inside, so an insert of many documents puts a
// page at a time, a read of neighbouring rowIDs (an index range) gets each page once, through
// a one-page cache, and a read of one document jumps to it in its page.

import Larder

extension PageLayout {
    /// Collections of format 3: 128 rowIDs per page. A big find reads every page once, and
    /// each page costs a Tokyo Cabinet call besides its bytes.
    static let documents = PageLayout(slotBits: 7)
    /// Collections of format 4 and 5: pages of 128 rowIDs with a directory, so that the 20 rows of
    /// an ordered find with a limit, each in another page, are read without walking pages.
    static let indexedDocuments = PageLayout(slotBits: 7, hasDirectory: true)
}

/// The pages of one collection's documents.
struct DocumentTable {
    /// Up to this many records wanted from one page are read through its directory; more, in
    /// one walk of the page.
    static let recordsReadThroughDirectory = 16
    let backend: SharedBackend
    /// The table's name: the collection's.
    let name: String
    /// How its rowIDs are grouped into pages.
    let layout: PageLayout
    /// The store's cipher, in an encrypted store.
    let cipher: DocumentCipher?
    private var cache = PageCache()
    /// The key sets of the documents read through this table (on the collection's thread).
    let shapes = ObjectShapes()
    /// The number of documents, counted on first use and kept up to date by commits.
    private var documentCount: Int?

    init(backend: SharedBackend, name: String, layout: PageLayout, cipher: DocumentCipher?) {
        self.backend = backend
        self.name = name
        self.layout = layout
        self.cipher = cipher
    }

    /// The key a document's record is checksummed with: its 8-byte big-endian rowID.
    static func recordKey(_ rowID: Int64) -> [UInt8] {
        RowIDKey.bytes(UInt64(bitPattern: rowID))
    }

    /// The stored document `rowID` (with its `"__rowid__"`), or nil.
    mutating func document(_ rowID: Int64) throws -> JSON? {
        try readPage(of: rowID)
        return try withRecord(rowID) { try open($0, rowID: rowID) }
    }

    /// The key values of each of `indexes`, one index after another, in the stored document
    /// `rowID`, read through `paths` (made for `indexes`) without decoding the document whole;
    /// nil when there is no such document.
    mutating func keyValues(of rowID: Int64, paths: IndexKeyPaths, indexes: [IndexDefinition], defaults: JSON) throws -> [JSON]? {
        try readPage(of: rowID)
        return try withRecord(rowID) { record in
            try Self.withContent(of: record, rowID: rowID, collection: name, cipher: cipher) { content in
                try paths.keyValues(ofStored: content, rowID: rowID, indexes: indexes, defaults: defaults)
            }
        }
    }

    /// Puts the page of `rowID` in the one-page cache, unless it is there.
    private mutating func readPage(of rowID: Int64) throws {
        guard rowID > 0 else { return }
        let number = layout.number(of: UInt64(rowID))
        if !cache.holds(number) {
            try backend.readValue(forKey: RecordPage.key(forPage: number), in: name) { bytes in
                cache.store(bytes, as: number)
            }
        }
    }

    /// Calls `body` with the stored record of `rowID` in the cached page (``readPage(of:)``);
    /// nil when there is none.
    private func withRecord<Result>(_ rowID: Int64, _ body: (UnsafeRawBufferPointer) throws -> Result) throws -> Result? {
        guard rowID > 0, cache.holds(layout.number(of: UInt64(rowID))) else { return nil }
        return try cache.bytes.withUnsafeBytes { page -> Result? in
            guard !page.isEmpty else { return nil }
            let record = try readingPage { try RecordPage.record(of: UInt64(rowID), in: page, layout: layout) }
            return try record.map(body)
        }
    }

    /// Calls `body` with the number and bytes of every page, in storage order, until it
    /// returns false; a key that is not a page's or a page that does not parse is
    /// `DocumentError.corruptDocument`.
    private func forEachPage(_ body: (UInt64, UnsafeRawBufferPointer) throws -> Bool) throws {
        try backend.forEachRecord(in: name) { key, page in
            guard let number = RecordPage.number(inKey: key) else { throw notAPageKey() }
            return try readingPage { try body(number, page) }
        }
    }

    /// The error for a record of the table whose key is not a page's.
    private func notAPageKey() -> DocumentError {
        DocumentError.corruptDocument(collection: name, rowID: 0, reason: "a key is not a page key")
    }

    /// Runs `body`, which parses a page, reporting damage as `DocumentError.corruptDocument`
    /// with the page's first rowID.
    private func readingPage<Result>(_ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch let damage as RecordPage.Damage {
            throw DocumentError.corruptDocument(collection: name, rowID: Int64(damage.firstRowID), reason: "damaged page")
        }
    }

    /// Calls `body` with the rowID and stored record of every document, page by page (pages
    /// in storage order), until it returns false; `open` decodes a record.
    func forEachRecord(_ body: (Int64, UnsafeRawBufferPointer) throws -> Bool) throws {
        try forEachPage { number, page in
            var goesOn = true
            try RecordPage.forEachRecord(in: page, number: number, layout: layout) { rowID, record in
                if goesOn { goesOn = try body(Int64(bitPattern: rowID), record) }
            }
            return goesOn
        }
    }

    /// The document in a stored record of `rowID`, with its `"__rowid__"`.
    func open(_ record: UnsafeRawBufferPointer, rowID: Int64) throws -> JSON {
        try Self.open(record, rowID: rowID, collection: name, cipher: cipher, shapes: shapes)
    }

    /// The document in a stored record of `rowID` of `collection` (sealed with `cipher` in
    /// an encrypted store), with its `"__rowid__"`; `shapes` are the key sets this thread has
    /// decoded before.
    static func open(_ record: UnsafeRawBufferPointer, rowID: Int64, collection: String, cipher: DocumentCipher?,
                     shapes: ObjectShapes? = nil) throws -> JSON {
        try withContent(of: record, rowID: rowID, collection: collection, cipher: cipher) {
            try JSONBinary.decode($0, addingRowID: rowID, shapes: shapes)
        }
    }

    /// Calls `body` with the content (JSONBinary) of a stored record of `rowID` of
    /// `collection`, checked or opened with `cipher`; damage, there or where `body` reads,
    /// is `DocumentError.corruptDocument`.
    private static func withContent<Result>(of record: UnsafeRawBufferPointer, rowID: Int64, collection: String,
                                            cipher: DocumentCipher?, _ body: (UnsafeRawBufferPointer) throws -> Result) throws -> Result {
        do {
            var key = (UInt64(bitPattern: rowID)).bigEndian
            return try withUnsafeBytes(of: &key) {
                try DocumentRecord.withContent(record, key: $0, cipher: cipher, scope: collection, body)
            }
        } catch let failure as JSONBinary.DecodingFailure {
            throw DocumentError.corruptDocument(collection: collection, rowID: rowID, reason: failure.reason)
        }
    }

    /// The stored records of `rowIDs` (ascending and distinct; those not stored are left out),
    /// in rowID order across the batches returned. When many of the `pageBound` pages hold
    /// one, one scan of every page (a fraction of the cost of a Tokyo Cabinet read per page)
    /// beats reading them one by one.
    func records(of rowIDs: [Int64], pageBound: Int) throws -> [CopiedRecords] {
        var batch = CopiedRecords()
        guard let last = rowIDs.last, last > 0 else { return [batch] }
        let wantedRowIDs = rowIDs.drop { $0 <= 0 }
        // Each page's rowIDs are consecutive in `wantedRowIDs`.
        var pageCount = 0
        var previous = UInt64.max
        for rowID in wantedRowIDs where layout.number(of: UInt64(rowID)) != previous {
            previous = layout.number(of: UInt64(rowID))
            pageCount += 1
        }
        if pageCount * 4 < pageBound {
            batch.reserveCapacity(records: rowIDs.count)
            try readPages(of: wantedRowIDs, into: &batch)
            return [batch]
        }
        // One bit per rowID wanted, and the pages that hold one.
        var wanted = [UInt64](repeating: 0, count: Int(last >> 6) + 1)
        var pageIsWanted = [Bool](repeating: false, count: Int(layout.number(of: UInt64(last))) + 1)
        for rowID in wantedRowIDs {
            wanted[Int(rowID >> 6)] |= 1 << UInt64(rowID & 63)
            pageIsWanted[Int(layout.number(of: UInt64(rowID)))] = true
        }
        let picker = PagePicker(wanted: wanted, layout: layout)
        let wantedPages = pageIsWanted
        // Read in place, the pages are picked on every core, in page order.
        var batches: [CopiedRecords] = []
        let inPlace = try backend.withRecordsInPlace(in: name) { records in
            var pages: [(number: Int, page: UnsafeRawBufferPointer)] = []
            for (key, value) in records {
                guard let number = RecordPage.number(inKey: key) else { throw notAPageKey() }
                if number < UInt64(wantedPages.count), wantedPages[Int(number)] { pages.append((Int(number), value)) }
            }
            pages.sort { $0.number < $1.number }
            batches = try readingPage { try picker.pick(pages, records: rowIDs.count) }
        }
        if inPlace { return batches }
        batch.reserveCapacity(records: rowIDs.count)
        // Else pages come in storage order: note where each page's records went, then put
        // the spans in page order.
        var visited: [(number: Int, start: Int, end: Int)] = []
        try forEachPage { pageNumber, page in
            let number = Int(pageNumber)
            guard number < wantedPages.count, wantedPages[number] else { return true }
            let start = batch.spans.count
            try picker.pick(page, number: number, into: &batch)
            visited.append((number, start, batch.spans.count))
            return true
        }
        visited.sort { $0.number < $1.number }
        let spans = batch.spans
        batch.spans = visited.flatMap { spans[$0.start ..< $0.end] }
        return [batch]
    }

    /// Adds to `batch` the records of `rowIDs` (ascending, positive), reading their pages one
    /// by one. A few wanted records are found one by one, through the page's directory (a page
    /// without directory is walked up to the record); more are picked out in one walk of the
    /// whole page.
    private func readPages(of rowIDs: ArraySlice<Int64>, into batch: inout CopiedRecords) throws {
        // Each page's key (packed in one buffer), and where its rowIDs end in `rowIDs`; then
        // every page read in one call.
        var numbers: [UInt64] = []
        var ends: [Int] = []
        var start = rowIDs.startIndex
        while start < rowIDs.endIndex {
            let number = layout.number(of: UInt64(rowIDs[start]))
            var end = start + 1
            while end < rowIDs.endIndex, layout.number(of: UInt64(rowIDs[end])) == number { end += 1 }
            numbers.append(number)
            ends.append(end)
            start = end
        }
        let keys = RecordPage.keys(forPages: numbers)
        let inPlace = try backend.withValuesInPlace(forKeys: keys, in: name) { pages in
            prefetchRecords(of: rowIDs, ends: ends, in: pages)
            var start = rowIDs.startIndex
            for position in ends.indices {
                try pick(rowIDs[start ..< ends[position]], from: pages[position], into: &batch)
                start = ends[position]
            }
        }
        if inPlace { return }
        try backend.readValues(forKeys: keys.arrays, in: name) { position, page in
            guard let page else { return }
            try pick(rowIDs[(position == 0 ? rowIDs.startIndex : ends[position - 1]) ..< ends[position]], from: page, into: &batch)
        }
    }

    /// Asks for the entries of the records a page read through its directory will read:
    /// first their directory offsets, then the entries these name, so that the misses of
    /// all the pages overlap. Page `position` of `pages` holds `rowIDs` up to `ends[position]`.
    private func prefetchRecords(of rowIDs: ArraySlice<Int64>, ends: [Int], in pages: UnsafeBufferPointer<UnsafeRawBufferPointer>) {
        guard layout.hasDirectory, pages.count > 1 else { return }
        for phase in 0 ..< 2 {
            var start = rowIDs.startIndex
            for position in ends.indices {
                defer { start = ends[position] }
                guard ends[position] - start <= Self.recordsReadThroughDirectory else { continue }
                for rowID in rowIDs[start ..< ends[position]] {
                    if phase == 0 {
                        RecordPage.prefetchDirectoryOffset(of: UInt64(rowID), in: pages[position], layout: layout)
                    } else {
                        RecordPage.prefetchEntry(of: UInt64(rowID), in: pages[position], layout: layout)
                    }
                }
            }
        }
    }

    /// Adds to `batch` the records of `wanted` (ascending rowIDs of one page) in `page`: one
    /// by one through the page's directory when few are wanted, else in one walk.
    private func pick(_ wanted: ArraySlice<Int64>, from page: UnsafeRawBufferPointer, into batch: inout CopiedRecords) throws {
        try readingPage {
            if wanted.count == 1 || (layout.hasDirectory && wanted.count <= Self.recordsReadThroughDirectory) {
                for rowID in wanted {
                    let record = try RecordPage.record(of: UInt64(rowID), in: page, layout: layout)
                    if let record { batch.append(record, rowID: rowID) }
                }
                return
            }
            let number = layout.number(of: UInt64(wanted[wanted.startIndex]))
            var next = wanted.startIndex
            try RecordPage.forEachRecord(in: page, number: number, layout: layout) { rowID, record in
                while next < wanted.endIndex, UInt64(wanted[next]) < rowID { next += 1 }
                if next < wanted.endIndex, UInt64(wanted[next]) == rowID { batch.append(record, rowID: Int64(rowID)) }
            }
        }
    }

    /// The number of documents.
    mutating func count() throws -> Int {
        if let documentCount { return documentCount }
        var count = 0
        try forEachPage { number, page in
            count += try RecordPage.recordCount(in: page, number: number, layout: layout)
            return true
        }
        documentCount = count
        return count
    }

    /// Adds to `batch` the pages `records` changes; returns how many documents the table
    /// gains. Pages of rowIDs from `firstNewRowID` on (never handed out before this write) are
    /// not read.
    func write(_ records: PendingRecords, firstNewRowID: Int64, into batch: inout WriteBatch) throws -> Int {
        do {
            // A page holding a rowID handed out before may have been written.
            return try backend.writePages(records, of: name, into: &batch) { number in
                layout.firstRowID(ofPage: number) < UInt64(max(firstNewRowID, 0))
            }
        } catch let StoreError.corruptRecord(_, rowID) {
            throw DocumentError.corruptDocument(collection: name, rowID: Int64(bitPattern: rowID), reason: "damaged page")
        }
    }

    /// Forgets the cached page (the table is about to change), and after a commit counts the
    /// documents it added (`gained`; nil: unknown, count again).
    mutating func didWrite(gained: Int?) {
        cache.invalidate()
        if let gained, let documentCount { self.documentCount = documentCount + gained } else { documentCount = nil }
    }
}
