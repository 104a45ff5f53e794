// A collection's JSON Lines interchange (docs/INTERCHANGE.md, "Document collections"): export,
// import into an empty collection and export again gives the same file, on both backends and
// encrypted, with indexes (unique, on arrays), aliases, queryable fields, defaults and deleted
// rowIDs; bad lines are refused with their position and leave the collection empty.

import Foundation
import Larder
import LarderTestSupport
import Testing
@testable import LarderDocuments

@Suite struct DocumentInterchangeTests {
    @Test(arguments: BackendKind.allCases)
    func exportImportExportGivesTheSameFile(_ backend: BackendKind) throws {
        let source = try TemporaryStore(encrypted: true, backend: backend)
        let people = try source.store.collection("people")
        try Self.fill(people)
        let first = URL(fileURLWithPath: source.path + "-first.jsonl")
        let second = URL(fileURLWithPath: source.path + "-second.jsonl")
        defer { for url in [first, second] { try? FileManager.default.removeItem(at: url) } }
        try people.export(to: first)

        let target = try TemporaryStore(backend: backend)
        let copy = try target.store.collection("people")
        try copy.import(from: first)
        try copy.export(to: second)
        #expect(try Data(contentsOf: first) == Data(contentsOf: second))

        // Every document, definition and index as in the source.
        #expect(try copy.find() == people.find())
        #expect(try copy.indexes == people.indexes)
        #expect(try copy.aliases == ["who": "[name]"])
        #expect(try copy.queryableFields == people.queryableFields)
        #expect(try copy.defaultJSON == ["country": "UK"])
        #expect(try copy.explain(where: "[who] = ?", arguments: ["Grace"]).hasPrefix("index"))
        #expect(try copy.find(where: "[tags] CONTAINS ?", arguments: ["math"]).map(\.rowID) == [1, 4])
        #expect(try copy.count(where: "[country] = ?", arguments: ["UK"]) == 3)   // two by default
        #expect(throws: DocumentError.uniqueConstraint(index: "[email]", value: "ada@example.com")) {
            try copy.insert(["email": "ada@example.com"])
        }
        #expect(try copy.insert(["name": "Hedy"]) == 6)
        #expect(try copy.inconsistentIndexes().isEmpty)
    }

    @Test(arguments: BackendKind.allCases)
    func badLinesAreRefusedWithTheirPosition(_ backend: BackendKind) throws {
        let source = try TemporaryStore(backend: backend)
        let people = try source.store.collection("people")
        try Self.fill(people)
        let file = URL(fileURLWithPath: source.path + "-people.jsonl")
        defer { try? FileManager.default.removeItem(at: file) }
        try people.export(to: file)
        let good = try String(contentsOf: file, encoding: .utf8)
        let lines = good.split(separator: "\n").map(String.init)
        let target = try TemporaryStore(backend: backend)
        let copy = try target.store.collection("people")

        func refused(_ text: String, _ expected: InterchangeError, sourceLocation: SourceLocation = #_sourceLocation) throws {
            try Data(text.utf8).write(to: file)
            #expect(throws: expected, sourceLocation: sourceLocation) { try copy.import(from: file) }
            #expect(try copy.count() == 0, sourceLocation: sourceLocation)
            #expect(try copy.indexes.isEmpty, sourceLocation: sourceLocation)
        }
        let headerLength = lines[0].utf8.count + 1
        // A line that is not JSON.
        try refused(lines[0] + "\n" + lines[1] + "\n{\"name\": }\n",
                    .malformedJSON(reason: "expected a value", at: TextPosition(line: 3, column: 10,
                                                                                byteOffset: headerLength + lines[1].utf8.count + 1 + 9)))
        // The same rowID twice.
        try refused(lines[0] + "\n" + lines[1] + "\n" + lines[1] + "\n",
                    .duplicateRowID(class: "people", rowID: 1,
                                    at: TextPosition(line: 3, column: 1, byteOffset: headerLength + lines[1].utf8.count + 1)))
        // A document that breaks the unique index.
        let clash = lines[2].replacingOccurrences(of: "grace@example.com", with: "ada@example.com")
        try refused(lines[0] + "\n" + lines[1] + "\n" + clash + "\n",
                    .invalidStructure(reason: #"document 2: unique index [email] already has "ada@example.com""#,
                                      at: TextPosition(line: 3, column: 1, byteOffset: headerLength + lines[1].utf8.count + 1)))
        // No header.
        try refused(lines[1] + "\n", .invalidStructure(reason: "the first line is not a larder-documents header",
                                                      at: TextPosition(line: 1, column: 1, byteOffset: 0)))
        // The collection is still empty: the good file goes in.
        try Data(good.utf8).write(to: file)
        try copy.import(from: file)
        #expect(try copy.count() == 4)
        // And a collection with documents refuses another import.
        #expect(throws: InterchangeError.targetNotEmpty(reason: "collection people has documents or definitions")) {
            try copy.import(from: file)
        }
    }

    /// Five documents, rowID 3 deleted; a unique index, an index on an array, an alias,
    /// queryable fields and defaults.
    static func fill(_ people: DocumentCollection) throws {
        try people.setAliases(["who": "[name]"])
        try people.addUniqueIndex("[email]")
        try people.addIndex("[tags]")
        try people.addIndex("[who], [age] DESC")
        try people.addQueryableFields("[age]")
        try people.setDefaultJSON(["country": "UK"])
        try people.insertBatch([
            ["name": "Ada", "email": "ada@example.com", "age": 36, "tags": ["math", "poetry"], "score": 9.5],
            ["name": "Grace", "email": "grace@example.com", "age": 45, "country": "US", "nested": ["a": [1, 2.0, nil]]],
            ["name": "Gone", "email": "gone@example.com"],
            ["name": "Katherine \"K\" J\n", "email": "kj@example.com", "tags": ["math"], "big": .int(Int64.max)],
            ["name": "Mary", "age": 0.5, "unicode": "日本語 é"],
        ])
        try people.delete(try #require(try people.document(id: 3)))
    }
}
