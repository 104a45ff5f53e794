// HashDatabase: one Tokyo Cabinet hash database file, opened with Larder's tuning, with Tokyo
// Cabinet's error codes turned into BackendError. The only place (with its siblings in this
// folder) that talks to the C library.

import CTokyoCabinet
import Foundation

/// One open Tokyo Cabinet hash database file.
internal final class HashDatabase {
    /// How a file is tuned: the bucket count is fixed when the file is created (Tokyo Cabinet
    /// keeps it in the file); the mapped size applies to each open.
    struct Tuning: Sendable {
        /// Hash buckets; 0.5-4x the expected record count is best.
        var bucketCount: Int64
        /// Bytes of the file mapped into memory.
        var mappedSize: Int64

        /// For class files and collections, whose records are pages. Tokyo Cabinet hashes a key
        /// as a polynomial in base 37, so page keys, which differ in their last bytes, fall into
        /// about 37 x 256 buckets per 65,536 pages: 65,521 buckets serve as well as more until
        /// about 40 million objects (a million objects used 4,733 of 262,139), and cost 512 KB
        /// where 262,139 cost 2 MB in every class file.
        static let classFile = Tuning(bucketCount: 65_521, mappedSize: 256 << 20)
        /// For the small metadata and names files.
        static let smallFile = Tuning(bucketCount: 4_093, mappedSize: 4 << 20)
    }

    private(set) var path: String
    private var handle: UnsafeMutablePointer<TCHDB>?
    /// True when a commit syncs the file itself (`HDBOTSYNC`: Tokyo Cabinet's commit msyncs
    /// and fsyncs the file before it empties the undo log), so no sync of the file is needed
    /// after one.
    let commitSyncsFile: Bool

    /// Opens the file at `path`. With `syncsTransactions`, Tokyo Cabinet fsyncs its undo log
    /// (`<file>.wal`) after every record of it, before the bytes it saves are changed, and
    /// syncs the file at each commit (`HDBOTSYNC`): a power cut inside a transaction then
    /// leaves a log that restores the file whole at the next open.
    init(path: String, tuning: Tuning, readOnly: Bool, syncsTransactions: Bool = false) throws {
        self.path = path
        commitSyncsFile = syncsTransactions && !readOnly
        guard let handle = tchdbnew() else {
            throw BackendError.cannotOpen(path: path, reason: "out of memory")
        }
        // HDBTLARGE: 64-bit offsets, so files past 2 GB do not corrupt silently.
        _ = tchdbtune(handle, tuning.bucketCount, -1, -1, UInt8(HDBTLARGE))
        _ = tchdbsetxmsiz(handle, tuning.mappedSize)
        // HDBOLCKNB: a file locked by another process fails at once instead of blocking.
        // Never HDBONOLCK: an unlocked opener can replay a writer's WAL over its commit.
        // Readers take a shared lock, writers an exclusive one.
        var mode = readOnly ? Int32(HDBOREADER | HDBOLCKNB) : Int32(HDBOWRITER | HDBOCREAT | HDBOLCKNB)
        if syncsTransactions && !readOnly { mode |= Int32(HDBOTSYNC) }
        guard tchdbopen(handle, path, mode) else {
            let code = tchdbecode(handle)
            tchdbdel(handle)
            throw TokyoCabinetError.openError(code: code, path: path)
        }
        self.handle = handle
    }

    deinit {
        if let handle {
            _ = tchdbclose(handle)
            tchdbdel(handle)
        }
    }

    /// Closes the file; later calls throw `BackendError.closed`.
    func close() throws {
        forgetWalk()
        guard let handle else { return }
        self.handle = nil
        let closed = tchdbclose(handle)
        let code = tchdbecode(handle)
        tchdbdel(handle)
        if !closed { throw failure("close", code: code) }
    }

    /// Calls `body` with the value under `key`, or nil. The bytes are read in place from the
    /// file's mapped memory when they can be (``mappedValue(forKey:)``), else copied by
    /// `tchdbget`; either way they are valid only during `body`, which must not write to
    /// this file.
    func readValue(forKey key: [UInt8], _ body: (UnsafeRawBufferPointer?) throws -> Void) throws {
        if let mapped = try mappedValue(forKey: key) { return try body(mapped) }
        try copiedValue(forKey: key, body)
    }

    /// The value under `key` in the file's mapped memory, valid until the next write to the
    /// file; nil when only `tchdbget` can say (MappedRecordLookup).
    func mappedValue(forKey key: [UInt8]) throws -> UnsafeRawBufferPointer? {
        let handle = try openHandle()
        return key.withUnsafeBytes { key in
            keptIndex?.value(forKey: key) ?? MappedRecordLookup.value(forKey: key, in: handle)
        }
    }

    /// Puts into `values` the values under `keys`, in order, in the file's mapped memory,
    /// valid until the next write to the file; false when one of them is not found there
    /// (MappedRecordLookup).
    func valuesInPlace(forKeys keys: PackedKeys, into values: UnsafeMutableBufferPointer<UnsafeRawBufferPointer>) throws -> Bool {
        let handle = try openHandle()
        if let keptIndex, keptIndex.values(forKeys: keys, into: values) { return true }
        return MappedRecordLookup.values(forKeys: keys, in: handle, into: values)
    }

    /// Calls `body` with the value under `key` as `tchdbget` copies it, or with nil.
    func copiedValue(forKey key: [UInt8], _ body: (UnsafeRawBufferPointer?) throws -> Void) throws {
        let handle = try openHandle()
        var size: Int32 = 0
        let value = key.withUnsafeBytes { key in
            tchdbget(handle, key.baseAddress, Int32(key.count), &size)
        }
        guard let value else {
            let code = tchdbecode(handle)
            guard code == Int32(TCENOREC) else { throw failure("read", code: code) }
            return try body(nil)
        }
        defer { free(value) }
        return try body(UnsafeRawBufferPointer(start: value, count: Int(size)))
    }

    /// Calls `body` with every record in storage order until it returns false: in place in
    /// the file's mapped memory when it can (MappedRecordLookup), else through
    /// `tchdbforeach`, which copies each record. `body` must not write to this file.
    func forEachRecord(_ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws {
        if try mappedRecords(body) { return }
        try copiedRecords(body)
    }

    /// Calls `body` with every record in storage order, in place in the file's mapped
    /// memory, until it returns false; returns false without calling it when only
    /// `tchdbforeach` can walk the file (MappedRecordLookup).
    func mappedRecords(_ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws -> Bool {
        // The walk ``recordsInPlace()`` kept, if the file has not changed since; else a
        // walk of its own, not kept.
        guard let records = try walkedRecords ?? MappedRecordLookup.records(in: openHandle()) else { return false }
        // The pages passed are let go as the walk goes, in file order: a walk of the whole
        // file does not leave it all resident beside what `body` made of it.
        var release = records.first?.key.baseAddress.map(PassedPagesRelease.init(from:))
        for (key, value) in records {
            guard try body(key, value) else { break }
            if let end = value.baseAddress { release?.passed(end + value.count) }
        }
        return true
    }

    /// Every record in storage order, in place in the file's mapped memory (valid until the
    /// next write to the file), or nil when only `tchdbforeach` can walk the file. The walk
    /// is kept until then: the records stay where it found them.
    func recordsInPlace() throws -> [(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)]? {
        if let walkedRecords { return walkedRecords }
        walkedRecords = MappedRecordLookup.records(in: try openHandle())
        keptIndex = walkedRecords.flatMap(KeptRecordIndex.init)
        return walkedRecords
    }

    /// The records ``recordsInPlace()`` found, until the file is written, synced or closed.
    /// (Walking a file of 16k records misses the cache at each header: 1.6 ms.)
    private var walkedRecords: [(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)]?
    /// The kept walk's records by key, for reads by key until the walk is forgotten.
    private var keptIndex: KeptRecordIndex?
    /// Whether reads by key go through the kept walk's index now.
    var readsThroughKeptIndex: Bool { keptIndex != nil }

    /// Forgets the kept walk and its index: the file is about to change (or close), and its
    /// records may move.
    private func forgetWalk() {
        walkedRecords = nil
        keptIndex = nil
    }

    /// Calls `body` with every record in storage order, as `tchdbforeach` copies them, until
    /// it returns false.
    func copiedRecords(_ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws {
        let handle = try openHandle()
        try withoutActuallyEscaping(body) { body in
            let visitor = RecordVisitor(body)
            let succeeded = withExtendedLifetime(visitor) {
                tchdbforeach(handle, { key, keySize, value, valueSize, context in
                    guard let context else { return false }
                    let visitor = Unmanaged<RecordVisitor>.fromOpaque(context).takeUnretainedValue()
                    return visitor.visit(UnsafeRawBufferPointer(start: key, count: Int(keySize)),
                                         UnsafeRawBufferPointer(start: value, count: Int(valueSize)))
                }, Unmanaged.passUnretained(visitor).toOpaque())
            }
            if let error = visitor.error { throw error }
            if !succeeded { throw failure("iterate", code: tchdbecode(handle)) }
        }
    }

    /// The number of records.
    func recordCount() throws -> Int {
        Int(tchdbrnum(try openHandle()))
    }

    /// Starts a transaction: until ``commit()``, ``abort()`` undoes every write.
    func beginTransaction() throws {
        forgetWalk()
        let handle = try openHandle()
        guard tchdbtranbegin(handle) else { throw failure("begin transaction", code: tchdbecode(handle)) }
    }

    /// Makes the transaction's writes permanent.
    func commit() throws {
        forgetWalk()
        let handle = try openHandle()
        guard tchdbtrancommit(handle) else { throw failure("commit", code: tchdbecode(handle)) }
    }

    /// Undoes the transaction's writes.
    func abort() {
        forgetWalk()
        if let handle { _ = tchdbtranabort(handle) }
    }

    /// Stores `value` under `key`.
    func put(_ value: UnsafeRawBufferPointer, forKey key: UnsafeRawBufferPointer) throws {
        forgetWalk()
        let handle = try openHandle()
        guard tchdbput(handle, key.baseAddress, Int32(key.count), value.baseAddress, Int32(value.count)) else {
            throw failure("write", code: tchdbecode(handle))
        }
    }

    /// Stores `value` under a key that is not in the file yet, through Tokyo Cabinet's
    /// delayed record pool (`tchdbputasync`): records are written in bulk, and the transaction
    /// still covers them (measured: about 20% faster than `tchdbput` for a million inserts).
    func putNew(_ value: UnsafeRawBufferPointer, forKey key: UnsafeRawBufferPointer) throws {
        forgetWalk()
        let handle = try openHandle()
        guard tchdbputasync(handle, key.baseAddress, Int32(key.count), value.baseAddress, Int32(value.count)) else {
            throw failure("write", code: tchdbecode(handle))
        }
    }

    /// Removes the record under `key`; a missing record is not an error.
    func delete(_ key: UnsafeRawBufferPointer) throws {
        forgetWalk()
        let handle = try openHandle()
        guard tchdbout(handle, key.baseAddress, Int32(key.count)) else {
            let code = tchdbecode(handle)
            guard code == Int32(TCENOREC) else { throw failure("delete", code: code) }
            return
        }
    }

    /// Trades names with `other`, the open file this one was just renamed over: this file
    /// takes `other`'s path, under which Tokyo Cabinet names its undo log (`<path>.wal`) and
    /// registers it as open in this process, and `other` takes this one's former path. (A
    /// compaction renames a fresh lock file into place without closing either file, so as
    /// never to let go of the store's lock.)
    func tradeNames(with other: HashDatabase) throws {
        let handle = try openHandle(), otherHandle = try other.openHandle()
        // Tokyo Cabinet's own fields (tchdb.h): each handle frees its strings when closed.
        swap(&handle.pointee.path, &otherHandle.pointee.path)
        swap(&handle.pointee.rpath, &otherHandle.pointee.rpath)
        swap(&path, &other.path)
    }

    /// True when the open file is the one its path names now; false once another file was
    /// renamed over it (a compaction in another process) or it was removed.
    func isStillAtItsPath() -> Bool {
        guard let handle else { return false }
        var open = stat(), named = stat()
        guard fstat(handle.pointee.fd, &open) == 0, stat(path, &named) == 0 else { return false }
        return open.st_dev == named.st_dev && open.st_ino == named.st_ino
    }

    /// Writes the file's buffers to the device (fsync).
    func sync() throws {
        forgetWalk()
        let handle = try openHandle()
        guard tchdbsync(handle) else { throw failure("sync", code: tchdbecode(handle)) }
    }

    // MARK: Errors

    private func openHandle() throws -> UnsafeMutablePointer<TCHDB> {
        guard let handle else { throw BackendError.closed }
        return handle
    }

    private func failure(_ operation: String, code: Int32) -> BackendError {
        TokyoCabinetError.failure(operation, path: path, code: code)
    }


}

/// Carries a Swift closure, and the error it throws, through Tokyo Cabinet's C iterator.
private final class RecordVisitor {
    let body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool
    var error: (any Error)?

    init(_ body: @escaping (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) {
        self.body = body
    }

    func visit(_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) -> Bool {
        do {
            return try body(key, value)
        } catch {
            self.error = error
            return false
        }
    }
}
