// SnapshotBackend: the one backend a StorePool's contexts share. Every call into the files is
// made under one lock (a backend serves one thread at a time); the writer's commit keeps, before
// it changes a byte, the values its batch overwrites (CommitUndo), so that each read goes on
// seeing the state of the generation it began at (SnapshotView) while later commits land.
// Generations count the commits made through the pool; an undo is dropped once no read of an
// older generation runs and none can begin at one (reads begin at the generation last published).

import Foundation
import Synchronization

/// The files of a pool, shared by its writer (which reads and writes the newest state through
/// this backend) and its readers (each through a ``SnapshotView`` of one generation).
internal final class SnapshotBackend: Backend, @unchecked Sendable {
    // @unchecked: `base` is only touched under `physical`; the rest is Locked or an Atomic.

    /// A key of a table, for the newest values kept.
    private struct TableKey: Hashable {
        let table: String
        let key: [UInt8]
        /// The table's name and the key's bytes hashed when the key is made, before the lock
        /// its look-up runs under is taken: every point read of a pool looks a page up here,
        /// under the lock its writer and the other reads take too, and hashing the name and
        /// the bytes there made each hold longer (the dictionary then mixes only this number).
        let digest: Int

        init(table: String, key: [UInt8]) {
            self.table = table
            self.key = key
            var hasher = Hasher()
            hasher.combine(table)
            key.withUnsafeBytes { hasher.combine(bytes: $0) }
            digest = hasher.finalize()
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(digest)
        }

        static func == (lhs: TableKey, rhs: TableKey) -> Bool {
            lhs.digest == rhs.digest && lhs.key == rhs.key && lhs.table == rhs.table
        }
    }

    private struct State {
        /// Values of the newest generation that reads found in the files or the last commit
        /// wrote (nil bytes: none), so that the next reads of them need not wait for the files'
        /// lock; a commit forgets the keys it writes before it writes them, and keeps what it
        /// wrote once it succeeded.
        var newest: [TableKey: CommitUndo.BeforeImage] = [:]
        /// Bytes `newest` holds; past ``newestByteLimit`` it is emptied.
        var newestBytes = 0
        /// The tables declared ordered.
        var orderedTables: Set<String> = []
        /// The generation of the last commit that succeeded.
        var generation: UInt64 = 0
        /// The undos reads may still need, oldest first; one whose generation is above
        /// `generation` belongs to a commit that threw (merged into the next).
        var undos: [CommitUndo] = []
        /// How many reads run at each generation.
        var readers: [UInt64: Int] = [:]
        /// The generation reads begin at: the last one the pool published (the end of a write,
        /// whose commits are all in it, and whose metadata the pool's seed holds).
        var visible: UInt64 = 0

        /// Drops the undos no read needs: a read of generation g needs those above g, and a
        /// read that begins later begins at `visible`. Returns them, so that the caller frees
        /// their images after it lets go of the lock (a reader's `endRead` or the writer's
        /// commit would otherwise free a commit's dictionaries while the other reads wait).
        mutating func prune() -> [CommitUndo] {
            guard !undos.isEmpty else { return [] }
            let floor = min(readers.keys.min() ?? visible, visible)
            var dropped: [CommitUndo] = []
            undos.removeAll { undo in
                guard undo.generation <= floor else { return false }
                dropped.append(undo)
                return true
            }
            return dropped
        }

        /// The earliest before-image of `key` among the undos of commits after `generation`.
        func image(of key: [UInt8], in table: String, after generation: UInt64) -> CommitUndo.BeforeImage? {
            for undo in undos where undo.generation > generation {
                if let image = undo.beforeImage(of: key, in: table) { return image }
            }
            return nil
        }

        /// Empties `newest` when `incoming` more bytes would take it past ``newestByteLimit``.
        mutating func makeRoom(for incoming: Int) {
            guard newestBytes > SnapshotBackend.newestByteLimit - incoming else { return }
            newest.removeAll()
            newestBytes = 0
        }

        /// Keeps `image` as the newest value of `key`, its cost counted (a replaced value's
        /// taken off, and returned for the caller to free outside the lock).
        mutating func keepNewest(_ image: CommitUndo.BeforeImage, of key: TableKey) -> CommitUndo.BeforeImage? {
            let replaced = newest.updateValue(image, forKey: key)
            if let replaced { newestBytes -= Self.cost(of: key.key, replaced) }
            newestBytes += Self.cost(of: key.key, image)
            return replaced
        }

        /// What a newest value takes of ``newestByteLimit``: its key, its bytes, and about 64 of
        /// the dictionary's.
        static func cost(of key: some Collection, _ image: CommitUndo.BeforeImage) -> Int {
            key.count + (image.bytes?.count ?? 0) + 64
        }
    }

    /// Bytes of newest values a pool keeps for its reads.
    static let newestByteLimit = 64 << 20

    private let base: any Backend
    /// Held around every call into `base`. Recursive: a read's body may read again.
    private let physical = NSRecursiveLock()
    private let state = Locked(State())
    /// The newest generation an undo was kept for: a read of it or later needs no lookup.
    private let newestUndo = Atomic<UInt64>(0)

    init(base: any Backend) {
        self.base = base
    }

    /// The generation of the newest commit.
    var generation: UInt64 { state.withLock { $0.generation } }

    /// How many undos are kept (for the tests: none once no read runs).
    var keptUndoCount: Int { state.withLock { $0.undos.count } }

    /// Registers a read of the visible generation, returned; ``endRead(_:)`` ends it.
    func beginRead() -> UInt64 {
        state.withLock { state in
            state.readers[state.visible, default: 0] += 1
            return state.visible
        }
    }

    /// Makes `generation` (committed) the one reads begin at, and drops the undos only the
    /// older ones needed.
    func publish(_ generation: UInt64) {
        let dropped = state.withLock { state in
            state.visible = min(generation, state.generation)
            return state.prune()
        }
        withExtendedLifetime(dropped) {}   // freed here, the lock let go
    }

    /// Ends a read begun at `generation`, dropping the undos only it needed.
    func endRead(_ generation: UInt64) {
        let dropped = state.withLock { state in
            let left = (state.readers[generation] ?? 1) - 1
            state.readers[generation] = left > 0 ? left : nil
            return state.prune()
        }
        withExtendedLifetime(dropped) {}   // freed here, the lock let go
    }

    /// Runs `body` with the files, under the lock.
    func withFiles<R>(_ body: (any Backend) throws -> R) rethrows -> R {
        physical.lock()
        defer { physical.unlock() }
        return try body(base)
    }

    /// `key`'s value in `table` as a read of `generation` must see it, when a later commit
    /// changed it; nil when the files hold it. Called under the lock, so that no commit starts
    /// between this look-up and the read of the files.
    func beforeImage(of key: [UInt8], in table: String, at generation: UInt64) -> CommitUndo.BeforeImage? {
        guard newestUndo.load(ordering: .relaxed) > generation else { return nil }
        return state.withLock { $0.image(of: key, in: table, after: generation) }
    }

    /// `key`'s value in `table` as a read of `generation` sees it, when it is known without the
    /// files: a later commit's before-image, or a newest value no commit after `generation`
    /// changed (every commit since a running read began kept its images, so a key in none of
    /// them holds the same value now). Needs no files' lock: a commit forgets the keys it writes
    /// in the same lock hold that keeps their images.
    func knownValue(of key: [UInt8], in table: String, at generation: UInt64) -> CommitUndo.BeforeImage? {
        let tableKey = TableKey(table: table, key: key)
        return state.withLock { state in
            let changedSince = newestUndo.load(ordering: .relaxed) > generation
            return (changedSince ? state.image(of: key, in: table, after: generation) : nil)
                ?? state.newest[tableKey]
        }
    }

    /// Keeps `value`, just read from the files under their lock by a read that found no later
    /// commit's image of it: it is the newest generation's.
    func keepNewest(_ value: [UInt8]?, of key: [UInt8], in table: String) {
        let tableKey = TableKey(table: table, key: key)
        let replaced = state.withLock { state in
            state.makeRoom(for: 0)
            return state.keepNewest(CommitUndo.BeforeImage(bytes: value), of: tableKey)
        }
        withExtendedLifetime(replaced) {}   // freed here, the lock let go
    }

    /// Every key of `table` a commit after `generation` changed, with its value at
    /// `generation` (the earliest before-image). Called under the lock.
    func overlay(of table: String, at generation: UInt64) -> [[UInt8]: CommitUndo.BeforeImage] {
        guard newestUndo.load(ordering: .relaxed) > generation else { return [:] }
        return state.withLock { state in
            var overlay: [[UInt8]: CommitUndo.BeforeImage] = [:]
            for undo in state.undos where undo.generation > generation && undo.touches(table) {
                overlay.merge(undo.images(in: table)) { earlier, _ in earlier }
            }
            return overlay
        }
    }

    // MARK: Backend (the writer's view: the newest state)

    func readValue(forKey key: [UInt8], in table: String, _ body: (UnsafeRawBufferPointer?) throws -> Void) throws {
        try withFiles { try $0.readValue(forKey: key, in: table, body) }
    }

    func readValues(forKeys keys: [[UInt8]], in table: String, _ body: (Int, UnsafeRawBufferPointer?) throws -> Void) throws {
        try withFiles { try $0.readValues(forKeys: keys, in: table, body) }
    }

    func withValuesInPlace(forKeys keys: [[UInt8]], in table: String,
                           _ body: (UnsafeBufferPointer<UnsafeRawBufferPointer>) throws -> Void) throws -> Bool {
        try withFiles { try $0.withValuesInPlace(forKeys: keys, in: table, body) }
    }

    func withValuesInPlace(forKeys keys: PackedKeys, in table: String,
                           _ body: (UnsafeBufferPointer<UnsafeRawBufferPointer>) throws -> Void) throws -> Bool {
        try withFiles { try $0.withValuesInPlace(forKeys: keys, in: table, body) }
    }

    func withRecordsInPlace(in table: String,
                            _ body: ([(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)]) throws -> Void) throws -> Bool {
        try withFiles { try $0.withRecordsInPlace(in: table, body) }
    }

    /// Declares `table` ordered in the files once (each context's registration declares its
    /// classes' tables again, which would wait for the files' lock).
    func declareOrderedTable(_ table: String) {
        guard !state.withLock({ $0.orderedTables.contains(table) }) else { return }
        withFiles { files in
            if state.withLock({ $0.orderedTables.insert(table).inserted }) { files.declareOrderedTable(table) }
        }
    }

    func forEachRecord(in table: String,
                       _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws {
        try withFiles { try $0.forEachRecord(in: table, body) }
    }

    func forEachRecord(in table: String, from start: [UInt8]?, through end: [UInt8]?, reverse: Bool,
                       _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws {
        try withFiles { try $0.forEachRecord(in: table, from: start, through: end, reverse: reverse, body) }
    }

    func forEachRecord(in table: String, holding start: [UInt8], through end: [UInt8]?,
                       _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws {
        try withFiles { try $0.forEachRecord(in: table, holding: start, through: end, body) }
    }

    func recordCount(in table: String) throws -> Int {
        try withFiles { try $0.recordCount(in: table) }
    }

    /// Commits `batch`, keeping first the values it overwrites (one read of each key it
    /// replaces or removes; a key it inserts had none) for the reads of older generations:
    /// those running, and those that begin before the pool publishes the new one.
    func apply(_ batch: WriteBatch) throws {
        physical.lock()
        defer { physical.unlock() }
        var undo = CommitUndo(generation: generation + 1)
        for table in batch.tables {
            try batch.forEachOperation(in: table) { kind, key, _ in
                let key = Array(key)
                guard kind != .insert else { return undo.keep(.init(bytes: nil), of: key, in: table) }
                var bytes: [UInt8]?
                try base.readValue(forKey: key, in: table) { bytes = $0.map { Array($0) } }
                undo.keep(.init(bytes: bytes), of: key, in: table)
            }
        }
        // Keys hashed and values copied before the lock is taken, and what the lock's holds
        // drop freed after it is let go: the reads wait for each hold.
        let written = Self.writtenValues(of: batch)
        let forgotten = state.withLock { state in
            if let failed = state.undos.last, failed.generation == undo.generation {
                undo.absorb(failed)
                state.undos.removeLast()
            }
            state.undos.append(undo)
            return Self.forgetNewest(of: written.keys, in: &state)
        }
        withExtendedLifetime(forgotten) {}   // freed here, the lock let go
        newestUndo.store(undo.generation, ordering: .relaxed)
        // A commit that throws keeps its undo (the files may hold part of it): reads go on
        // seeing the generation before it, and the next commit takes its images over.
        try base.apply(batch)
        let dropped = state.withLock { state in
            state.generation = undo.generation
            let replaced = written.images.map { Self.keepNewest($0, of: written.keys, cost: batch.byteCount + 64 * batch.operationCount, in: &state) }
            return (replaced, state.prune())
        }
        withExtendedLifetime(dropped) {}   // freed here, the lock let go
    }

    func close() throws {
        try withFiles { try $0.close() }
    }

    /// The keys `batch` writes, and the values it leaves them (nil bytes: removed) when it is
    /// small beside ``newestByteLimit`` (else nil: ``keepNewest(_:of:cost:in:)`` keeps none).
    private static func writtenValues(of batch: WriteBatch) -> (keys: [TableKey], images: [CommitUndo.BeforeImage]?) {
        let keepsValues = batch.byteCount <= newestByteLimit / 16
        var keys: [TableKey] = []
        var images: [CommitUndo.BeforeImage] = []
        keys.reserveCapacity(batch.operationCount)
        if keepsValues { images.reserveCapacity(batch.operationCount) }
        for table in batch.tables {
            batch.forEachOperation(in: table) { kind, key, value in
                keys.append(TableKey(table: table, key: Array(key)))
                if keepsValues { images.append(CommitUndo.BeforeImage(bytes: kind == .delete ? nil : Array(value))) }
            }
        }
        return (keys, keepsValues ? images : nil)
    }

    /// Forgets the newest values of `keys` (the keys a batch writes); returns them, for the
    /// caller to free once the lock is let go.
    private static func forgetNewest(of keys: [TableKey], in state: inout State) -> [CommitUndo.BeforeImage] {
        guard !state.newest.isEmpty else { return [] }
        var gone: [CommitUndo.BeforeImage] = []
        for key in keys {
            if let image = state.newest.removeValue(forKey: key) {
                state.newestBytes -= State.cost(of: key.key, image)
                gone.append(image)
            }
        }
        return gone
    }

    /// Keeps `images`, what a batch just committed wrote to `keys` (`cost`: its bytes and
    /// operations), as the newest values of those keys: the reads of the generation it makes
    /// find them without the files' lock, which the next commit may hold for its whole write
    /// (a `.full` commit: a dozen fsyncs). No read of that generation has begun yet, and reads
    /// of older ones take these keys from the commit's undo. Returns the values replaced, for
    /// the caller to free once the lock is let go.
    private static func keepNewest(_ images: [CommitUndo.BeforeImage], of keys: [TableKey], cost: Int,
                                   in state: inout State) -> [CommitUndo.BeforeImage] {
        state.makeRoom(for: cost)
        var replaced: [CommitUndo.BeforeImage] = []
        for (key, image) in zip(keys, images) {
            if let old = state.keepNewest(image, of: key) { replaced.append(old) }
        }
        return replaced
    }

    func compact() throws {
        try withFiles { try $0.compact() }
    }

    var isReadOnly: Bool { base.isReadOnly }

    var isShared: Bool { base.isShared }
}
