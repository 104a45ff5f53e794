// ReadDependencies: what an observation's fetch read, noted by the store while the fetch runs:
// the classes whose objects it reached (by storage name: a fetch, a query, a count, a text
// search, a reference or a fault filled), the named buffers it read, and whether it listed
// them. A committed change that touches none of these cannot change the fetch's value.

/// The classes and named buffers one run of a fetch read.
internal final class ReadDependencies {
    private(set) var classNames: Set<String> = []
    private(set) var namedBuffers: Set<String> = []
    /// Whether the fetch listed the named buffers (``Store/dataBufferNames()``).
    private(set) var readsBufferNames = false

    func noteClass(_ name: String) { classNames.insert(name) }

    func noteNamedBuffer(_ name: String) { namedBuffers.insert(name) }

    func noteBufferNames() { readsBufferNames = true }

    /// Whether the committed `change` may change what was read.
    func isAffected(by change: StoreChange) -> Bool {
        if !change.namedBuffers.isEmpty, readsBufferNames || !namedBuffers.isDisjoint(with: change.namedBuffers) { return true }
        return !classNames.isDisjoint(with: change.classNames)
    }
}
