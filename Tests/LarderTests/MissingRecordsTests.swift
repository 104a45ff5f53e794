// Files emptied, deleted or thinned behind the store's back: Tokyo Cabinet opens an empty or
// missing file as an empty table, so only the registry can tell a class without objects (or a
// store without named buffers) from one whose records are gone. The registry counts them.

import Foundation
import Testing
@testable import Larder

@Suite struct MissingRecordsTests {
    /// A closed store of 50 songs, 10 of them deleted, and the named buffers `a` and `b`.
    private func makeStore() throws -> TemporaryDirectory {
        let directory = TemporaryDirectory("missing")
        let store = try directory.openStore()
        for i in 1 ... 50 { try store.insert(Song(title: "Song \(i)", seconds: UInt32(i))) }
        try store.saveChanges()
        for rowID in stride(from: 5, through: 50, by: 5) {
            try store.delete(try #require(try store.object(of: Song.self, rowID: UInt64(rowID))))
        }
        try store.saveChanges()
        for name in ["a", "b", "c"] { try store.setDataBuffer(DataBuffer(bytes: Array(name.utf8)), forName: name) }
        try store.setDataBuffer(DataBuffer(bytes: [1]), forName: "a")   // replaced: still 3
        try store.deleteDataBuffer(forName: "c")
        try store.deleteDataBuffer(forName: "never set")
        try store.close()
        return directory
    }

    /// Copies of `original` with `file` emptied, and with it deleted.
    private func damagedCopies(of original: TemporaryDirectory, file: String) throws -> [(TemporaryDirectory, String)] {
        let emptied = TemporaryDirectory("emptied")
        try FileManager.default.copyItem(atPath: original.path, toPath: emptied.path)
        try Data().write(to: URL(fileURLWithPath: emptied.file(file)))
        let deleted = TemporaryDirectory("deleted")
        try FileManager.default.copyItem(atPath: original.path, toPath: deleted.path)
        try FileManager.default.removeItem(atPath: deleted.file(file))
        return [(emptied, "\(file) emptied"), (deleted, "\(file) deleted")]
    }

    @Test func theRegistryCountsWhatEachFileHolds() throws {
        let directory = try makeStore()
        let store = try directory.openStore()
        #expect(store.records["Song"]?.expectedRecordCount == 40)
        #expect(store.namedBufferCount == 2)
        #expect(try store.dataBufferNames() == ["a", "b"])
        #expect(try store.verify().isHealthy)
        try store.close()
    }

    @Test func anEmptiedOrDeletedClassFileIsRefusedAtRegistrationAndReported() throws {
        let original = try makeStore()
        for (damaged, what) in try damagedCopies(of: original, file: "Song.tch") {
            let store = try Store(path: damaged.path)
            #expect(throws: StoreError.missingRecords(table: "Song", expected: 40, found: 0), "\(what)") {
                try store.register(Song.self)
            }
            // Without registering the class, verify reports it from the registry.
            let report = try store.verify()
            #expect(report.problems == [.missingRecords(table: "Song", expected: 40, found: 0)], "\(what)")
            try store.close()
        }
    }

    @Test func aRecordRemovedFromAClassFileIsReported() throws {
        let directory = try makeStore()
        let store = try directory.openStore()
        try RawRecords(store, "Song").write(deleting: [7, 8])
        let report = try store.verify()
        #expect(report.problems == [.missingRecords(table: "Song", expected: 40, found: 38)])
        try store.close()
    }

    @Test func anEmptiedOrDeletedNamesFileIsReported() throws {
        let original = try makeStore()
        for (damaged, what) in try damagedCopies(of: original, file: "_names.tch") {
            let store = try damaged.openStore()
            let missing = StoreError.missingRecords(table: "_names", expected: 2, found: 0)
            #expect(throws: missing, "\(what)") { _ = try store.dataBuffer(forName: "a") }
            #expect(throws: missing, "\(what)") { _ = try store.dataBufferNames() }
            #expect(try store.verify().problems == [.missingRecords(table: "_names", expected: 2, found: 0)], "\(what)")
            // The objects are untouched.
            #expect(try store.count(of: Song.self) == 40)
            try store.close()
        }
    }

    @Test func aStoreThatDidNotCountItsBuffersStartsCountingAtTheNextWrite() throws {
        let directory = try makeStore()
        do {
            // As a store written before the count: no `names` record.
            let backend = try TokyoCabinetBackend(path: directory.path)
            var batch = WriteBatch()
            batch.removeValue(forKey: Store.namedBufferCountKey, in: Store.metadataTable)
            try backend.apply(batch)
            try backend.close()
        }
        let store = try directory.openStore()
        #expect(store.namedBufferCount == nil)
        #expect(try store.verify().isHealthy)
        try store.setDataBuffer(DataBuffer(bytes: [2]), forName: "d")
        #expect(store.namedBufferCount == 3)
        try store.close()
        let reopened = try directory.openStore()
        #expect(reopened.namedBufferCount == 3)
        #expect(try reopened.verify().isHealthy)
        try reopened.close()
    }
}
