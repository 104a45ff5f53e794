// Two clients on one prefix: a save by one after the other read is refused with a typed conflict
// that changes nothing, for a one-transaction save, for a staged one, and through a document
// store; refreshing (or opening again) and retrying succeeds, and no update is lost.

import Foundation
import Larder
import LarderDocuments
import Testing
@testable import LarderEtcd

@Suite struct EtcdConflictTests {
    private func put(_ value: UInt8, keys: Range<Int>) -> WriteBatch {
        var batch = WriteBatch()
        for key in keys { batch.put([value], forKey: [UInt8(key)], in: "t") }
        return batch
    }

    private func values(_ backend: EtcdBackend) throws -> [UInt8: UInt8] {
        var values: [UInt8: UInt8] = [:]
        try backend.forEachRecord(in: "t") { key, value in values[key[0]] = value.first; return true }
        return values
    }

    @Test(arguments: [2, 40])
    func aSaveAfterAnotherClientsIsAConflictThatChangesNothing(keys: Int) throws {
        let prefix = EtcdTestStore.freshPrefix("conflict")
        let small = EtcdLimits(maximumOperations: 8, maximumRequestBytes: 4096)   // 40 keys: a staged commit
        let first = try EtcdTestStore.backend(prefix: prefix, limits: small)
        let second = try EtcdTestStore.backend(prefix: prefix, limits: small)
        try first.apply(put(1, keys: 0 ..< keys))
        let secondRevision = second.revision
        #expect(throws: EtcdBackend.conflict(after: secondRevision)) { try second.apply(put(2, keys: 0 ..< keys)) }
        #expect(second.revision == secondRevision)
        let expected = Dictionary(uniqueKeysWithValues: (0 ..< keys).map { (UInt8($0), UInt8(1)) })
        #expect(try values(EtcdTestStore.backend(prefix: prefix)) == expected)
        // No staging left behind by the refused staged commit.
        let layout = first.layout
        #expect(try EtcdTestStore.client().range(from: layout.stagingRoot, before: EtcdKeyLayout.end(ofPrefix: layout.stagingRoot),
                                                 revision: nil, keysOnly: true).records.isEmpty)
        // Refreshed, the second client saves; the first, now behind, is refused in turn.
        try second.refresh()
        try second.apply(put(3, keys: 0 ..< keys))
        #expect(throws: EtcdBackend.conflict(after: first.revision)) { try first.apply(put(4, keys: 0 ..< 1)) }
        #expect(try values(EtcdTestStore.backend(prefix: prefix))[0] == 3)
    }

    @Test(arguments: [2, 40])
    func aSaveWhoseReplyIsLostAndWhichIsSentAgainIsNoConflict(keys: Int) throws {
        // EtcdClient sends a request again on another member when a reply does not come: the
        // first may have landed. The save key's mark tells the backend its save did.
        let prefix = EtcdTestStore.freshPrefix("lostreply")
        let small = EtcdLimits(maximumOperations: 8, maximumRequestBytes: 4096)   // 40 keys: a staged commit
        let backend = try EtcdTestStore.backend(prefix: prefix, limits: small)
        try backend.apply(put(1, keys: 0 ..< keys))
        backend.losesNextSaveReply = true
        try backend.apply(put(2, keys: 0 ..< keys))
        let expected = Dictionary(uniqueKeysWithValues: (0 ..< keys).map { (UInt8($0), UInt8(2)) })
        #expect(try values(backend) == expected)
        #expect(try values(EtcdTestStore.backend(prefix: prefix)) == expected)
        try backend.apply(put(3, keys: 0 ..< 1))
        #expect(try values(EtcdTestStore.backend(prefix: prefix))[0] == 3)
    }

    @Test func aClientsOwnSavesNeverConflict() throws {
        let backend = try EtcdTestStore.backend(prefix: EtcdTestStore.freshPrefix("own"))
        for value in 1 ... 5 { try backend.apply(put(UInt8(value), keys: 0 ..< 3)) }
        #expect(try values(backend) == [0: 5, 1: 5, 2: 5])
    }

    @Test func twoDocumentStoresOnOnePrefixLoseNoInsert() throws {
        let cluster = try EtcdTestStore.cluster()
        let prefix = EtcdTestStore.freshPrefix("documents")
        func open() throws -> DocumentStore {
            try DocumentStore(backend: EtcdBackend(endpoints: cluster.endpoints, prefix: prefix))
        }
        let first = try open()
        _ = try first.collection("notes").insert(["by": "first", "n": 0])
        let second = try open()
        _ = try first.collection("notes").insert(["by": "first", "n": 1])
        // The second store read before the first's save: its save would reuse a rowID.
        #expect {
            _ = try second.collection("notes").insert(["by": "second", "n": 0])
        } throws: { error in
            guard case BackendError.conflict = error else { return false }
            return true
        }
        try second.close()
        let again = try open()
        let rowID = try again.collection("notes").insert(["by": "second", "n": 0])
        let reader = try open()
        let notes = try reader.collection("notes")
        #expect(try notes.count() == 3)
        #expect(try notes.document(id: rowID)?["by"] == "second")
        #expect(try notes.count(where: "[by] = ?", arguments: ["first"]) == 2)
    }
}
