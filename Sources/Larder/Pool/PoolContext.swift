// PoolContext: one Store of a StorePool with what the pool needs to know of it: the generation a
// read context shows (its objects and caches are of that state), and the run of a closure, which
// ends with whatever the closure left unsaved thrown away. Handed from task to task, never used
// by two at once: the pool's gates see to that.

/// A ``Store`` owned by a ``StorePool``, used by one task at a time.
internal final class PoolContext: @unchecked Sendable {
    // @unchecked: the pool hands a context to one task at a time (AsyncGate, then a locked
    // list of idle contexts, whose lock orders each hand-over).

    let store: Store
    /// The generation of the files the store shows (for the writer: the newest, always).
    let generation: UInt64

    init(store: Store, generation: UInt64) {
        self.store = store
        self.generation = generation
    }

    /// Runs `body` on the store; what it changed and did not save is discarded.
    func run<T>(_ body: (Store) throws -> T) rethrows -> T {
        defer { if store.hasUnsavedChanges { store.discardChanges() } }
        return try body(store)
    }

    /// Runs `body` on the store and saves what it changed, in one save; a throw from either
    /// discards the changes.
    func runSaving<T>(_ body: (Store) throws -> T) throws -> T {
        do {
            let result = try body(store)
            try store.saveChanges()
            return result
        } catch {
            store.discardChanges()
            throw error
        }
    }
}
