// InterchangeError: every way an interchange export or import fails for a reason of its own
// (bad input text, a file that cannot be read or written, a target that is not empty). Each
// case about the input carries the position of the value at fault. Damage found in the store
// being exported is a StoreError; the storage failing a BackendError.

/// An error of the interchange format: ``Store/importInterchange(from:progress:)``,
/// ``Store/exportInterchange(to:)`` and the document collections' `import(from:)` and
/// `export(to:)`. An import that throws leaves its target as it was.
///
/// ```swift
/// do {
///     try copy.importInterchange(from: URL(fileURLWithPath: "/tmp/music.json"))
/// } catch let error as InterchangeError {
///     print(error)   // line 7, column 12 (byte 230): duplicate rowID 3 of class Song
/// }
/// ```
public enum InterchangeError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The text is not JSON (or nests deeper than the reader allows).
    case malformedJSON(reason: String, at: TextPosition)
    /// The text is JSON, but not what the format says belongs there (a missing or unexpected
    /// key, a value of the wrong kind or out of range, an unknown format version).
    case invalidStructure(reason: String, at: TextPosition)
    /// An object or reference names a class the file does not declare.
    case unknownClass(String, at: TextPosition)
    /// A rowID appears twice for one class, or out of ascending order.
    case duplicateRowID(class: String, rowID: UInt64, at: TextPosition)
    /// A rowID the class's registry says does not exist (at or above its next rowID, or
    /// deleted).
    case rowIDOutsideRegistry(class: String, rowID: UInt64, at: TextPosition)
    /// A class has fewer objects than its registry says (every rowID below the next one and not
    /// deleted has one); the position is the end of the objects.
    case missingObjects(class: String, expected: Int, found: Int, at: TextPosition)
    /// A reference names an object the file does not hold.
    case danglingReference(class: String, rowID: UInt64, at: TextPosition)
    /// An object has named fields, but its class has no field schema to turn them into a record.
    case noFieldSchema(class: String, at: TextPosition)
    /// A document collection or store to import into already holds something: imports go into
    /// empty targets only, so that rowIDs and class IDs stay exactly those of the file.
    case targetNotEmpty(reason: String)
    /// The file could not be opened, read or written.
    case fileFailure(path: String, reason: String)

    /// Where in the input the error is, when it is about the input.
    ///
    /// ```swift
    /// if let position = error.position { print(position.line) }
    /// ```
    public var position: TextPosition? {
        switch self {
        case let .malformedJSON(_, position), let .invalidStructure(_, position), let .unknownClass(_, position),
             let .duplicateRowID(_, _, position), let .rowIDOutsideRegistry(_, _, position),
             let .missingObjects(_, _, _, position), let .danglingReference(_, _, position),
             let .noFieldSchema(_, position):
            return position
        case .targetNotEmpty, .fileFailure:
            return nil
        }
    }

    /// The position, then what is wrong.
    ///
    /// ```swift
    /// print(error)   // line 1, column 2 (byte 1): malformed JSON: expected a string
    /// ```
    public var description: String {
        switch self {
        case let .malformedJSON(reason, position): "\(position): malformed JSON: \(reason)"
        case let .invalidStructure(reason, position): "\(position): \(reason)"
        case let .unknownClass(name, position): "\(position): unknown class \(name)"
        case let .duplicateRowID(name, rowID, position): "\(position): duplicate or out-of-order rowID \(rowID) of class \(name)"
        case let .rowIDOutsideRegistry(name, rowID, position):
            "\(position): rowID \(rowID) of class \(name) is deleted or at or above its nextRowID"
        case let .missingObjects(name, expected, found, position):
            "\(position): class \(name) has \(found) objects, its registry says \(expected)"
        case let .danglingReference(name, rowID, position): "\(position): reference to \(name) \(rowID), which the file does not hold"
        case let .noFieldSchema(name, position): "\(position): class \(name) has no field schema for named fields"
        case let .targetNotEmpty(reason): "the import target is not empty: \(reason)"
        case let .fileFailure(path, reason): "\(path): \(reason)"
        }
    }
}
