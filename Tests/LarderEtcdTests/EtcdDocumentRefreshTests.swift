// DocumentStore.refresh() on the etcd cluster: two document stores on one prefix, each takes in
// the other's inserts, updates and deletes (reads see them, an index finds them, its own next
// write is no conflict), its subscribers get a gap marker for each refresh that brought a change
// to their collection and nothing for one that did not; on a backend only it writes, refresh
// finds nothing.

import EtcdTestSupport
import Foundation
import Larder
import LarderDocuments
import Testing
@testable import LarderEtcd

@Suite struct EtcdDocumentRefreshTests {
    @Test func aDocumentStoreTakesInAnotherClientsInsertUpdateAndDelete() async throws {
        // `now` runs its body synchronously: the collections' blocking calls, between awaits
        // of their change feeds.
        let prefix = EtcdTestStore.freshPrefix("documents")
        let (mine, theirs, notes, others, theirNotes) = try now {
            let mine = try DocumentStore(backend: EtcdTestStore.backend(prefix: prefix))
            let theirs = try DocumentStore(backend: EtcdTestStore.backend(prefix: prefix))
            let notes = try mine.collection("notes")
            try notes.addIndex("[number]")
            let others = try mine.collection("others")
            _ = try others.insert(["x": .int(1)])
            #expect(try notes.count() == 0)
            #expect(try theirs.refresh())
            return (mine, theirs, notes, others, try theirs.collection("notes"))
        }
        var changes = notes.changes.makeAsyncIterator()
        var otherChanges = others.changes.makeAsyncIterator()

        let rowID = try now {
            let rowID = try theirNotes.insert(["number": .int(7), "text": .string("theirs")])
            #expect(try notes.document(id: rowID) == nil)   // not yet taken in
            #expect(try mine.refresh())
            #expect(try notes.document(id: rowID)?["text"] == .string("theirs"))
            #expect(try notes.count(where: "[number] = ?", arguments: [7]) == 1)
            return rowID
        }
        let afterInsert = await changes.next()
        #expect(afterInsert?.missed != nil)

        let updated = try now {
            var updated = try #require(try theirNotes.document(id: rowID))
            updated["text"] = .string("changed")
            try theirNotes.update(updated)
            #expect(try mine.refresh())
            #expect(try notes.document(id: rowID)?["text"] == .string("changed"))
            return updated
        }
        let afterUpdate = await changes.next()
        #expect(afterUpdate?.missed != nil && afterUpdate?.sequence != afterInsert?.sequence)

        try now {
            try theirNotes.delete(updated)
            #expect(try mine.refresh())
            #expect(try notes.document(id: rowID) == nil)
            #expect(try notes.count(where: "[number] = ?", arguments: [7]) == 0)
        }
        #expect(await changes.next()?.missed != nil)

        try now {
            #expect(try !mine.refresh())
            // Its own write after the refresh is no conflict; the other store takes it in.
            let mineRowID = try notes.insert(["number": .int(8)])
            #expect(try theirs.refresh())
            #expect(try theirNotes.document(id: mineRowID)?["number"] == .int(8))
            // The collection nobody else changed got no marker: its next change is its own insert.
            _ = try others.insert(["x": .int(2)])
        }
        let own = await otherChanges.next()
        #expect(own?.missed == nil && own?.inserted.count == 1)
    }

    /// Runs `body` synchronously (in an async test, the blocking overloads).
    private func now<Result>(_ body: () throws -> Result) rethrows -> Result {
        try body()
    }

    @Test func aWriteBeforeTheRefreshIsAConflictThatChangesNothing() throws {
        let prefix = EtcdTestStore.freshPrefix("docconflict")
        let mine = try DocumentStore(backend: EtcdTestStore.backend(prefix: prefix))
        let notes = try mine.collection("notes")
        _ = try notes.insert(["n": .int(1)])
        let theirs = try DocumentStore(backend: EtcdTestStore.backend(prefix: prefix))
        _ = try theirs.collection("notes").insert(["n": .int(2)])
        #expect {
            _ = try notes.insert(["n": .int(3)])
        } throws: { error in
            guard case BackendError.conflict = error else { return false }
            return true
        }
        #expect(try mine.refresh())
        _ = try notes.insert(["n": .int(3)])
        #expect(try notes.count() == 3)
    }

    @Test func onABackendOnlyItWritesRefreshFindsNothing() throws {
        let store = try DocumentStore(backend: MemoryBackend())
        _ = try store.collection("notes").insert(["n": .int(1)])
        #expect(try !store.refresh())
    }
}
