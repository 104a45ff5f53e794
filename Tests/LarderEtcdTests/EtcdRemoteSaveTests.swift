// EtcdBackend.remoteSaves against the real cluster: it yields the revision of each save another
// client makes to the prefix (one transaction or staged), never the backend's own.

import EtcdTestSupport
import Foundation
import Larder
import Testing
@testable import LarderEtcd

@Suite struct EtcdRemoteSaveTests {
    @Test func remoteSavesYieldsAnotherClientsSavesAndNotItsOwn() async throws {
        let prefix = EtcdTestStore.freshPrefix("remote")
        let limits = EtcdLimits(maximumOperations: 4, maximumRequestBytes: 4096)
        let backend = try EtcdTestStore.backend(prefix: prefix, limits: limits)
        let other = try EtcdTestStore.backend(prefix: prefix, limits: limits)
        func save(_ keys: ClosedRange<UInt8>, by client: EtcdBackend) throws -> Int64 {
            try client.refresh()
            var batch = WriteBatch()
            for key in keys { batch.put([key], forKey: [key], in: "t") }
            try client.apply(batch)
            return client.revision
        }
        // Own saves, small and staged, then another client's, small and staged, then own again.
        _ = try save(1 ... 2, by: backend)
        _ = try save(1 ... 10, by: backend)
        let otherSmall = try save(3 ... 3, by: other)
        _ = try save(4 ... 4, by: backend)
        let otherStagedDone = try save(1 ... 12, by: other)
        let otherStagedPublished = try EtcdStagedCommit(client: EtcdTestStore.client(), layout: other.layout,
                                                        limits: limits).lastSaveRevision()
        _ = try save(5 ... 5, by: backend)
        let last = try save(6 ... 6, by: other)
        // Should the saves not come, closing the backend ends the stream and the loop.
        let timeout = Task.detached {
            try await Task.sleep(nanoseconds: 30_000_000_000)
            try backend.close()
        }
        var yielded: [Int64] = []
        for await revision in backend.remoteSaves {
            yielded.append(revision)
            if revision >= last { break }
        }
        timeout.cancel()
        #expect(otherStagedPublished > otherSmall && otherStagedPublished < otherStagedDone)
        #expect(yielded == [otherSmall, otherStagedPublished, last])
    }

    @Test func closingTheBackendEndsRemoteSaves() async throws {
        let backend = try EtcdTestStore.backend(prefix: EtcdTestStore.freshPrefix("closedsaves"))
        try backend.close()
        var iterator = backend.remoteSaves.makeAsyncIterator()
        #expect(await iterator.next() == nil)
    }
}
