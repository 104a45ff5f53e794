// Collections: insert, find, update, remove, metadata, definitions that persist, reopen.

import Foundation
import Larder
import LarderTestSupport
import Testing
@testable import LarderDocuments

@Suite struct DocumentStoreTests {
    @Test(arguments: BackendKind.withEtcd) func insertFindUpdateRemoveRoundTrip(_ backend: BackendKind) throws {
        let temporary = try TemporaryStore(backend: backend)
        let people = try temporary.store.collection("people")
        let id = try people.insert(["name": "Ada", "age": 36, "__rowid__": 99])
        #expect(id == 1)
        #expect(try people.insert(["name": "Grace", "age": 45]) == 2)
        var ada = try #require(try people.findOne(where: "[name] = ?", arguments: ["Ada"]))
        #expect(ada == ["name": "Ada", "age": 36, "__rowid__": 1])
        ada["age"] = 37
        try people.update(ada)
        #expect(try people.find(where: "[age] > ?", arguments: [36]).map { $0["name"] } == ["Ada", "Grace"])
        try people.delete(ada)
        #expect(try people.find() == [["name": "Grace", "age": 45, "__rowid__": 2]])
        #expect(try people.count() == 1)
        // rowIDs are never reused.
        #expect(try people.insert(["name": "Ada"]) == 3)
    }

    @Test(arguments: BackendKind.withEtcd) func missingRowsAndBadDocumentsAreTypedErrors(_ backend: BackendKind) throws {
        let temporary = try TemporaryStore(backend: backend)
        let people = try temporary.store.collection("people")
        try people.insert(["name": "Ada"])
        #expect(throws: DocumentError.documentNotFound(collection: "people", rowID: 7)) { try people.update(["__rowid__": 7, "name": "x"]) }
        #expect(throws: DocumentError.documentNotFound(collection: "people", rowID: 7)) { try people.delete(["__rowid__": 7]) }
        #expect(throws: DocumentError.missingRowID) { try people.update(["name": "x"]) }
        #expect(throws: DocumentError.missingRowID) { try people.delete(["__rowid__": "1"]) }
        #expect(throws: DocumentError.notAnObject([1, 2])) { try people.insert([1, 2]) }
        #expect(throws: DocumentError.notAnObject(5)) { try people.insertBatch([["a": 1], 5]) }
        #expect(try people.count() == 1)
        #expect(try people.find() == [["name": "Ada", "__rowid__": 1]])
        for name in ["", "_private", "a.b", "a/b", String(repeating: "x", count: 101)] {
            #expect(throws: DocumentError.invalidCollectionName(name)) { _ = try temporary.store.collection(name) }
        }
    }

    @Test(arguments: BackendKind.withEtcd) func metadataIsStoredRemovedAndKeptAcrossReopen(_ backend: BackendKind) throws {
        let temporary = try TemporaryStore(backend: backend)
        try temporary.store.setMetadata(["version": 2], forKey: "schema")
        #expect(try temporary.store.metadata(forKey: "schema") == ["version": 2])
        #expect(try temporary.store.metadata(forKey: "other") == nil)
        #expect(throws: DocumentError.invalidMetadataKey("")) { try temporary.store.setMetadata(1, forKey: "") }
        let store = try temporary.reopen()
        #expect(try store.metadata(forKey: "schema") == ["version": 2])
        try store.setMetadata(nil, forKey: "schema")
        #expect(try store.metadata(forKey: "schema") == nil)
    }

    @Test(arguments: BackendKind.withEtcd) func definitionsAndDocumentsPersistAcrossReopen(_ backend: BackendKind) throws {
        let temporary = try TemporaryStore(backend: backend)
        do {
            let people = try temporary.store.collection("people")
            try people.insertBatch(samplePeople(30))
            try people.addIndex("[last_name], [first_name] DESC")
            try people.addUniqueIndex("[email]")
            try people.addQueryableFields("[age], [address.city]")
            try people.setAliases(["country": "[address.country]"])
            try people.setDefaultJSON(["email": nil, "active": true])
            try people.delete(where: "[age] > ?", arguments: [45])
        }
        let store = try temporary.reopen()
        let people = try store.collection("people")
        #expect(try people.indexes.map(\.description) == ["[last_name], [first_name] DESC", "UNIQUE [email]"])
        #expect(try people.queryableFields == ["[age]", "[address.city]"])
        #expect(try people.aliases == ["country": "[address.country]"])
        #expect(try people.defaultJSON == ["email": nil, "active": true])
        #expect(try people.count() == 30 - 4)
        #expect(try people.count(where: "country = 'UK' AND [active] = TRUE") == 9)
        #expect(try people.insert(["name": "new"]) == 31)
    }

    @Test func aReadOnlyStoreReadsAndRefusesWrites() throws {
        let temporary = try TemporaryStore()
        let people = try temporary.store.collection("people")
        try people.addIndex("[n]")
        try people.insertBatch([["n": 1], ["n": 2]])
        try temporary.store.close()
        let reader = try DocumentStore(path: temporary.path, configuration: .init(readOnly: true))
        defer { try? reader.close() }
        let readPeople = try reader.collection("people")
        #expect(try readPeople.count(where: "[n] >= 1") == 2)
        #expect(try readPeople.explain(where: "[n] = 2") == "index [n]: [n] = 2 (1 range, exact)")
        #expect(throws: StoreError.readOnly) { try readPeople.insert(["n": 3]) }
        #expect(throws: StoreError.readOnly) { try reader.setMetadata(1, forKey: "k") }
        let never = try reader.collection("never")   // not created in a read-only store
        #expect(try never.find().isEmpty && never.count() == 0)
    }

    @Test(arguments: BackendKind.withEtcd) func damagedOrMovedRecordsAreRefused(_ backend: BackendKind) throws {
        let temporary = try TemporaryStore(backend: backend)
        let people = try temporary.store.collection("people")
        try people.insertBatch([["name": "Ada"], ["name": "Grace"]])
        try people.setCacheSize(0)
        let (first, second) = try people.withState { state in
            (try state.rawRecord(1), try state.rawRecord(2))
        }
        // Every single flipped byte is caught, and so is a record put under another key.
        for position in first.indices {
            var damaged = first
            damaged[position] ^= 0x10
            try people.withState { try $0.replaceRawRecord(1, with: damaged) }
            #expect(throws: DocumentError.self) { try people.find(where: "[__rowid__] = 1") }
        }
        try people.withState { try $0.replaceRawRecord(1, with: second) }
        #expect(throws: DocumentError.corruptDocument(collection: "people", rowID: 1, reason: "checksum mismatch")) {
            try people.find()
        }
    }

    @Test(arguments: BackendKind.withEtcd) func aClosedStoreRefusesWork(_ backend: BackendKind) throws {
        let temporary = try TemporaryStore(backend: backend)
        let people = try temporary.store.collection("people")
        try temporary.store.close()
        try temporary.store.close()
        #expect(throws: StoreError.closed) { try people.insert(["a": 1]) }
        #expect(throws: StoreError.closed) { _ = try people.find() }
        #expect(throws: StoreError.closed) { _ = try temporary.store.collection("people") }
    }

    @Test(arguments: BackendKind.withEtcd) func collectionsAreSeparate(_ backend: BackendKind) throws {
        let temporary = try TemporaryStore(backend: backend)
        let a = try temporary.store.collection("a"), b = try temporary.store.collection("b")
        try a.insert(["x": 1])
        try b.insertBatch([["x": 2], ["x": 3]])
        #expect(try a.find().map { $0["x"] } == [1])
        #expect(try b.count(where: "[x] >= 2") == 2)
        #expect(try b.find(orderBy: "[x] DESC").map { $0["__rowid__"] } == [2, 1])
    }

    @Test(arguments: BackendKind.withEtcd) func aDroppedCollectionLeavesNothingAndOthersAreUntouched(_ backend: BackendKind) throws {
        let temporary = try TemporaryStore(backend: backend)
        let a = try temporary.store.collection("a"), b = try temporary.store.collection("b")
        try a.addIndex("[x]")
        try a.addUniqueIndex("[y]")
        try a.insertBatch((0 ..< 200).map { ["x": .int(Int64($0 % 7)), "y": .int(Int64($0))] })
        try b.insert(["x": 1])
        #expect(throws: DocumentError.invalidCollectionName("_store")) { try temporary.store.dropCollection("_store") }
        #expect(try temporary.store.dropCollection("missing") == false)
        #expect(try temporary.store.dropCollection("a"))
        let tables = try b.withState { state in
            try ["a", "a.1.idx", "a.2.idx"].map { try state.backend.recordCount(in: $0) }
        }
        #expect(tables == [0, 0, 0])
        // The name makes a new, empty collection; the other collection is as it was.
        #expect(try a.count() == 0 && a.count(where: "[x] = 1") == 0 && a.indexes.isEmpty)
        #expect(try a.insert(["y": 5]) == 1)
        let store = try temporary.reopen()
        #expect(try store.collection("a").find() == [["y": 5, "__rowid__": 1]])
        #expect(try store.collection("b").find() == [["x": 1, "__rowid__": 1]])
    }
}
