// RegistryEntry: a class's entry in the store's registry as the interchange exports and imports
// it, exactly (class ID, version, next rowID, deleted rowIDs as ranges), whether or not the
// class's Swift type is registered in this process. The records themselves are read through
// Store+RawRecords (forEachRawRecord(ofClassNamed:)) and written by the import's batches.

/// A class as the store's registry records it, whether or not its Swift class is registered in
/// this process.
package struct RegistryEntry: Equatable, Sendable {
    /// The storage name (``StoredObject/storageName``): also its class file's name.
    package let name: String
    /// The registry record: class ID, next rowID, version, deleted rowIDs.
    let record: ClassRecord
    /// The class's `@StoredModel` field schema, when it has one: its objects are exchanged by
    /// named fields.
    package var schema: StoredModelSchema?

    /// A class; nil when `deletedRowIDs` are not ascending and disjoint, or `classID` or
    /// `nextRowID` is 0.
    package init?(name: String, classID: UInt64, version: UInt8, nextRowID: UInt64, deletedRowIDs: [ClosedRange<UInt64>]) {
        guard classID >= 1, nextRowID >= 1, let deleted = RowIDRanges(validating: deletedRowIDs) else { return nil }
        self.init(name: name, record: ClassRecord(classID: classID, nextRowID: nextRowID, version: version, deletedRowIDs: deleted))
    }

    init(name: String, record: ClassRecord, schema: StoredModelSchema? = nil) {
        self.name = name
        self.record = record
        self.schema = schema
    }

    /// The ID references to its objects carry (`writeAnyReference`).
    package var classID: UInt64 { record.classID }
    /// The class's ``StoredObject/version`` when its registry entry was last written.
    package var version: UInt8 { record.version }
    /// The rowID the class hands out next: every rowID of the class is below it.
    package var nextRowID: UInt64 { record.nextRowID }
    /// RowIDs handed out and deleted (never reused), as ascending, disjoint ranges.
    package var deletedRowIDs: [ClosedRange<UInt64>] { record.deletedRowIDs.ranges }
    /// How many objects the class has: every rowID handed out and not deleted.
    package var objectCount: Int { record.expectedRecordCount }

    /// Whether an object of the class has `rowID`.
    package func holds(_ rowID: UInt64) -> Bool {
        rowID >= 1 && rowID < record.nextRowID && !record.deletedRowIDs.contains(rowID)
    }
}

extension Store {
    /// Every class of the store's registry, by class ID, as last saved, registered in this
    /// process or not.
    ///
    /// ```swift
    /// for entry in try store.registryEntries() { print(entry.name, entry.nextRowID, entry.deletedRowIDs) }
    /// ```
    package func registryEntries() throws -> [RegistryEntry] {
        try checkOpen()
        return records.map { RegistryEntry(name: $0.key, record: $0.value, schema: schema(ofClassNamed: $0.key)) }
            .sorted { $0.classID < $1.classID }
    }
}
