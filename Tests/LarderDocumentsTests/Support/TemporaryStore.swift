// A document store for one test: in a fresh temporary directory (removed when the test ends),
// or, for a test run against several backends, in memory (a MemoryBackend that reopen reopens,
// as a process reopening the directory would) or on the etcd test cluster (a prefix of its own,
// which reopen opens again).

import EtcdTestSupport
import Larder
import LarderEtcd
import Foundation
import LarderTestSupport
@testable import LarderDocuments

final class TemporaryStore {
    let path = NSTemporaryDirectory() + "larder-documents-\(UUID().uuidString)"
    private(set) var store: DocumentStore
    private let configuration: Store.Configuration
    /// The store's tables, when it lives in memory.
    private let memory: MemoryBackend?
    /// The store's key prefix, when it lives on the etcd test cluster.
    private let etcdPrefix: String?

    /// A new store; `encrypted`, with a key (and few PBKDF2 iterations).
    init(encrypted: Bool = false, backend: BackendKind = .tokyoCabinet) throws {
        configuration = encrypted ? DocumentEncryptionTests.configuration("test key") : Store.Configuration()
        memory = backend == .memory ? MemoryBackend() : nil
        etcdPrefix = backend == .etcd ? "larder-documents-\(UUID().uuidString)" : nil
        store = try Self.open(path: path, memory: memory, etcdPrefix: etcdPrefix, configuration: configuration)
    }

    /// Closes and opens the store again.
    func reopen() throws -> DocumentStore {
        try store.close()
        store = try Self.open(path: path, memory: memory, etcdPrefix: etcdPrefix, configuration: configuration)
        return store
    }

    private static func open(path: String, memory: MemoryBackend?, etcdPrefix: String?,
                             configuration: Store.Configuration) throws -> DocumentStore {
        if let etcdPrefix {
            let backend = try EtcdBackend(endpoints: EtcdCluster.shared.get().endpoints, prefix: etcdPrefix)
            return try DocumentStore(backend: backend, configuration: configuration)
        }
        guard let memory else { return try DocumentStore(path: path, configuration: configuration) }
        return try DocumentStore(backend: memory.reopened(), configuration: configuration)
    }

    deinit {
        try? store.close()
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// People with names, a nested address, an age and tags: rowIDs 1 ... count in order.
func samplePeople(_ count: Int) -> [JSON] {
    let countries: [JSON] = ["UK", "FR", "US"]
    let tags: [JSON] = ["red", "green", "blue", "gold"]
    return (0 ..< count).map { i in
        ["first_name": .string("F\(i % 7)"), "last_name": .string("L\(i % 5)"), "age": .int(Int64(20 + i % 50)),
         "address": ["country": countries[i % 3], "city": .string("C\(i % 4)")],
         "tags": .array([tags[i % 4], tags[(i / 4) % 4]])]
    }
}

/// The `__rowid__` values of documents.
func rowIDs(_ documents: [JSON]) -> [RowID] {
    documents.compactMap(\.rowID)
}

extension CollectionEngine {
    /// The stored record of document `rowID` (empty when none), read from its page.
    func rawRecord(_ rowID: Int64) throws -> [UInt8] {
        var record: [UInt8] = []
        let layout = documents.layout
        try backend.readValue(forKey: RecordPage.key(forPage: layout.number(of: UInt64(rowID))), in: name) { page in
            guard let page, let found = try RecordPage.record(of: UInt64(rowID), in: page, layout: layout) else { return }
            record = Array(found)
        }
        return record
    }

    /// Stores `record` as document `rowID`'s record in its page, behind the collection's back
    /// (its cache, index entries and checks).
    func replaceRawRecord(_ rowID: Int64, with record: [UInt8]) throws {
        var records = PendingRecords(layout: documents.layout)
        record.withUnsafeBytes { records.add(envelope: $0, rowID: UInt64(rowID)) }
        var batch = WriteBatch()
        _ = try backend.writePages(records, of: name, into: &batch) { _ in true }
        try backend.apply(batch)
        documents.didWrite(gained: nil)
    }
}
