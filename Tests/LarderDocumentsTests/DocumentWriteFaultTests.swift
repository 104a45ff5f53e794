// Fault injection for every kind of document store write (documents, indexes, collection
// definitions, collections, metadata, rekey): each write is failed at every file operation it
// performs in turn, and must either throw or complete; a fresh open then finds the whole old
// state or the whole new one, with every index agreeing with the documents, and the write,
// retried, lands whole.

import Foundation
import Larder
import Testing
@testable import LarderDocuments

@Suite struct DocumentWriteFaultTests {
    /// The public writes of a document store.
    enum Kind: String, CaseIterable, CustomTestStringConvertible {
        case insert, insertBatch, update, updateBatch, remove, removeWhere
        case addIndex, addUniqueIndex, dropIndex, addQueryableFields, setAliases, setDefaultJSON
        case createCollection, dropCollection, setMetadata, removeMetadata, rekey, rekeyToPlaintext

        var testDescription: String { rawValue }

        /// The store is encrypted (with TemporaryStore's "test key") before the write.
        var isEncrypted: Bool { self == .rekey || self == .rekeyToPlaintext }
    }

    private static let oldKey = "test key"
    private static let newKey = "new key"

    private static func configuration(key: String?, readOnly: Bool = false) -> Store.Configuration {
        var configuration = DocumentEncryptionTests.configuration(key)
        configuration.durability = .full
        configuration.readOnly = readOnly
        return configuration
    }

    /// A store as it is before the write: a collection of five people with a plain and a
    /// unique index and an alias, and a metadata value.
    private func prepare(_ kind: Kind) throws -> TemporaryStore {
        let temporary = try TemporaryStore(encrypted: kind.isEncrypted)
        let people = try temporary.store.collection("people")
        try people.addIndex("[name]")
        try people.addUniqueIndex("[email]")
        try people.setAliases(["who": "[name]"])
        try people.insertBatch((1 ... 5).map { number in
            ["name": .string("Person \(number)"), "email": .string("p\(number)@example.com"),
             "age": .int(Int64(20 + 10 * number)), "tags": [.string("t\(number % 2)")]]
        })
        try temporary.store.setMetadata(1, forKey: "version")
        try temporary.store.close()
        return temporary
    }

    /// Opens the store durably and makes the write, with `injector` failing one of its file
    /// operations (none when nil).
    private func write(_ kind: Kind, at path: String, failing injector: FaultInjector?) throws {
        let store = try DocumentStore(path: path, configuration: Self.configuration(key: kind.isEncrypted ? Self.oldKey : nil))
        defer { try? store.close() }
        let people = try store.collection("people")
        store.backend.faultInjector = injector
        defer { store.backend.faultInjector = nil }
        switch kind {
        case .insert:
            try people.insert(["name": "Fay", "email": "fay@example.com", "age": 50])
        case .insertBatch:
            try people.insertBatch([["name": "Gil", "email": "gil@example.com"], ["name": "Hal", "email": "hal@example.com"]])
        case .update:
            try people.update(["__rowid__": 2, "name": "Renamed", "email": "p2@example.com", "age": 99])
        case .updateBatch:
            try people.updateBatch([["__rowid__": 1, "name": "One", "email": "one@example.com"],
                                    ["__rowid__": 3, "name": "Three", "email": "p3@example.com", "age": 1]])
        case .remove:
            try people.delete(["__rowid__": 2])
        case .removeWhere:
            #expect(try people.delete(where: "[age] < ?", arguments: [45]) == 2)
        case .addIndex:
            try people.addIndex("[age]")
        case .addUniqueIndex:
            try people.addUniqueIndex("[age]")
        case .dropIndex:
            #expect(try people.dropIndex("[name]"))
        case .addQueryableFields:
            try people.addQueryableFields("[tags]")
        case .setAliases:
            try people.setAliases(["years": "[age]"])
        case .setDefaultJSON:
            try people.setDefaultJSON(["name": "Nobody", "country": "UK"])
        case .createCollection:
            _ = try store.collection("fresh")
        case .dropCollection:
            #expect(try store.dropCollection("people"))
        case .setMetadata:
            try store.setMetadata(["schema": 2], forKey: "version")
        case .removeMetadata:
            try store.setMetadata(nil, forKey: "version")
        case .rekey:
            try store.rekey(to: Self.newKey, iterations: 1_000)
        case .rekeyToPlaintext:
            try store.rekey(to: nil, iterations: 1_000)
        }
    }

    /// Everything a write may change, as a fresh reader sees it: the key that opens the store,
    /// its collections with their definitions and documents, which indexes disagree with the
    /// documents, and the metadata value.
    private func state(at path: String) throws -> [String] {
        // A writer's open finishes an interrupted commit (a reader refuses to): nothing else.
        try TokyoCabinetBackend(path: path, configuration: Self.configuration(key: nil).backend).close()
        for key in [nil, Self.oldKey, Self.newKey] {
            let store: DocumentStore
            do {
                store = try DocumentStore(path: path, configuration: Self.configuration(key: key, readOnly: true))
            } catch StoreError.encryptionKeyRequired, StoreError.wrongEncryptionKey {
                continue
            }
            defer { try? store.close() }
            return ["opened with key \(key ?? "none")"] + (try contents(of: store))
        }
        return ["no key opens the store"]
    }

    private func contents(of store: DocumentStore) throws -> [String] {
        var names: [String] = []
        let prefix = Array("collection.".utf8)
        try store.backend.forEachRecord(in: DocumentStore.metadataTable) { key, _ in
            if key.starts(with: prefix) { names.append(String(decoding: key.dropFirst(prefix.count), as: UTF8.self)) }
            return true
        }
        var lines = ["metadata \(String(describing: try store.metadata(forKey: "version")))"]
        for name in names.sorted() {
            let collection = try store.collection(name)
            let (indexes, aliases) = (try collection.indexes, try collection.aliases.sorted { $0.key < $1.key })
            let (queryable, defaults) = (try collection.queryableFields, try collection.defaultJSON)
            lines.append("collection \(name): indexes \(indexes), aliases \(aliases), queryable \(queryable), defaults \(defaults)")
            lines += try collection.find().map { "document \($0)" }.sorted()
            lines.append("inconsistent indexes \(try collection.inconsistentIndexes())")
        }
        return lines
    }

    @Test(arguments: Kind.allCases)
    func aFailureAtAnyFileOperationLeavesTheOldStateOrTheNew(kind: Kind) throws {
        let sweep = try FaultSweep(
            prepare: { try prepare(kind) },
            write: { try write(kind, at: $0.path, failing: $1) },
            state: { try state(at: $0.path) }
        ).run()
        #expect(sweep.old != sweep.new)
        for state in [sweep.old, sweep.new] {
            #expect(state.filter { $0.hasPrefix("inconsistent") }.allSatisfy { $0 == "inconsistent indexes []" }, "\(state)")
        }
        #expect(sweep.violations == [])
        let failures = sweep.outcomes.compactMap(\.failure)
        #expect(failures.allSatisfy { $0 is StoreError || $0 is BackendError }, "\(failures)")
        #expect(sweep.outcomes.count > 5 && !failures.isEmpty, "the write performed too few operations to test")
        print("fault injection (\(kind)): \(sweep.outcomes.count) operations, \(failures.count) failed")
    }
}
