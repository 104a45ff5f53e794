// The collection API as the consistency pass left it: a document by its rowID (sync, async,
// Codable), rowIDs as Larder's RowID, indexes as values, definition getters that throw
// instead of answering empty, and delete as the one verb for removal.

import Foundation
import Larder
import LarderTestSupport
import Testing
@testable import LarderDocuments

@Suite struct CollectionAPITests {
    private struct Person: Codable, Equatable, Sendable {
        var name: String
        var age: Int
    }

    @Test(arguments: BackendKind.withEtcd) func aDocumentIsReadByItsRowID(_ backend: BackendKind) throws {
        let temporary = try TemporaryStore(backend: backend)
        let people = try temporary.store.collection("people")
        let ids: [RowID] = try people.insertBatch([["name": "Ada", "age": 36], ["name": "Grace", "age": 45]])
        #expect(ids == [1, 2])
        let grace = try #require(try people.document(id: 2))
        #expect(grace == ["name": "Grace", "age": 45, "__rowid__": 2])
        #expect(grace.rowID == 2)
        #expect(try people.document(id: 3) == nil)
        #expect(try people.document(id: 0) == nil)
        #expect(try people.document(id: RowID.max) == nil)   // above any JSON integer: no such document
        #expect(try people.document(id: 1, as: Person.self) == Person(name: "Ada", age: 36))
        // A rowID as a query argument and as a "__rowid__" field.
        #expect(try people.find(where: "[__rowid__] >= ?", arguments: [.rowID(2)]).map(\.rowID) == [2])
        var ada = try #require(try people.document(id: 1))
        ada["age"] = 37
        try people.update(ada)
        #expect(try people.document(id: 1)?["age"] == 37)
        let text: JSON = ["__rowid__": "1"], seven: JSON = ["__rowid__": .rowID(7)]
        #expect(text.rowID == nil)
        #expect(seven.rowID == 7)
    }

    @Test(arguments: BackendKind.withEtcd) func theAsyncFormsReadAndDeleteByRowIDToo(_ backend: BackendKind) async throws {
        let temporary = try TemporaryStore(backend: backend)
        let people = try temporary.store.collection("people")
        let ids = try await people.insertBatch((1 ... 4).map { ["n": .int(Int64($0))] })
        #expect(try await people.document(id: ids[0])?["n"] == 1)
        try await people.delete(["__rowid__": .rowID(ids[1])])
        #expect(try await people.delete(where: "[n] = 3") == 1)
        let rest: [JSON] = try await people.find()
        #expect(rest.map(\.rowID) == [1, 4])
    }

    @Test(arguments: BackendKind.withEtcd) func deleteIsTheVerbForDocumentsAndQueries(_ backend: BackendKind) throws {
        let temporary = try TemporaryStore(backend: backend)
        let people = try temporary.store.collection("people")
        try people.insertBatch((1 ... 6).map { ["n": .int(Int64($0))] })
        try people.delete(["__rowid__": .rowID(1)])
        #expect(try people.delete(where: "[n] >= ?", arguments: [5]) == 2)
        try people.delete(["__rowid__": .rowID(2)])
        #expect(try people.delete(where: "[n] = 3") == 1)
        #expect(try people.find().map(\.rowID) == [4])
        #expect(throws: DocumentError.documentNotFound(collection: "people", rowID: 1)) {
            try people.delete(["__rowid__": .rowID(1)])
        }
    }

    @Test(arguments: BackendKind.withEtcd) func indexesAreValues(_ backend: BackendKind) throws {
        let temporary = try TemporaryStore(backend: backend)
        let people = try temporary.store.collection("people")
        try people.addIndex("[last_name], [first_name] DESC")
        try people.addUniqueIndex("[email]")
        let indexes = try people.indexes
        #expect(indexes.map(\.isUnique) == [false, true])
        #expect(indexes[0].keys == [DocumentIndex.Key(path: "[last_name]", isDescending: false),
                                    DocumentIndex.Key(path: "[first_name]", isDescending: true)])
        #expect(indexes[0].definition == "[last_name], [first_name] DESC")
        #expect(indexes.map(\.description) == ["[last_name], [first_name] DESC", "UNIQUE [email]"])
        // A definition read back adds the same index: nothing changes.
        try people.addIndex(indexes[0].definition)
        #expect(try people.indexes == indexes)
    }

    @Test(arguments: BackendKind.withEtcd) func definitionGettersThrowOnAClosedStoreInsteadOfAnsweringEmpty(_ backend: BackendKind) throws {
        let temporary = try TemporaryStore(backend: backend)
        let people = try temporary.store.collection("people")
        try people.addIndex("[age]")
        try people.setAliases(["adult": "[age] >= 18"])
        try people.setCacheSize(5)
        #expect(try people.cacheSize == 5)
        try people.setCacheSize(-3)
        #expect(try people.cacheSize == 0)
        #expect(try people.aliases == ["adult": "[age] >= 18"])
        try temporary.store.close()
        #expect(throws: StoreError.closed) { _ = try people.indexes }
        #expect(throws: StoreError.closed) { _ = try people.aliases }
        #expect(throws: StoreError.closed) { _ = try people.queryableFields }
        #expect(throws: StoreError.closed) { _ = try people.defaultJSON }
        #expect(throws: StoreError.closed) { _ = try people.cacheSize }
        #expect(throws: StoreError.closed) { try people.setCacheSize(1) }
    }
}
