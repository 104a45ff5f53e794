// DocumentStore+Refresh: a store on a backend other clients write too (etcd) takes in their saves.
// The backend moves its reads to the newest state and says which keys of which tables changed;
// every collection whose documents, index tables or definition (in `_store`) are among them (all,
// when the backend cannot tell) is retired, so that its next operation starts again from the
// stored definition with empty caches (the documents' cache, the page cache, the count, the
// sealed runs' directories: the same as a rekey does), and its subscribers get a gap marker:
// which documents another client's save changed is not known here (a changed key is a page of
// 128 documents, and the page as it was is not kept), so they read again.

import Larder

extension DocumentStore {
    /// Takes in other clients' saves: moves the store's reads to the newest state of its backend
    /// and starts every collection they changed again from what is stored. Subscribers of a
    /// changed collection's ``DocumentCollection/changes`` get a gap marker
    /// (``DocumentChange/missed``): read again. Returns whether anything changed. On a backend
    /// only this store writes (Tokyo Cabinet, memory) it returns false at once.
    ///
    /// ```swift
    /// // One of several clients of a store on etcd:
    /// Task { @MainActor in
    ///     for await _ in etcdBackend.remoteSaves { try store.refresh() }
    /// }
    /// ```
    ///
    /// A write of this store made before the refresh that another client's save came before
    /// fails with that backend's conflict error (etcd's), changing nothing: refresh and retry.
    @discardableResult
    public func refresh() throws -> Bool {
        try withLock {
            // Every collection under its lock: operations under way end first, and the
            // store's lock keeps new ones from starting.
            let engines = states
            for state in engines.values { state.lock.lock() }
            defer { for state in engines.values { state.lock.unlock() } }
            guard case .changed(let keys) = try backend.refreshToNewestState() else { return false }
            for (name, state) in engines where Self.collection(name, isChangedBy: keys) {
                state.isRetired = true
                states[name] = nil
                feed(of: name).publishChangesOfOtherClients()
            }
            return true
        }
    }

    /// Whether `keys` (nil: any) touch the collection's documents, index tables or definition.
    private static func collection(_ name: String, isChangedBy keys: [String: Set<[UInt8]>]?) -> Bool {
        guard let keys else { return true }
        // A collection's name holds no dot: its index tables are "<name>.<id>.idx".
        let indexTables = name + "."
        if keys.keys.contains(where: { $0 == name || $0.hasPrefix(indexTables) }) { return true }
        return keys[metadataTable]?.contains(CollectionDefinition.metadataKey(for: name)) ?? false
    }
}
