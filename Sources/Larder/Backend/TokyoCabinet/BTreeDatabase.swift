// BTreeDatabase: one Tokyo Cabinet B+tree database file (`.tcb`), keys in byte (lexical)
// order, opened with the same locking rules as the hash files, with ordered range scans
// through a cursor. Secondary indexes live in these files.

import CTokyoCabinet
import Foundation

/// One open Tokyo Cabinet B+tree database file, with unique keys in byte order.
internal final class BTreeDatabase {
    let path: String
    private var handle: UnsafeMutablePointer<TCBDB>?
    /// Whether the handle may hold changed pages the file does not (written to since the last
    /// commit, abort or sync): then no page is read in place.
    private var hasUnwrittenPages = false
    /// The nodes read in place since the last write (MappedBTree).
    private var nodes = MappedBTree.Nodes()

    /// Records a leaf and indexes a node hold (the file keeps them from its creation).
    static let leafMembers: UInt32 = 128
    static let nodeMembers: UInt32 = 256
    /// Bytes of a file mapped into memory.
    static let mappedBytes: Int64 = 64 << 20

    /// Opens the file at `path`; `syncsTransactions` as for ``HashDatabase`` (`BDBOTSYNC`).
    /// A writer first repairs the file's meta if a process died while Tokyo Cabinet rewrote it
    /// (BTreeMetaRepair). `mappedBytes` of the file are mapped into memory (Tokyo Cabinet's
    /// extra mapped memory), where pages are read in place (MappedBTree).
    init(path: String, readOnly: Bool, syncsTransactions: Bool = false, mappedBytes: Int64 = BTreeDatabase.mappedBytes) throws {
        self.path = path
        if !readOnly {
            BTreeMetaRepair.repairIfNeeded(path: path, leafMembers: Self.leafMembers,
                                           nodeMembers: Self.nodeMembers, syncs: syncsTransactions)
        }
        guard let handle = tcbdbnew() else {
            throw BackendError.cannotOpen(path: path, reason: "out of memory")
        }
        // 128 records a leaf, 256 a node, BDBTLARGE for 64-bit offsets (files past 2 GB
        // otherwise corrupt silently). The comparator stays Tokyo Cabinet's default lexical
        // one: custom comparators are not recorded in the file.
        _ = tcbdbtune(handle, Int32(Self.leafMembers), Int32(Self.nodeMembers), 32_749, -1, -1, UInt8(BDBTLARGE))
        _ = tcbdbsetcache(handle, 8_192, 1_024)
        _ = tcbdbsetxmsiz(handle, mappedBytes)
        // BDBOLCKNB: fail at once on a file another process holds; never BDBONOLCK.
        var mode = readOnly ? Int32(BDBOREADER | BDBOLCKNB) : Int32(BDBOWRITER | BDBOCREAT | BDBOLCKNB)
        if syncsTransactions && !readOnly { mode |= Int32(BDBOTSYNC) }
        guard tcbdbopen(handle, path, mode) else {
            let code = tcbdbecode(handle)
            tcbdbdel(handle)
            throw TokyoCabinetError.openError(code: code, path: path)
        }
        self.handle = handle
    }

    deinit {
        if let handle {
            _ = tcbdbclose(handle)
            tcbdbdel(handle)
        }
    }

    /// Closes the file; later calls throw `BackendError.closed`.
    func close() throws {
        guard let handle else { return }
        self.handle = nil
        let closed = tcbdbclose(handle)
        let code = tcbdbecode(handle)
        tcbdbdel(handle)
        if !closed { throw failure("close", code: code) }
    }

    /// Calls `body` with the value under `key`, or nil.
    func readValue(forKey key: [UInt8], _ body: (UnsafeRawBufferPointer?) throws -> Void) throws {
        let handle = try openHandle()
        var size: Int32 = 0
        // tcbdbget3 returns a pointer into the leaf cache: valid until the next call.
        let value = key.withUnsafeBytes { key in
            tcbdbget3(handle, key.baseAddress, Int32(key.count), &size)
        }
        guard let value else {
            let code = tcbdbecode(handle)
            guard code == Int32(TCENOREC) else { throw failure("read", code: code) }
            return try body(nil)
        }
        return try body(UnsafeRawBufferPointer(start: value, count: Int(size)))
    }

    /// Calls `body` with every record in key order until it returns false.
    func forEachRecord(_ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws {
        try forEachRecord(from: nil, through: nil, reverse: false, body)
    }

    /// Calls `body` with the records whose keys lie between `start` and `end` (both
    /// inclusive; nil is open), in ascending key order or descending when `reverse`, until it
    /// returns false.
    ///
    /// With `backingUp`, a forward scan starts one record earlier when `start` is not itself a
    /// key: at the last key before it (or the first key, when none is before it), the record
    /// that holds `start` in a table whose records cover ranges of keys.
    ///
    /// A forward scan from a start reads the pages in place (MappedBTree) unless `inPlace` is
    /// false, and goes on with a cursor where they cannot be.
    func forEachRecord(
        from start: [UInt8]?, through end: [UInt8]?, reverse: Bool, backingUp: Bool = false, inPlace: Bool = true,
        _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        let handle = try openHandle()
        var resumingAfter: [UInt8]?
        if inPlace, !hasUnwrittenPages, !reverse, let start {
            switch try MappedBTree.forEachRecord(in: handle, from: start, backingUp: backingUp, through: end, nodes: &nodes, body) {
            case .finished: return
            case let .unavailable(after: last): resumingAfter = last
            }
        }
        guard let cursor = tcbdbcurnew(handle) else { throw failure("iterate", code: tcbdbecode(handle)) }
        defer { tcbdbcurdel(cursor) }
        // Forward scans start at the first key >= start; reverse scans at the last key <= end.
        let bound = reverse ? end : start
        var positioned: Bool
        if let resumingAfter {
            // After the last record handed out in place: the first key past it.
            positioned = resumingAfter.withUnsafeBytes { last in
                guard tcbdbcurjump(cursor, last.baseAddress, Int32(last.count)) else { return false }
                var keySize: Int32 = 0
                guard let key = tcbdbcurkey3(cursor, &keySize) else { return false }
                return ByteOrder.compare(UnsafeRawBufferPointer(start: key, count: Int(keySize)), last) > 0 || tcbdbcurnext(cursor)
            }
        } else if let bound {
            // Backing up, the record holding `start` is the last at or before it: a backward
            // jump lands on it inside the leaf `start` leads to (whose first key is at or
            // before `start`), where a forward jump lands on the record after it, in the next
            // leaf when the holding record is its leaf's last, and steps back: a second leaf
            // loaded for half the scans of a table of two records a leaf.
            let backward = reverse || backingUp
            positioned = bound.withUnsafeBytes { bytes in
                backward ? tcbdbcurjumpback(cursor, bytes.baseAddress, Int32(bytes.count))
                         : tcbdbcurjump(cursor, bytes.baseAddress, Int32(bytes.count))
            }
            // Before every key, the first record holds `start`.
            if backingUp, !reverse, !positioned, tcbdbecode(handle) == Int32(TCENOREC) { positioned = tcbdbcurfirst(cursor) }
        } else {
            positioned = reverse ? tcbdbcurlast(cursor) : tcbdbcurfirst(cursor)
        }
        guard positioned else { return try endOfScan(handle) }
        let limit = reverse ? start : end
        while true {
            var keySize: Int32 = 0
            var valueSize: Int32 = 0
            guard let key = tcbdbcurkey3(cursor, &keySize), let value = tcbdbcurval3(cursor, &valueSize) else {
                return try endOfScan(handle)
            }
            let keyBytes = UnsafeRawBufferPointer(start: key, count: Int(keySize))
            if let limit {
                let order = ByteOrder.compare(keyBytes, limit)
                if reverse ? order < 0 : order > 0 { return }
            }
            guard try body(keyBytes, UnsafeRawBufferPointer(start: value, count: Int(valueSize))) else { return }
            guard reverse ? tcbdbcurprev(cursor) : tcbdbcurnext(cursor) else { return try endOfScan(handle) }
        }
    }

    /// Calls `body` with the open handle.
    func withHandle<Result>(_ body: (UnsafeMutablePointer<TCBDB>) throws -> Result) throws -> Result {
        try body(try openHandle())
    }

    /// The number of records.
    func recordCount() throws -> Int {
        Int(tcbdbrnum(try openHandle()))
    }

    /// Starts a transaction: until ``commit()``, ``abort()`` undoes every write.
    func beginTransaction() throws {
        let handle = try openHandle()
        willWrite()
        guard tcbdbtranbegin(handle) else { throw failure("begin transaction", code: tcbdbecode(handle)) }
    }

    /// Makes the transaction's writes permanent.
    func commit() throws {
        let handle = try openHandle()
        guard tcbdbtrancommit(handle) else { throw failure("commit", code: tcbdbecode(handle)) }
        // Committing wrote every changed page into the file.
        wrotePages()
    }

    /// Undoes the transaction's writes.
    func abort() {
        // Aborting drops the changed pages: the file holds the tree again.
        if let handle, tcbdbtranabort(handle) { wrotePages() }
    }

    /// Stores `value` under `key`, replacing any value there (keys are unique).
    func put(_ value: UnsafeRawBufferPointer, forKey key: UnsafeRawBufferPointer) throws {
        let handle = try openHandle()
        willWrite()
        guard tcbdbput(handle, key.baseAddress, Int32(key.count), value.baseAddress, Int32(value.count)) else {
            throw failure("write", code: tcbdbecode(handle))
        }
    }

    /// Stores a new key: in a B+tree this is an ordinary put.
    func putNew(_ value: UnsafeRawBufferPointer, forKey key: UnsafeRawBufferPointer) throws {
        try put(value, forKey: key)
    }

    /// Removes the record under `key`; a missing record is not an error.
    func delete(_ key: UnsafeRawBufferPointer) throws {
        let handle = try openHandle()
        willWrite()
        guard tcbdbout(handle, key.baseAddress, Int32(key.count)) else {
            let code = tcbdbecode(handle)
            guard code == Int32(TCENOREC) else { throw failure("delete", code: code) }
            return
        }
    }

    /// False: whether Tokyo Cabinet's B+tree commit syncs the file under `BDBOTSYNC` is not
    /// established here, so the file is synced after its commit.
    var commitSyncsFile: Bool { false }

    /// Writes the file's buffers to the device (fsync).
    func sync() throws {
        let handle = try openHandle()
        guard tcbdbsync(handle) else { throw failure("sync", code: tcbdbecode(handle)) }
        wrotePages()
    }

    // MARK: Helpers

    /// Before a write: pages may change in the cache alone, and nodes move.
    private func willWrite() {
        hasUnwrittenPages = true
        nodes.removeAll()
    }

    /// After a commit, abort or sync: the file holds every page as the handle sees it.
    private func wrotePages() {
        hasUnwrittenPages = false
        nodes.removeAll()
    }

    /// A cursor that ran off the end is the end of the scan; any other failure is an error.
    private func endOfScan(_ handle: UnsafeMutablePointer<TCBDB>) throws {
        let code = tcbdbecode(handle)
        guard code == Int32(TCENOREC) || code == Int32(TCESUCCESS) else { throw failure("iterate", code: code) }
    }

    private func openHandle() throws -> UnsafeMutablePointer<TCBDB> {
        guard let handle else { throw BackendError.closed }
        return handle
    }

    private func failure(_ operation: String, code: Int32) -> BackendError {
        TokyoCabinetError.failure(operation, path: path, code: code)
    }

}
