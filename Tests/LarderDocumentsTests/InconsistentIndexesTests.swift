// inconsistentIndexes() reports an index whose entries differ from its documents: an entry
// removed, one added for no document, one that says another value, in a plaintext and an
// encrypted store. (Many tests and the documents crash check rely on it finding nothing.)

import Foundation
import Testing
import Larder
@testable import LarderDocuments

@Suite struct InconsistentIndexesTests {
    static let indexes = ["[address.country]", "[age] DESC", "[tags]"]

    /// A collection of 30 people with every index of ``indexes``, consistent.
    private func people(_ temporary: TemporaryStore) throws -> DocumentCollection {
        let people = try temporary.store.collection("people")
        try people.insertBatch(samplePeople(30))
        for index in Self.indexes { try people.addIndex(index) }
        #expect(try people.inconsistentIndexes().isEmpty)
        return people
    }

    /// Changes the entries of index `name` by `changes`, behind the collection's back (its
    /// documents stay as they are).
    private func tamper(_ people: DocumentCollection, index name: String,
                        _ changes: (IndexDefinition, JSON) -> IndexChanges) throws {
        try people.withState { state in
            let index = try #require(state.definition.indexes.first { $0.name == name })
            var table = try state.table(of: index)
            var batch = WriteBatch()
            try table.write(changes(index, state.defaults), into: &batch)
            try state.backend.apply(batch)
        }
    }

    /// The entries `document` gives in `index` as document `rowID`.
    private func entries(of document: JSON, rowID: Int64, in index: IndexDefinition, defaults: JSON) -> [[UInt8]] {
        index.entries(for: document, rowID: rowID, defaults: defaults).entries.map(\.key)
    }

    @Test(arguments: [false, true])
    func aRemovedAnAddedAndAChangedEntryAreEachReported(encrypted: Bool) throws {
        for (damage, index) in ["removed", "added", "changed"].flatMap({ kind in Self.indexes.map { (kind, $0) } }) {
            let temporary = try TemporaryStore(encrypted: encrypted)
            let people = try people(temporary)
            let document = try #require(try people.findOne(where: "[__rowid__] = 5"))
            var other = document
            other["age"] = 99
            other["tags"] = ["violet"]
            other["address"] = ["country": "NZ", "city": "C0"]
            try tamper(people, index: index) { definition, defaults in
                var changes = IndexChanges()
                let own = entries(of: document, rowID: 5, in: definition, defaults: defaults)
                switch damage {
                case "removed": own.prefix(1).forEach { changes.change($0, isAdded: false) }
                case "added": changes.appended = entries(of: document, rowID: 999, in: definition, defaults: defaults)
                default:
                    own.forEach { changes.change($0, isAdded: false) }
                    entries(of: other, rowID: 5, in: definition, defaults: defaults).forEach { changes.change($0, isAdded: true) }
                }
                return changes
            }
            // Reopened, so an encrypted store reads the index's directory of runs afresh.
            let reopened = try temporary.reopen().collection("people")
            #expect(try reopened.inconsistentIndexes() == [index], "\(damage) entry in \(index), encrypted: \(encrypted)")
        }
    }
}
