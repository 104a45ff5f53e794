// A document store in a fresh temporary directory, removed when the test ends.

import Foundation
@testable import LarderDocuments

final class TemporaryStore {
    let path = NSTemporaryDirectory() + "larder-documents-\(UUID().uuidString)"
    private(set) var store: DocumentStore

    init() throws {
        store = try DocumentStore(path: path)
    }

    /// Closes and opens the store again.
    func reopen() throws -> DocumentStore {
        try store.close()
        store = try DocumentStore(path: path)
        return store
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
func rowIDs(_ documents: [JSON]) -> [Int64] {
    documents.compactMap { $0["__rowid__"].intValue }
}

extension SharedBackend {
    /// The stored bytes under `key` in `table` (empty when none).
    func withRawValue(_ key: [UInt8], in table: String) throws -> [UInt8] {
        var bytes: [UInt8] = []
        try readValue(forKey: key, in: table) { bytes = $0.map(Array.init) ?? [] }
        return bytes
    }
}
