// The interchange import: an interchange file (docs/INTERCHANGE.md) read into an empty store,
// each class with its exact class ID, next rowID and deleted rowIDs, each object with its rowID
// and version, each named buffer. Two passes over the file keep memory flat and the target safe:
// the first checks everything (InterchangeFileReader) and writes nothing; the second writes the
// class files' pages in batches of about 64K records, sealed with the target's key, and the
// registry and named buffers in the last batch. Until that last batch the store has no registry
// entry for the imported classes, so nothing imported is visible; pages left by an import whose
// writing failed before its last batch are removed by the next import, before it writes.

import Foundation

extension Store {
    /// How many records a batch of an import writes, about (whole pages only).
    internal static let importBatchRecords = 1 << 16

    /// Reads an interchange file written by ``exportInterchange(to:)`` into this store, which
    /// must be empty (no class registered or saved, no named buffer): every class keeps its
    /// class ID, next rowID and deleted rowIDs, every object its rowID and version, so
    /// references inside records stay true. Register the Swift classes after the import: their
    /// object indexes are built from the imported objects then; a full-text index is built by
    /// ``rebuildTextIndex(of:)``. History and the change log are not imported, and the import
    /// publishes no ``StoreChange``.
    ///
    /// The file is read twice: first checked whole, then written. Bad input throws an
    /// ``InterchangeError`` with its position (malformed JSON, an unknown class, a duplicate
    /// rowID, a dangling reference, missing objects, …) and leaves the store unchanged; a store
    /// that is not empty throws ``InterchangeError/targetNotEmpty(reason:)``. The records are
    /// written in batches of about 65,536, then the registry and named buffers in a last batch
    /// that makes them visible: a storage failure on the way leaves the store as empty as it was
    /// (the pages written are invisible, and the next import removes them) or, when the last
    /// batch is rolled forward at the next open, imported whole. Memory stays flat for any
    /// number of objects. In an encrypted store every record is sealed with the store's key.
    ///
    /// `progress`, when given, is called as the import goes: every 65,536 objects while
    /// checking, after every batch while writing, and at the end of each pass.
    ///
    /// ```swift
    /// let copy = try Store(path: "/tmp/copy.larder")
    /// try copy.importInterchange(from: URL(fileURLWithPath: "/tmp/music.json"))
    /// try copy.register(Song.self)
    /// ```
    public func importInterchange(from url: URL, progress: ((InterchangeProgress) -> Void)? = nil) throws {
        let path = url.path
        try importInterchange(reading: { try JSONTextReader(path: path) }, progress: progress)
    }

    /// The import of the text `openReader` reads (called once per pass), its records written in
    /// batches of about `batchRecords`.
    internal func importInterchange(reading openReader: () throws -> JSONTextReader,
                                    batchRecords: Int = Store.importBatchRecords,
                                    progress: ((InterchangeProgress) -> Void)? = nil) throws {
        try checkOpen()
        guard !backend.isReadOnly else { throw StoreError.readOnly }
        try checkEmptyForImport()
        let coder: (RegistryEntry) throws -> ClassFieldCoder? = { [unowned self] registered in
            try interchangeFields.coder(for: registered, in: self)
        }

        // Pass 1: everything checked, nothing written.
        var checking = InterchangeFileReader(reader: try openReader(), coder: coder)
        var total = 0
        var checked = 0
        var visitor = InterchangeFileReader.Visitor()
        visitor.classes = { classes in total = classes.reduce(0) { $0 + $1.objectCount } }
        if let progress {
            visitor.object = { _, _ in
                checked += 1
                if checked % Self.importBatchRecords == 0 { progress(InterchangeProgress(phase: .checking, objects: checked, totalObjects: total)) }
            }
        }
        try checking.read(visitor)
        progress?(InterchangeProgress(phase: .checking, objects: checked, totalObjects: total))

        // Pass 2: the pages, then the registry and named buffers.
        var writing = InterchangeImportWrite(store: self, batchRecords: batchRecords)
        writing.progress = progress.map { report in { written in report(InterchangeProgress(phase: .writing, objects: written, totalObjects: total)) } }
        var writer = InterchangeFileReader(reader: try openReader(), coder: coder)
        var sink = InterchangeFileReader.Visitor()
        sink.classes = {
            writing.classes = $0
            try writing.removeLeftoverPages()
        }
        sink.object = { try writing.add($1, of: $0) }
        sink.namedBuffer = { try writing.add($1, named: $0) }
        try writer.read(sink)
        try writing.finish()
        for registered in writing.classes {
            records[registered.name] = registered.record
            schemas[registered.name] = registered.schema
        }
        namedBufferCount = writing.namedBufferCount
        forgetCachedFileState()
    }

    /// Throws ``InterchangeError/targetNotEmpty(reason:)`` unless the store has no class, no
    /// named buffer and no unsaved change.
    private func checkEmptyForImport() throws {
        if let name = records.keys.min() { throw InterchangeError.targetNotEmpty(reason: "class \(name) is registered") }
        if hasUnsavedChanges { throw InterchangeError.targetNotEmpty(reason: "it has unsaved changes") }
        if try backend.recordCount(in: Self.namesTable) > 0 || (namedBufferCount ?? 0) > 0 {
            throw InterchangeError.targetNotEmpty(reason: "it holds named buffers")
        }
    }
}

/// The writing pass of an import: records gathered per class into pages, the pages into
/// batches applied as they fill, the registry and named buffers in the last.
private struct InterchangeImportWrite {
    let store: Store
    let batchRecords: Int
    var classes: [RegistryEntry] = []
    private(set) var namedBufferCount = 0
    private var pending: [String: (records: PendingRecords, count: Int, lastPage: UInt64)] = [:]
    private var batch = WriteBatch()
    private var recordsInBatch = 0
    /// The objects sealed so far.
    private var objects = 0
    /// Told how many objects are written after each batch applied.
    var progress: ((Int) -> Void)?

    init(store: Store, batchRecords: Int) {
        self.store = store
        self.batchRecords = batchRecords
    }

    /// Seals `record` into its class's pending pages; a class's pages go into the batch at a
    /// page boundary once a thousand records (or a batch's worth) wait, so that a page is written once, whole.
    mutating func add(_ record: Store.RawRecord, of registered: RegistryEntry) throws {
        let page = RecordPage.number(of: record.rowID)
        var state = pending[registered.name] ?? (PendingRecords(), 0, page)
        if state.count >= min(1024, batchRecords) && page != state.lastPage {
            try flush(state.records, of: registered)
            state = (PendingRecords(), 0, page)
        }
        do {
            try state.records.seal(rowID: record.rowID, version: record.version, content: record.content,
                                   for: store.pageSealing(scope: registered.classID))
        } catch {
            throw StoreError.encryptionFailure(reason: "\(error)")
        }
        state.count += 1
        objects += 1
        state.lastPage = page
        pending[registered.name] = state
        if recordsInBatch >= batchRecords { try applyBatch() }
    }

    mutating func add(_ buffer: DataBuffer, named name: String) throws {
        try batch.putSealed(buffer, forKey: Array(name.utf8), in: Store.namesTable, cipher: store.cipher, scope: 0)
        namedBufferCount += 1
    }

    /// The last batch: the pages left, the registry entries, the named-buffer count.
    mutating func finish() throws {
        for registered in classes {
            if let state = pending[registered.name], state.count > 0 { try flush(state.records, of: registered) }
            try store.addMetadata(registered.record.encoded(), forKey: ClassRecord.key(for: registered.name), to: &batch)
            if let schema = registered.schema {
                try store.addMetadata(schema.encoded(), forKey: StoredModelSchema.key(for: registered.name), to: &batch)
            }
        }
        pending = [:]
        if namedBufferCount > 0 {
            var count = DataBuffer()
            count.writeVarInt(UInt64(namedBufferCount))
            try store.addMetadata(count, forKey: Store.namedBufferCountKey, to: &batch)
        }
        try applyBatch()
    }

    /// Removes the pages an import that failed before its last batch left in the class files
    /// (the registry has no entry for these classes, so nothing reads them), in a batch of its
    /// own: a class file with records and no registry entry is never anything else, since
    /// registering a class writes its entry at once.
    func removeLeftoverPages() throws {
        var removal = WriteBatch()
        for registered in classes {
            try store.backend.forEachRecord(in: registered.name) { key, _ in
                removal.removeValue(forKey: Array(key), in: registered.name)
                return true
            }
        }
        guard !removal.isEmpty else { return }
        try store.applyToBackend(removal)
    }

    private mutating func flush(_ records: PendingRecords, of registered: RegistryEntry) throws {
        let count = try records.writePages(of: registered.name, to: &batch, from: store.backend,
                                           reading: store.pageSealing(scope: registered.classID)) { _ in false }
        recordsInBatch += count
    }

    private mutating func applyBatch() throws {
        guard !batch.isEmpty else { return }
        try store.applyToBackend(batch)
        batch = WriteBatch()
        // The records of the batch applied: those sealed less those still waiting in pages.
        progress?(objects - pending.values.reduce(0) { $0 + $1.count })
        recordsInBatch = 0
    }
}
