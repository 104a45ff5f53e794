// PendingIndexBuild: a class's index changes left for first use: at registration, the objects of
// a class whose indexes must be built referenced a class not registered yet. The indexes are
// built, the dropped ones emptied and the index record written at the class's first query or
// save, all in one batch.

/// What a class's first query or save still has to write for its indexes.
internal struct PendingIndexBuild {
    /// The class's index record, as it will be once the build is written.
    var record: ObjectIndexRecord
    /// The new indexes to build from the saved objects.
    var unbuilt: [ObjectIndexState]
    /// The tables of the indexes no longer declared, to empty.
    var droppedTables: [String]
}
