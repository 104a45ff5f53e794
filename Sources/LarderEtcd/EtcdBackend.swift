// EtcdBackend: a Backend on an etcd cluster, through the v3 JSON gateway (EtcdClient). Tables
// are key ranges (EtcdKeyLayout); every read is made at the backend's pinned revision, so a store
// sees one consistent state of the cluster, and values read are cached so a repeated read makes
// no network call. A batch that fits one transaction (EtcdLimits) is one transaction; a bigger
// one is a staged commit (EtcdStagedCommit). A watch of the prefix (EtcdWatch, into an
// EtcdChangeLog) tells a refresh which keys other clients changed, so the cache outlives it but
// for those keys, and feeds `remoteSaves`. docs/ARCHITECTURE.md, "The etcd backend".

import AsyncHTTPClient
import Foundation
import Larder

/// A ``Backend`` whose tables live in an etcd cluster (etcd 3.4 or later, its v3 JSON gateway).
///
/// ```swift
/// let backend = try EtcdBackend(endpoints: ["http://10.0.0.1:2379", "http://10.0.0.2:2379"], prefix: "music")
/// let store = try Store(backend: backend)
/// ```
///
/// Every save is all or nothing for every reader, whatever its size. Reads see the cluster as it
/// was at the backend's revision: the one it opened at, moved on by its own saves and by
/// ``refresh()``. Several clients may share a prefix, optimistically: a save fails with
/// `BackendError.conflict`, changing nothing, when another client saved to the prefix since the
/// backend's revision; a ``Store`` then takes in the other save and saves again, or throws
/// `StoreError.conflict` when both changed the same object. RowIDs come from blocks each client
/// reserves (``reserveRowIDs(_:in:atLeast:)``), so two clients never hand out the same one.
public final class EtcdBackend: Backend, @unchecked Sendable {
    // @unchecked: like every Backend, used by one thread at a time (Store), or behind a lock
    // (the document store's SharedBackend).

    /// The cluster's endpoints, as given.
    ///
    /// ```swift
    /// print(backend.endpoints)   // ["http://127.0.0.1:2379"]
    /// ```
    public let endpoints: [String]
    /// Where the store's keys live.
    ///
    /// ```swift
    /// let songKeys = backend.layout.tablePrefix("Song")
    /// ```
    public let layout: EtcdKeyLayout
    /// The largest transaction the cluster accepts.
    ///
    /// ```swift
    /// print(backend.limits.maximumOperations)
    /// ```
    public let limits: EtcdLimits

    private let client: EtcdClient
    private let stagedCommit: EtcdStagedCommit
    /// The revision every read is made at: the cluster's when the backend opened, moved on by
    /// its own saves and ``refresh()``.
    ///
    /// ```swift
    /// let before = backend.revision
    /// try backend.refresh()   // backend.revision >= before
    /// ```
    public private(set) var revision: Int64 = 0
    /// Values read (nil: absent), true at `revision`, by full etcd key.
    private var cache: [[UInt8]: [UInt8]?] = [:]
    private var cacheBytes = 0
    private let cacheLimit: Int
    private var orderedTables: Set<String> = []
    private var isClosed = false
    /// Keys a range read asks for at a time.
    private let pageSize: Int
    /// Where the next staged commit stops (tests only).
    package var interruption: StagedCommitInterruption?
    /// The next save's transaction (or staged commit's publishing one) is sent twice and the
    /// first reply dropped, as when a reply is lost and the client sends the request again
    /// (tests only).
    package var losesNextSaveReply = false
    /// The watch's record of the prefix's changes since `revision`.
    private let changeLog: EtcdChangeLog
    private var watch: EtcdWatch?
    /// RowID counters as this backend last set them (value, revision), by table: a guess that
    /// the counter's comparison checks, so a stale one costs a failed transaction.
    private var knownRowIDCounters: [String: (value: UInt64?, modified: Int64)] = [:]

    /// The revision of each save another client makes to the prefix, as the backend's watch sees
    /// it (a revision after which history was lost, too: etcd compacted it away), never the
    /// backend's own saves. Refresh the store on its own thread when one comes; the backend
    /// never calls into the store. One stream, for one consumer; it keeps the newest 64
    /// revisions not yet consumed, and ends when the backend is closed.
    ///
    /// ```swift
    /// Task { @MainActor in
    ///     for await _ in backend.remoteSaves { try store.refresh() }
    /// }
    /// ```
    public let remoteSaves: AsyncStream<Int64>

    /// How long, in seconds, ``refreshToNewestState()`` waits for the watch to deliver the
    /// changes up to the newest revision before it answers that any key may have changed.
    ///
    /// ```swift
    /// backend.watchCatchUpTimeout = 1
    /// ```
    public var watchCatchUpTimeout: Double = 5

    /// Always true: other clients save to the same cluster and prefix. A `StorePool` refuses
    /// the backend (`StoreError.sharedBackendInPool`); use a `Store` and its `refresh()`.
    ///
    /// ```swift
    /// backend.isShared   // true
    /// ```
    public var isShared: Bool { true }

    /// Opens the store under `prefix` on the cluster at `endpoints` (each a member's
    /// `http://host:port` or `https://host:port`), finishing a staged commit another client
    /// published but did not finish and removing the staging of one never published (once
    /// `stagingGracePeriod` old).
    ///
    /// ```swift
    /// let backend = try EtcdBackend(endpoints: ["http://127.0.0.1:2379"], prefix: "music")
    /// ```
    ///
    /// With TLS and a user (see ``EtcdSecurity``):
    ///
    /// ```swift
    /// let security = EtcdSecurity(trustedCertificateAuthorityFile: "/etc/etcd/ca.pem",
    ///                             credentials: .init(user: "larder", password: secret))
    /// let backend = try EtcdBackend(endpoints: ["https://10.0.0.1:2379"], prefix: "music", security: security)
    /// ```
    ///
    /// - Parameters:
    ///   - security: TLS options and credentials; a password with an `http://` endpoint is refused
    ///     (``EtcdError/passwordOverPlainHTTP(endpoint:)``) unless the options allow it.
    ///   - limits: the cluster's transaction limits (its `--max-txn-ops` and `--max-request-bytes`).
    ///   - requestTimeout: how long one request may take, in seconds.
    ///   - failoverTime: how long, in seconds, a request goes on trying the endpoints in turn
    ///     (an election takes a second or two) before it throws ``EtcdError/unreachable(endpoints:reason:)``.
    ///   - cacheBytes: the most bytes of values kept between reads at one revision.
    ///   - stagingGracePeriod: how old, in seconds, the staging of an unpublished commit must be
    ///     before opening removes it (younger, another client may still be writing it).
    public init(endpoints: [String], prefix: String, security: EtcdSecurity = .none, limits: EtcdLimits = .etcdDefaults,
                requestTimeout: Double = 10, failoverTime: Double = 15, cacheBytes: Int = 64 << 20,
                stagingGracePeriod: Double = 600) throws {
        self.endpoints = endpoints
        layout = try EtcdKeyLayout(prefix: prefix)
        self.limits = limits
        client = try EtcdClient(endpoints: endpoints, security: security, requestTimeout: .milliseconds(Int64(requestTimeout * 1000)),
                                retryInterval: failoverTime)
        stagedCommit = EtcdStagedCommit(client: client, layout: layout, limits: limits)
        cacheLimit = cacheBytes
        pageSize = 512
        let (saves, continuation) = AsyncStream.makeStream(of: Int64.self, bufferingPolicy: .bufferingNewest(64))
        remoteSaves = saves
        let changeLog = EtcdChangeLog(layout: layout, remoteSaves: continuation)
        self.changeLog = changeLog
        do {
            pin(try newestSettledRevision(removingStagingOlderThan: stagingGracePeriod), keepingCache: false)
        } catch {
            changeLog.close()
            throw error
        }
        // The save key alone: every save puts it, naming the keys it changes (EtcdSaveRecord).
        watch = EtcdWatch(endpoints: client.endpoints, from: layout.saveKey, before: layout.saveKey + [0],
                          startRevision: revision + 1, preparingRequests: client.requestPreparation) { changeLog.receive($0) }
    }

    deinit {
        watch?.stop()
        changeLog.close()
    }

    /// Moves the backend's reads to the cluster's newest revision (after finishing any staged
    /// commit published there), so that they see other clients' saves. For a bare backend: a
    /// ``Store`` calls ``refreshToNewestState()`` through `Store.refresh()`.
    ///
    /// ```swift
    /// try backend.refresh()
    /// ```
    public func refresh() throws {
        _ = try refreshToNewestState()
    }

    /// Moves the backend's reads to the cluster's newest revision, like ``refresh()``, and says
    /// whether another client saved to the prefix since the revision read so far (a save of
    /// this backend's own moved it already) and which keys of which tables it wrote or deleted,
    /// as the backend's watch saw them. The cached values of other keys stay (they are still
    /// true); those keys' are dropped. When the watch cannot tell (etcd compacted the revisions
    /// away, or the watch is down for ``watchCatchUpTimeout``) it answers `.changed(keys: nil)`
    /// and empties the cache, and the watch moves to another member (the one it read from may
    /// have stopped answering without closing its connection). `Store.refresh()` calls it.
    ///
    /// ```swift
    /// if case .changed(let keys?) = try backend.refreshToNewestState() {
    ///     print(keys["Song"]?.count ?? 0, "songs changed")
    /// }
    /// ```
    public func refreshToNewestState() throws -> BackendRefresh {
        try checkOpen()
        let before = revision
        let newest = try newestSettledRevision(removingStagingOlderThan: nil)
        let lastSave = try stagedCommit.lastSaveRevision(at: newest)
        // Tables change only in saves, and every save rewrites the save key.
        guard lastSave > before else {
            pin(newest, keepingCache: true)
            return .unchanged
        }
        guard let changed = changeLog.changedKeys(after: before, through: newest, lastSave: lastSave,
                                                  timeout: watchCatchUpTimeout) else {
            // The watch is behind, or lost history: it may be hanging on a member that no longer
            // answers, so it moves on, and the next refresh can name keys again.
            watch?.moveToAnotherMember()
            pin(newest, keepingCache: false)
            return .changed(keys: nil)
        }
        var keys: [String: Set<[UInt8]>] = [:]
        for fullKey in changed {
            forget(fullKey)
            if let table = layout.table(ofKey: fullKey), let key = layout.tableKey(fullKey, in: table) {
                keys[table, default: []].insert(Array(key))
            }
        }
        pin(newest, keepingCache: true)
        return .changed(keys: keys)
    }

    /// The cluster's newest revision at which no staged commit is published (finishing those
    /// that are), removing stale staging when `gracePeriod` is given.
    private func newestSettledRevision(removingStagingOlderThan gracePeriod: Double?) throws -> Int64 {
        // One read tells whether a commit record or staging exists at the newest revision (a
        // commit record sorts first). The backend pins a revision only where no commit record
        // exists: one is finished first, and the newest revision read again, since another
        // client may publish meanwhile.
        var removedStaging = gracePeriod == nil
        for _ in 0 ..< 10 {
            let found = try client.range(from: layout.commitRoot, before: EtcdKeyLayout.end(ofPrefix: layout.stagingRoot),
                                         revision: nil, limit: 1, keysOnly: true)
            let commitPublished = found.records.first.map { $0.key.starts(with: layout.commitRoot) } ?? false
            if commitPublished {
                try stagedCommit.finishPublishedCommits()
                continue
            }
            if found.count > 0, !removedStaging, let gracePeriod {
                removedStaging = true
                if try stagedCommit.removeUnpublishedStaging(olderThan: gracePeriod) > 0 { continue }
            }
            return found.revision
        }
        throw EtcdError.refused(code: 9, message: "staged commits of other clients kept being published through ten tries")
    }

    /// Pins `newRevision`, which this backend's own save of `writes` made with no other client's
    /// save since the pinned revision: the cached values stay true, with the batch's.
    private func pinOwnSave(_ newRevision: Int64, _ writes: [EtcdWrite]) {
        pin(newRevision, keepingCache: true)
        for write in writes { remember(write.value, forKey: write.key) }
    }

    private func pin(_ newRevision: Int64, keepingCache: Bool) {
        revision = newRevision
        changeLog.pinned(newRevision)
        if !keepingCache {
            cache.removeAll(keepingCapacity: true)
            cacheBytes = 0
        }
    }

    private func forget(_ key: [UInt8]) {
        if let value = cache.removeValue(forKey: key) {
            cacheBytes -= key.count + (value?.count ?? 0) + 48
        }
    }

    private func remember(_ value: [UInt8]?, forKey key: [UInt8]) {
        if cacheBytes > cacheLimit {
            cache.removeAll(keepingCapacity: true)
            cacheBytes = 0
        }
        forget(key)
        cache[key] = .some(value)
        cacheBytes += key.count + (value?.count ?? 0) + 48
    }

    // MARK: Reads

    /// Reads the value under `key` in `table` at the backend's revision (from the cache when it
    /// was read before at this revision).
    ///
    /// ```swift
    /// try backend.readValue(forKey: [1], in: "Song") { print($0?.count ?? 0) }
    /// ```
    public func readValue(forKey key: [UInt8], in table: String, _ body: (UnsafeRawBufferPointer?) throws -> Void) throws {
        try checkOpen()
        let fullKey = layout.key(key, in: table)
        let value: [UInt8]?
        if let cached = cache[fullKey] {
            value = cached
        } else {
            value = try client.range(from: fullKey, before: nil, revision: revision).records.first { $0.key == fullKey }?.value
            remember(value, forKey: fullKey)
        }
        guard let value else { return try body(nil) }
        try value.withUnsafeBytes { try body($0) }
    }

    /// Calls `body` with every record of `table`, in key order.
    ///
    /// ```swift
    /// try backend.forEachRecord(in: "Song") { key, value in true }
    /// ```
    public func forEachRecord(in table: String,
                              _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws {
        try checkOpen()
        try scan(table, from: nil, through: nil, reverse: false, body)
    }

    /// Calls `body` with the records of the ordered `table` between `start` and `end`
    /// (inclusive, nil is open), ascending or descending.
    ///
    /// ```swift
    /// try backend.forEachRecord(in: "people.0.idx", from: [1], through: [9], reverse: false) { key, _ in true }
    /// ```
    public func forEachRecord(in table: String, from start: [UInt8]?, through end: [UInt8]?, reverse: Bool,
                              _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws {
        try checkOpen()
        guard orderedTables.contains(table) else { throw BackendError.unorderedTable(table) }
        try scan(table, from: start, through: end, reverse: reverse, body)
    }

    /// Calls `body` with the records of the ordered `table` from the one holding `start` (the
    /// last at or before it, or the first) through `end`: one reverse read of one key finds it.
    ///
    /// ```swift
    /// try backend.forEachRecord(in: "people.0.idx", holding: [0x10, 0x41], through: nil) { _, _ in true }
    /// ```
    public func forEachRecord(in table: String, holding start: [UInt8], through end: [UInt8]?,
                              _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws {
        try checkOpen()
        guard orderedTables.contains(table) else { throw BackendError.unorderedTable(table) }
        let prefix = layout.tablePrefix(table)
        let holder = try client.range(from: prefix, before: prefix + start + [0], revision: revision, limit: 1,
                                      descending: true).records.first
        var first: [UInt8]?
        if let holder {
            guard let key = layout.tableKey(holder.key, in: table) else {
                throw keyOutsideTheRange
            }
            first = Array(key)
        }
        try scan(table, from: first, through: end, reverse: false, body)
    }

    /// Reads the table's keys from `start` through `end` a page at a time: 8 keys first (a read
    /// that stops early, as an index lookup does, fetches little), each page twice the last, up
    /// to ``pageSize``.
    private func scan(_ table: String, from start: [UInt8]?, through end: [UInt8]?, reverse: Bool,
                      _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws {
        let prefix = layout.tablePrefix(table)
        var lower = prefix + (start ?? [])
        var upper = end.map { prefix + $0 + [0] } ?? EtcdKeyLayout.end(ofPrefix: prefix)
        guard ByteOrder.less(lower, upper) else { return }
        var limit = 8
        while true {
            let page = try client.range(from: lower, before: upper, revision: revision, limit: limit, descending: reverse)
            limit = min(limit * 2, pageSize)
            for record in page.records {
                guard let key = layout.tableKey(record.key, in: table),
                      !ByteOrder.less(record.key, lower), ByteOrder.less(record.key, upper) else {
                    throw keyOutsideTheRange
                }
                remember(record.value, forKey: record.key)
                let goesOn = try key.withUnsafeBytes { key in try record.value.withUnsafeBytes { try body(key, $0) } }
                if !goesOn { return }
            }
            guard page.more, let last = page.records.last else { return }
            if reverse { upper = last.key } else { lower = last.key + [0] }
        }
    }

    /// The number of records in `table` at the backend's revision.
    ///
    /// ```swift
    /// let count = try backend.recordCount(in: "Song")
    /// ```
    public func recordCount(in table: String) throws -> Int {
        try checkOpen()
        let prefix = layout.tablePrefix(table)
        let counted = try client.range(from: prefix, before: EtcdKeyLayout.end(ofPrefix: prefix), revision: revision,
                                       countOnly: true)
        return Int(clamping: counted.count)
    }

    /// Declares `table` ordered. Every table is kept in key order in etcd; the declaration is
    /// what ordered reads check, as on the other backends.
    ///
    /// ```swift
    /// backend.declareOrderedTable("people.0.idx")
    /// ```
    public func declareOrderedTable(_ table: String) {
        orderedTables.insert(table)
    }

    // MARK: Writes

    /// Applies `batch` whole: one transaction when it fits ``limits``, else a staged commit;
    /// then moves the backend's reads to the revision after it.
    ///
    /// ```swift
    /// var batch = WriteBatch()
    /// batch.put([1], forKey: [1], in: "t")
    /// try backend.apply(batch)
    /// ```
    public func apply(_ batch: WriteBatch) throws {
        try checkOpen()
        guard !batch.isEmpty else { return }
        let writes = EtcdWrite.writes(of: batch, layout: layout)
        for write in writes where write.cost > limits.usableBytes - 512 {
            throw EtcdError.recordTooLarge(table: layout.table(ofKey: write.key) ?? "", size: write.value?.count ?? 0, limit: limits.maximumRequestBytes)
        }
        // The save key's new value: this save's mark and the keys it changes (EtcdSaveRecord).
        let id = EtcdStagedCommit.newID()
        let mark = Array(id.utf8)
        let saveRecord = EtcdSaveRecord.encoded(mark: mark, writes: writes,
                                                manifestBudget: limits.usableBytes / 4)
        let transactions = EtcdWrite.transactions(writes, limits: limits, reservedBytes: 256 + saveRecord.count)
        // The watch will see this save's put of the save key: it is not another client's.
        changeLog.ownSaveBegins(readAt: revision)
        var madeRevision: Int64?
        defer { changeLog.ownSaveEnds(through: madeRevision) }
        if transactions.count == 1 {
            try applyInOneTransaction(writes, saveRecord: saveRecord, mark: mark)
        } else {
            let losingFirstReply = losesNextSaveReply
            losesNextSaveReply = false
            let newRevision = try stagedCommit.commit(writes, id: id, saveRecord: saveRecord, readRevision: revision,
                                                      stoppingAt: interruption, losingFirstReply: losingFirstReply)
            // The publish held only if no other client saved since the pinned revision, and no
            // save lands while the commit record stands (this backend's own transaction removed it).
            pinOwnSave(newRevision, writes)
        }
        madeRevision = revision
    }

    /// One transaction, on condition that no staged commit is published (one published is
    /// finished first, then this one tried again) and that no other client saved since the
    /// backend's revision (else a conflict).
    /// The save key is given the save's record (EtcdSaveRecord), whose mark tells a transaction
    /// whose reply was lost and which the client sent again (EtcdClient fails over) has landed.
    private func applyInOneTransaction(_ writes: [EtcdWrite], saveRecord: [UInt8], mark: [UInt8]) throws {
        let commits = layout.commitRoot
        var operations = writes.map(\.operation)
        operations.append(.put(saveRecord, forKey: layout.saveKey))
        if losesNextSaveReply {
            losesNextSaveReply = false
            _ = try client.transaction(comparing: [.noKey(from: commits, before: EtcdKeyLayout.end(ofPrefix: commits)),
                                                   .unchangedSince(revision, key: layout.saveKey)], success: operations)
        }
        for _ in 0 ..< 3 {
            let applied = try client.transaction(
                comparing: [.noKey(from: commits, before: EtcdKeyLayout.end(ofPrefix: commits)),
                            .unchangedSince(revision, key: layout.saveKey)],
                success: operations)
            if let landed = applied.succeeded ? applied.revision : try stagedCommit.landedSave(marked: mark) {
                // No other client changed a table between the pinned revision and this one (its
                // save would have moved the save key; a staged commit published before the pinned
                // revision was finished before it). Revisions in between are other prefixes'
                // writes, or staging.
                pinOwnSave(landed, writes)
                return
            }
            try stagedCommit.finishPublishedCommits()
            if try stagedCommit.lastSaveRevision() > revision { throw Self.conflict(after: revision) }
        }
        throw EtcdError.refused(code: 9, message: "a staged commit of another client stayed published through three tries")
    }

    /// What a save throws when another client saved to the prefix after `revision`, the one the
    /// backend reads at: nothing was written.
    static func conflict(after revision: Int64) -> BackendError {
        .conflict(reason: "another client saved to the etcd prefix after revision \(revision)")
    }

    // MARK: RowIDs

    /// Reserves `count` rowIDs of `table` that no other client on the prefix is given: the
    /// table's counter (``EtcdKeyLayout/rowIDCounterKey(_:)``) moves from its value (at least
    /// `floor`) past them in a transaction that holds only if nobody moved it meanwhile.
    ///
    /// ```swift
    /// let block = try backend.reserveRowIDs(64, in: "Song", atLeast: 1)   // 1 ..< 65 on a new prefix
    /// ```
    public func reserveRowIDs(_ count: Int, in table: String, atLeast floor: UInt64) throws -> Range<UInt64>? {
        try checkOpen()
        let key = layout.rowIDCounterKey(table)
        let wanted = UInt64(max(1, count))
        // The counter as this backend last set it, else a guess that there is none yet: when
        // that holds, the reservation is one transaction; when it does not, the transaction
        // reads the counter instead, and the next one holds unless another client moved it.
        var (counter, modified) = knownRowIDCounters.removeValue(forKey: table) ?? (nil, 0)
        for _ in 0 ..< 64 {
            let start = max(floor, 1, counter ?? 0)
            let (end, overflow) = start.addingReportingOverflow(wanted)
            guard !overflow else { throw StoreError.rowIDsExhausted(class: table) }
            let set = try client.transaction(comparing: [.modifiedAt(modified, key: key)],
                                             success: [.put(Self.counterBytes(end), forKey: key)], failure: [.read(key)])
            if set.succeeded {
                knownRowIDCounters[table] = (end, set.revision)
                return start ..< end
            }
            (counter, modified) = try Self.rowIDCounter(set.readRecords.first { $0.key == key }, of: table)
        }
        throw EtcdError.refused(code: 10, message: "other clients kept reserving rowIDs of \(table) through 64 tries")
    }

    /// Moves the counter of `table` back to the start of `rowIDs` when it still stands at their
    /// end (no client reserved after them).
    ///
    /// ```swift
    /// try backend.returnRowIDs(7 ..< 65, in: "Song")
    /// ```
    public func returnRowIDs(_ rowIDs: Range<UInt64>, in table: String) throws {
        try checkOpen()
        guard !rowIDs.isEmpty else { return }
        let key = layout.rowIDCounterKey(table)
        knownRowIDCounters[table] = nil
        let set = try client.transaction(comparing: [.holds(Self.counterBytes(rowIDs.upperBound), key: key)],
                                         success: [.put(Self.counterBytes(rowIDs.lowerBound), forKey: key)])
        if set.succeeded { knownRowIDCounters[table] = (rowIDs.lowerBound, set.revision) }
    }

    /// A rowID counter's value (nil: none yet) and the revision it was last changed at, from its
    /// record as read (nil: absent).
    private static func rowIDCounter(_ found: EtcdRecord?, of table: String) throws -> (value: UInt64?, modified: Int64) {
        guard let found else { return (nil, 0) }
        guard found.value.count == 8 else {
            throw EtcdError.damagedRowIDCounter(table: table)
        }
        return (found.value.withUnsafeBytes { $0.loadBigEndian(UInt64.self, at: 0) }, found.modRevision)
    }

    /// A rowID counter's bytes: 8, big-endian.
    private static func counterBytes(_ value: UInt64) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.appendBigEndian(value)
        return bytes
    }

    /// Marks the backend closed: later calls throw ``BackendError/closed``; stops its watch and
    /// ends ``remoteSaves``. The shared HTTP clients need no shutdown.
    ///
    /// ```swift
    /// try backend.close()
    /// ```
    public func close() throws {
        isClosed = true
        cache.removeAll()
        watch?.stop()
        watch = nil
        changeLog.close()
    }

    /// What a range read that answered a key outside the range it asked for throws.
    private var keyOutsideTheRange: EtcdError {
        .malformedReply(endpoint: client.endpoints.joined(separator: ","), reason: "a range read answered a key outside the range")
    }

    /// Stops the backend's watch, as if it could not reach the cluster (tests only).
    package func stopWatching() {
        watch?.stop()
    }

    private func checkOpen() throws {
        if isClosed { throw BackendError.closed }
    }
}
