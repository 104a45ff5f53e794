// StorePool: a store for Swift concurrency, after GRDB's DatabasePool. One writer context, used
// by one `write` at a time in call order on a queue of its own; read contexts, each used by one
// `read` at a time, in parallel with other reads and with the writer. All share one set of open
// files (SnapshotBackend): a read sees the generation that was newest when it began, whole, for
// its whole closure, while commits land beside it. Closures take a Store and return Sendable
// values: live objects cannot leave them.

import Foundation
import Synchronization

/// A store shared across tasks: concurrent reads, serialized writes, each on a ``Store``
/// context of its own.
///
/// ```swift
/// let pool = try StorePool(path: "/tmp/music.larder", classes: [Song.self, Playlist.self])
/// try await pool.write { store in
///     let song = Song()
///     song.title = "So What"
///     try store.insert(song)
/// }                                             // saved when the closure returns
/// let titles = try await pool.read { store in   // runs beside other reads and the writer
///     try store.allObjects(of: Song.self).map(\.title)
/// }
/// ```
///
/// A read sees the last save committed when it began, whole, and keeps seeing it until its
/// closure returns, however many saves land meanwhile. Its store is read-only: inserting,
/// deleting or saving throws ``StoreError/readOnly``, and a property it sets is forgotten
/// when the closure returns. Writes run one at a time, in the order they were called, on a
/// queue of the pool's own (its thread, not a task's, waits for the disk); each is one atomic
/// ``Store/saveChanges()`` when its closure returns, or nothing if it throws. Reads and the
/// writer share the open files, one call at a time, but a read of a value the pool already
/// knows (read before, or written by the last commit) does not touch them; only a read of a
/// value no one has read since the pool opened waits while a commit writes, flushes included.
///
/// A ``Store`` stays the tool for one thread; a pool opens the store's directory as a store
/// does (one pool or store per directory per process).
public final class StorePool: Sendable {
    /// Read contexts a pool keeps unless told otherwise (as GRDB's `maximumReaderCount`).
    public static let defaultMaximumReaderCount = 8

    private let files: SnapshotBackend
    private let opening: ContextOpening
    private let writer: PoolContext
    private let writeGate = AsyncGate(places: 1)
    private let readGate: AsyncGate
    private let maximumReaderCount: Int
    private let idleReaders = Locked<[PoolContext]>([])
    /// The writer's saved metadata after the last write (ContextSeed), and that of the
    /// generation before it: a read registered at that one just before a commit was published
    /// (its thread preempted by the writer's, say) opens from it instead of from the files,
    /// which means walking `_store` and waiting for the files' lock the next commit holds.
    private let seeds: Locked<(previous: ContextSeed?, newest: ContextSeed)>
    private let writeQueue = DispatchQueue(label: "Larder.StorePool.writer")
    private let closed = Atomic(false)

    /// Opens (or creates) the store directory at `path`, with `classes` registered in every
    /// context, and at most `maximumReaderCount` reads running at once (more wait their turn).
    ///
    /// ```swift
    /// let pool = try StorePool(path: "/tmp/music.larder", configuration: .init(durability: .noSync),
    ///                          classes: [Song.self, Playlist.self])
    /// ```
    public convenience init(path: String, configuration: Store.Configuration = .init(),
                            classes: [StoredObject.Type], maximumReaderCount: Int = StorePool.defaultMaximumReaderCount) throws {
        try self.init(backend: TokyoCabinetBackend(path: path, configuration: configuration.backend),
                      configuration: configuration, classes: classes, maximumReaderCount: maximumReaderCount)
    }

    /// Opens a pool on `backend`, which it owns from now on (use it no other way). A backend
    /// other clients save to (``Backend/isShared``, an etcd cluster) is refused with
    /// ``StoreError/sharedBackendInPool`` and left to the caller: a read's snapshot could not
    /// follow their saves. Use a ``Store`` and ``Store/refresh()`` there.
    ///
    /// ```swift
    /// let pool = try StorePool(backend: MemoryBackend(), classes: [Song.self])
    /// ```
    public init(backend: any Backend, configuration: Store.Configuration = .init(),
                classes: [StoredObject.Type], maximumReaderCount: Int = StorePool.defaultMaximumReaderCount) throws {
        guard !backend.isShared else { throw StoreError.sharedBackendInPool }
        files = SnapshotBackend(base: backend)
        let store = try Store(backend: files, configuration: configuration)
        for type in classes { try store.register(type) }
        store.belongsToPool = true
        writer = PoolContext(store: store, generation: 0)
        opening = try ContextOpening(configuration: configuration, classes: classes, cipher: store.cipher)
        self.maximumReaderCount = max(1, maximumReaderCount)
        readGate = AsyncGate(places: self.maximumReaderCount)
        seeds = Locked((previous: nil, newest: store.contextSeed(generation: files.generation)))
        files.publish(files.generation)
        store.commitAdopted = { [unowned self] in publishWritersState() }
    }

    deinit {
        writer.store.commitAdopted = nil
        writer.store.belongsToPool = false
        writer.store.discardChanges()
        try? writer.store.close()
    }

    /// Runs `body` on a read context showing the last committed save, in parallel with other
    /// reads and with the writer, and returns its result. The store is read-only; changes made
    /// to its objects are discarded when `body` returns. Waits for a context when
    /// `maximumReaderCount` reads run; a task cancelled while it waits throws
    /// `CancellationError`.
    ///
    /// ```swift
    /// let count = try await pool.read { try $0.count(of: Song.self) }
    /// ```
    @concurrent
    public func read<T: Sendable>(_ body: @Sendable (Store) throws -> T) async throws -> T {
        try await withReadContext(body)
    }

    /// Runs `body` on the writer context once the writes called before it are done, then saves
    /// what it changed in one atomic save (nothing when it throws, or when the save throws) and
    /// returns its result. Reads run meanwhile; they see the save once it is committed. A task
    /// cancelled while it waits its turn throws `CancellationError` and writes nothing; once
    /// its turn has come the write runs to its end.
    ///
    /// ```swift
    /// let rowID = try await pool.write { store in
    ///     let song = Song()
    ///     try store.insert(song)
    ///     return song.rowID
    /// }
    /// ```
    @concurrent
    public func write<T: Sendable>(_ body: @escaping @Sendable (Store) throws -> T) async throws -> T {
        try await writeGate.enter()
        defer { writeGate.leave() }
        try checkOpen()
        return try await withCheckedThrowingContinuation { continuation in
            writeQueue.async { [self] in
                let result = Result { try writer.runSaving(body) }
                // Saved or not, the writer's saved state is the newest generation's (a save
                // that changed nothing published nothing yet).
                publishWritersState()
                continuation.resume(with: result)
            }
        }
    }

    /// Every committed save, as ``Store/changes``: one ``StoreChange`` per save made through
    /// ``write(_:)``, in commit order, from now on.
    ///
    /// ```swift
    /// for await change in pool.changes { print(change.sequence, change.classNames) }
    /// ```
    public var changes: AsyncStream<StoreChange> { changes(bufferSize: 256) }

    /// ``changes`` with a buffer of `bufferSize` changes for a slow reader (beyond it, a gap
    /// marker), as ``Store/changes(bufferSize:)``.
    ///
    /// ```swift
    /// let feed = pool.changes(bufferSize: 16)
    /// ```
    public func changes(bufferSize: Int) -> AsyncStream<StoreChange> {
        writer.store.changeFeed.subscribe(bufferSize: bufferSize)
    }

    /// Closes the pool once the running reads and writes are done: reads and writes called
    /// after throw ``StoreError/closed``, and the change feeds finish.
    ///
    /// ```swift
    /// try await pool.close()
    /// ```
    public func close() async throws {
        try await writeGate.enter()
        defer { writeGate.leave() }
        guard !closed.load(ordering: .acquiring) else { return }
        // Every read place, so that the running reads end before the files close; the reads
        // waiting behind them then find the pool closed.
        for taken in 0 ..< maximumReaderCount {
            do {
                try await readGate.enter()
            } catch {
                for _ in 0 ..< taken { readGate.leave() }
                throw error
            }
        }
        defer { for _ in 0 ..< maximumReaderCount { readGate.leave() } }
        closed.store(true, ordering: .releasing)
        let writer = self.writer
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            writeQueue.async {
                continuation.resume(with: Result {
                    writer.store.belongsToPool = false
                    try writer.store.close()
                })
            }
        }
        idleReaders.withLock { $0.removeAll() }
    }

    // MARK: Internal

    /// How many undos the files keep (for the tests: none once no read runs).
    internal var keptUndoCount: Int { files.keptUndoCount }

    /// Runs `body` holding the files' lock, as a commit does (for the tests).
    internal func holdingTheFiles<T>(_ body: () throws -> T) rethrows -> T {
        try files.withFiles { _ in try body() }
    }

    /// Free and waiting places of the read and write gates (for the tests: nothing leaks).
    internal var gateCounts: (reads: (free: Int, waiting: Int), writes: (free: Int, waiting: Int)) {
        (readGate.counts, writeGate.counts)
    }

    /// A new read context of the newest generation, opened from the writer's saved metadata or
    /// from the files (for the tests, which compare the two). No write may run meanwhile.
    internal func newReadContext(seeded: Bool) throws -> Store {
        let view = SnapshotView(shared: files, generation: files.generation)
        let seed = seeded ? seeds.withLock { $0.newest } : writer.store.contextSeed(generation: .max)
        return try opening.open(view, seed: seed).store
    }

    /// Runs `body` on a read context: the work of ``read(_:)``, for closures the pool's own
    /// code passes (an observation's, which notes what it reads).
    internal func withReadContext<T>(_ body: (Store) throws -> T) async throws -> T {
        try await readGate.enter()
        defer { readGate.leave() }
        try checkOpen()
        let generation = files.beginRead()
        defer { files.endRead(generation) }
        let context = try readContext(at: generation)
        defer { idleReaders.withLock { $0.append(context) } }
        return try context.run(body)
    }

    // MARK: Private

    /// Makes the writer's saved state the one reads begin at: its metadata becomes the seed of
    /// new read contexts, then its generation the visible one. Runs on the writer's queue,
    /// after each commit the writer adopts (before its change is published, so that whoever
    /// hears of a change reads it) and at the end of each write.
    private func publishWritersState() {
        let newest = writer.store.contextSeed(generation: files.generation)
        seeds.withLock { seeds in
            if seeds.newest.generation != newest.generation { seeds.previous = seeds.newest }
            seeds.newest = newest
        }
        files.publish(newest.generation)
    }

    private func checkOpen() throws {
        if closed.load(ordering: .acquiring) { throw StoreError.closed }
    }

    /// An idle context of `generation`, or a new one: a context of an older generation holds
    /// objects and pages of that state, and is dropped (closed after the lock is let go: the
    /// other reads take and give back their contexts under it).
    private func readContext(at generation: UInt64) throws -> PoolContext {
        let (idle, stale) = idleReaders.withLock { idle -> (PoolContext?, [PoolContext]) in
            if let index = idle.lastIndex(where: { $0.generation == generation }) { return (idle.remove(at: index), []) }
            let stale = idle.filter { $0.generation < generation }
            idle.removeAll { $0.generation < generation }
            return (nil, stale)
        }
        withExtendedLifetime(stale) {}   // freed here, the lock let go
        if let idle { return idle }
        let seed = seeds.withLock { seeds in
            seeds.previous.flatMap { $0.generation == generation ? $0 : nil } ?? seeds.newest
        }
        return try opening.open(SnapshotView(shared: files, generation: generation), seed: seed)
    }
}
