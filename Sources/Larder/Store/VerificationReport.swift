// VerificationReport: what Store.verify() found: counts per class and every problem, each
// naming the class and rowID (or buffer name, or save) concerned.

/// The result of ``Store/verify()``: what was checked and what is wrong.
///
/// ```swift
/// let report = try store.verify()
/// if !report.isHealthy {
///     for problem in report.problems { print(problem) }
/// }
/// ```
public struct VerificationReport: Sendable, Equatable {
    /// What was checked in one class file.
    public struct ClassSummary: Sendable, Equatable {
        /// The class's storage name.
        public var name: String
        /// Records in the file.
        public var recordCount: Int
        /// Bytes of record values in the file.
        public var byteCount: Int
        /// Whether records were decoded with the class's `readContent` (only for classes
        /// registered in this session; the others are checked for damage only).
        public var decoded: Bool
    }

    /// One thing wrong in the store.
    public enum Problem: Sendable, Equatable, CustomStringConvertible {
        /// A record's checksum or envelope is wrong.
        case corruptRecord(class: String, rowID: UInt64)
        /// A record's content does not decode.
        case undecodableRecord(class: String, rowID: UInt64, reason: String)
        /// A record refers to a row that should exist (it was handed out and never deleted)
        /// but has no record.
        case danglingReference(fromClass: String, fromRowID: UInt64, toClass: String, toRowID: UInt64)
        /// A named buffer is damaged.
        case corruptNamedBuffer(name: String)
        /// A key in a file is not a valid key for that file.
        case malformedKey(table: String)
        /// A record exists at or above the class's next rowID (never handed out) or at a rowID
        /// recorded as deleted.
        case unexpectedRowID(class: String, rowID: UInt64)
        /// The class's full-text index is damaged or disagrees with its objects.
        case textIndexMismatch(class: String, reason: String)
        /// A class file or the named buffers hold fewer records than the registry says: records
        /// were removed, or the file was emptied or replaced.
        case missingRecords(table: String, expected: Int, found: Int)
        /// An object index whose entries differ from the ones its class's objects give
        /// (``Store/rebuildIndexes(of:)`` rebuilds it).
        case objectIndexMismatch(class: String, index: String, reason: String)
        /// A record of the change log is missing, damaged, does not fit the store (a class it
        /// names does not exist, a rowID was never handed out), or lies outside the saves the
        /// `sequence` record says are kept.
        case corruptChangeLog(sequence: UInt64, reason: String)
        /// A version in a class's history is damaged, does not decode, or names a save the
        /// store has not made or a rowID the class never handed out.
        case corruptHistory(class: String, rowID: UInt64, sequence: UInt64, reason: String)

        /// A sentence naming the problem, its class and rowID (or name).
        public var description: String {
            switch self {
            case let .corruptRecord(name, rowID): return "\(name) \(rowID): damaged record"
            case let .undecodableRecord(name, rowID, reason): return "\(name) \(rowID): does not decode: \(reason)"
            case let .danglingReference(from, fromRowID, to, toRowID):
                return "\(from) \(fromRowID) refers to \(to) \(toRowID), which does not exist"
            case let .corruptNamedBuffer(name): return "named buffer '\(name)': damaged"
            case let .malformedKey(table): return "\(table): a key is malformed"
            case let .unexpectedRowID(name, rowID): return "\(name) \(rowID): rowID was never handed out"
            case let .textIndexMismatch(name, reason): return "\(name) full-text index: \(reason)"
            case let .objectIndexMismatch(name, index, reason): return "\(name) index \(index): \(reason)"
            case let .missingRecords(table, expected, found): return "\(table): \(expected) records expected, \(found) found"
            case let .corruptChangeLog(sequence, reason): return "change record of save \(sequence): \(reason)"
            case let .corruptHistory(name, rowID, sequence, reason): return "\(name) \(rowID) version of save \(sequence): \(reason)"
            }
        }
    }

    /// One summary per class in the registry, by name.
    public var classes: [ClassSummary] = []
    /// Named buffers checked.
    public var namedBufferCount = 0
    /// Change log records checked (the saves ``Store/changes(since:)`` can still give).
    public var changeRecordCount = 0
    /// Versions checked in the histories of classes that keep history.
    public var historyVersionCount = 0
    /// References to rows that were deleted: they read as nil (by design), and show where a
    /// delete rule did not clear a relationship. Not a problem of the store.
    public var referencesToDeletedRows = 0
    /// Every problem found, in the order found.
    public var problems: [Problem] = []

    /// True when nothing is wrong.
    public var isHealthy: Bool { problems.isEmpty }
}
