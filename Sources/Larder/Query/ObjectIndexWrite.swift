// ObjectIndexWrite: what a batch writes to object indexes, made the indexes' own only once the
// batch is applied: the tables written (an encrypted table's run directory changes with its
// runs) and the classes whose indexes it built.

/// Index tables and builds a batch holds, adopted after it is applied.
internal struct ObjectIndexWrite {
    var tables: [(ObjectIndexState, IndexTable)] = []
    var builtEntries: [ClassEntry] = []

    /// Called once the batch is applied.
    mutating func adopt() {
        for (index, table) in tables { index.table = table }
        for entry in builtEntries { entry.pendingIndexBuild = nil }
        self = ObjectIndexWrite()
    }
}
