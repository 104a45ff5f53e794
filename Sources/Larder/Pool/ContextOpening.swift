// ContextOpening: how a StorePool opens a read context: a Store over a snapshot view with the
// pool's configuration and classes, and a copy of the writer's unlocked cipher, so that an
// encrypted store's key is derived once per pool, not once per context.

/// What a pool needs to open a read context.
internal struct ContextOpening: @unchecked Sendable {
    // @unchecked: the metatypes and the template cipher are only read (a cipher's duplicate()
    // reads its key and settings, set once).

    let configuration: Store.Configuration
    let classes: [StoredObject.Type]
    /// A copy of the writer's cipher, never used to seal or open: read contexts duplicate it.
    let cipher: RecordCipher?

    init(configuration: Store.Configuration, classes: [StoredObject.Type], cipher: RecordCipher?) throws {
        self.configuration = configuration
        self.classes = classes
        self.cipher = try Store.encryptionFailure { try cipher?.duplicate() }
    }

    /// A read-only context over `view`, with the pool's classes registered: from `seed` when
    /// it is of the view's generation, else from the metadata the view shows.
    func open(_ view: SnapshotView, seed: ContextSeed) throws -> PoolContext {
        let generation = view.generation
        let fitting = seed.generation == generation ? seed : nil
        let store = try Store(backend: view, configuration: configuration, unlockedCipher: cipher, seed: fitting)
        store.belongsToPool = true
        for type in classes { try store.register(type) }
        if let fitting { store.adoptRecordCounts(of: fitting) }
        return PoolContext(store: store, generation: generation)
    }
}
