// DocumentCollection+Interchange: a collection written to and read from JSON Lines
// (docs/INTERCHANGE.md, "Document collections"): a first line with the collection's definition
// (next rowID, indexes, queryable fields, aliases, defaults), then one document per line with
// its "__rowid__", ascending. Text is read and written by Larder's JSONTextReader and
// JSONTextWriter, the package's one JSON text parser and writer.

import Foundation
import Larder

extension DocumentCollection {
    /// The interchange name of a collection file, the value of `"format"` on its first line.
    static let interchangeFormat = "larder-documents"
    static let interchangeVersion: Int64 = 1
    /// How many documents an export reads at a time.
    private static let exportChunk = 1024

    /// Writes the collection to a JSON Lines file: its definition on the first line (next
    /// rowID, index definitions, queryable fields, aliases, defaults), then every document with
    /// its `"__rowid__"`, in rowID order, keys sorted. An encrypted store's documents are written
    /// **decrypted**. The file is written beside `url` and renamed over it once complete. Memory
    /// holds the rowIDs and a thousand documents at a time. Doubles that JSON cannot hold (NaN,
    /// infinities) are written as `null`.
    ///
    /// ```swift
    /// try people.export(to: URL(fileURLWithPath: "/tmp/people.jsonl"))
    /// ```
    public func export(to url: URL) throws {
        var writer = try JSONTextWriter(path: url.path)
        try withState { state in
            var header: [JSONTextValue.Member] = [
                .init(key: "format", value: .string(Self.interchangeFormat)),
                .init(key: "version", value: .integer(Self.interchangeVersion)),
                .init(key: "collection", value: .string(name)),
            ]
            let definition = state.definition.json
            for key in ["nextRowID", "nextIndexID", "indexes", "queryable", "aliases", "defaults"] {
                header.append(.init(key: key, value: Self.text(definition[key])))
            }
            writer.value(.object(header))
            writer.raw("\n")
            var rowIDs: [Int64] = []
            try state.documents.forEachRecord { rowID, _ in
                rowIDs.append(rowID)
                return true
            }
            rowIDs.sort()
            var start = 0
            while start < rowIDs.count {
                let end = min(start + Self.exportChunk, rowIDs.count)
                for (_, document) in try state.documents(Array(rowIDs[start ..< end])) {
                    writer.value(Self.text(document))
                    writer.raw("\n")
                    try writer.flushIfFull()
                }
                start = end
            }
        }
        try writer.finish()
    }

    /// Reads a JSON Lines file written by ``export(to:)`` into this collection, which must be
    /// empty (no document ever inserted, no index, alias, queryable field or default): every
    /// document keeps its `"__rowid__"`, the collection its next rowID, index definitions (the
    /// indexes are built from the documents), queryable fields, aliases and defaults. The whole
    /// file is one atomic commit: on any error (an `InterchangeError` with its line and column,
    /// or a unique index the documents break) nothing is written. The documents are held in
    /// memory until the commit.
    ///
    /// ```swift
    /// let people = try copy.collection("people")
    /// try people.import(from: URL(fileURLWithPath: "/tmp/people.jsonl"))
    /// ```
    public func `import`(from url: URL) throws {
        var reader = try JSONTextReader(path: url.path)
        try withState { state in
            let current = state.definition
            guard current.nextRowID == 1, current.indexes.isEmpty, current.aliases.isEmpty, current.queryableFields.isEmpty,
                  current.defaults == [:], try state.documentCount() == 0 else {
                throw InterchangeError.targetNotEmpty(reason: "collection \(name) has documents or definitions")
            }
            var write = state.beginWrite()
            write.definition = try Self.readDefinition(from: &reader, format: current.format)
            var previous: Int64 = 0
            while try !reader.isAtEnd() {
                let start = reader.position
                guard case var .object(members) = try Self.json(reader.readValue(), at: start),
                      case let .int(rowID)? = members.removeValue(forKey: "__rowid__") else {
                    throw InterchangeError.invalidStructure(reason: "a document is an object with an integer \"__rowid__\"", at: start)
                }
                guard rowID > previous else {
                    throw InterchangeError.duplicateRowID(class: name, rowID: UInt64(clamping: rowID), at: start)
                }
                guard rowID < write.definition.nextRowID else {
                    throw InterchangeError.rowIDOutsideRegistry(class: name, rowID: UInt64(clamping: rowID), at: start)
                }
                previous = rowID
                do {
                    try state.stageImported(.object(members), rowID: rowID, into: &write)
                } catch let error as DocumentError {
                    throw InterchangeError.invalidStructure(reason: "document \(rowID): \(error)", at: start)
                }
            }
            try state.commit(write)
        }
    }

    // MARK: Private

    /// The definition on a file's first line.
    private static func readDefinition(from reader: inout JSONTextReader, format: Int) throws -> CollectionDefinition {
        let start = try reader.positionOfNext()
        let header = try json(reader.readValue(), at: start)
        guard header["format"] == .string(interchangeFormat) else {
            throw InterchangeError.invalidStructure(reason: "the first line is not a \(interchangeFormat) header", at: start)
        }
        guard header["version"] == .int(interchangeVersion) else {
            throw InterchangeError.invalidStructure(reason: "\(interchangeFormat) version \(header["version"]) is not supported", at: start)
        }
        guard var definition = CollectionDefinition(json: header), definition.nextRowID >= 1, definition.nextIndexID >= 1,
              definition.indexes.allSatisfy({ $0.id >= 1 && $0.id < definition.nextIndexID }),
              Set(definition.indexes.map(\.id)).count == definition.indexes.count,
              case .object = definition.defaults,
              !definition.defaults.nestsDeeper(than: JSON.maximumNesting) else {
            throw InterchangeError.invalidStructure(
                reason: "the header's nextRowID, nextIndexID, indexes, queryable, aliases or defaults are not valid", at: start)
        }
        definition.format = format
        return definition
    }

    /// A parsed value as a document's JSON; throws for an object with a repeated key.
    private static func json(_ value: JSONTextValue, at position: TextPosition) throws -> JSON {
        switch value {
        case .null: return .null
        case let .bool(flag): return .bool(flag)
        case let .integer(number): return .int(number)
        case let .unsignedInteger(number): return .double(Double(number))
        case let .double(number): return .double(number)
        case let .string(text): return .string(text)
        case let .array(elements): return .array(try elements.map { try json($0, at: position) })
        case let .object(members):
            var object: [String: JSON] = [:]
            object.reserveCapacity(members.count)
            for member in members {
                guard object.updateValue(try json(member.value, at: position), forKey: member.key) == nil else {
                    throw InterchangeError.invalidStructure(reason: "key \"\(member.key)\" appears twice in an object", at: position)
                }
            }
            return .object(object)
        }
    }

    /// A document's JSON as text to write: object keys sorted.
    private static func text(_ value: JSON) -> JSONTextValue {
        switch value {
        case .null: .null
        case let .bool(flag): .bool(flag)
        case let .int(number): .integer(number)
        case let .double(number): .double(number)
        case let .string(text): .string(text)
        case let .array(elements): .array(elements.map(text))
        case let .object(members): .object(members.sorted { $0.key < $1.key }.map { .init(key: $0.key, value: text($0.value)) })
        }
    }
}
