// A collection's change feed (DocumentCollection.changes) and query observation
// (DocumentCollection.observe): every committed write that changes documents reaches every
// subscriber once, in order, with the rowIDs it inserted, updated and removed, whichever
// DocumentCollection value made it; a write that throws or changes no document sends nothing; a
// stalled subscriber gets a gap marker; closing or dropping ends the streams. An observed query
// sends its documents at once, then again after a write that changes them, and never for one
// that leaves them as they were.

import Foundation
import Larder
import LarderTestSupport
import Testing
@testable import LarderDocuments

@Suite struct DocumentChangeTests {
    @Test(arguments: BackendKind.withEtcd) func everySubscriberGetsEachWriteOnceInOrder(_ backend: BackendKind) async throws {
        let temporary = try TemporaryStore(backend: backend)
        let people = try temporary.store.collection("people")
        let first = ObservedValues(people.changes)
        // Another value for the same collection shares its feed.
        let second = ObservedValues(try temporary.store.collection("people").changes(bufferSize: 100))
        let others = ObservedValues(try temporary.store.collection("others").changes)

        func write() throws {
            try people.addUniqueIndex("[email]")                                                     // no document changes
            let ids = try people.insertBatch([["email": "ada@example.com"], ["email": "grace@example.com"], ["email": "alan@example.com"]])
            var grace = try #require(try people.document(id: ids[1]))
            grace["age"] = 45
            try people.update(grace)
            try people.delete(try #require(try people.document(id: ids[0])))
            #expect(try people.delete(where: "[email] = ?", arguments: ["nobody@example.com"]) == 0)   // changes nothing
            #expect(throws: DocumentError.self) { try people.insert(["email": "alan@example.com"]) }   // a unique violation
            try temporary.store.collection("people").insert(["email": "edsger@example.com"])
            #expect(try people.delete(where: "[email] != ?", arguments: ["edsger@example.com"]) == 2)
        }
        try write()

        #expect(await first.waitFor(count: 5))
        #expect(await second.waitFor(count: 5))
        try temporary.store.close()
        #expect(await first.waitForEnd())
        #expect(await second.waitForEnd())
        #expect(await others.waitForEnd())
        let expected = [DocumentChange(sequence: 1, inserted: [1, 2, 3], updated: [], removed: []),
                        DocumentChange(sequence: 2, inserted: [], updated: [2], removed: []),
                        DocumentChange(sequence: 3, inserted: [], updated: [], removed: [1]),
                        DocumentChange(sequence: 4, inserted: [4], updated: [], removed: []),
                        DocumentChange(sequence: 5, inserted: [], updated: [], removed: [2, 3])]
        #expect(first.values == expected)
        #expect(second.values == expected)
        #expect(others.values.isEmpty)
    }

    @Test func aStalledSubscriberGetsAGapMarkerAndDroppingEndsTheFeed() async throws {
        let temporary = try TemporaryStore(backend: .memory)
        let log = try temporary.store.collection("log")
        func insert(_ number: Int) throws { try log.insert(["n": .int(Int64(number))]) }
        let stalled = log.changes(bufferSize: 2)
        for number in 1 ... 5 { try insert(number) }
        let read = ObservedValues(stalled)
        #expect(await read.waitFor(count: 3))
        try insert(6)
        #expect(await read.waitFor(count: 4))
        #expect(try temporary.store.dropCollection("log"))
        #expect(await read.waitForEnd())
        #expect(read.values.map(\.description) == ["1: +1 ~0 -0", "2: +1 ~0 -0", "gap 3...5", "6: +1 ~0 -0"])
        #expect(read.values[2].missed == 3 ... 5)
    }

    @Test(arguments: BackendKind.withEtcd) func anObservedQuerySendsItsDocumentsWhenAWriteChangesThem(_ backend: BackendKind) async throws {
        let temporary = try TemporaryStore(backend: backend)
        let people = try temporary.store.collection("people")
        func insert(_ document: JSON) throws { try people.insert(document) }
        func makeAdaFifty() throws {
            var ada = try #require(try people.findOne(where: "[name] = ?", arguments: ["Ada"]))
            ada["age"] = 50
            try people.update(ada)
        }
        try insert(["name": "Ada", "age": 36])
        try insert(["name": "Grace", "age": 45])
        let older = ObservedValues(people.observe(where: "[age] > ?", arguments: [40], orderBy: "[age] DESC", limit: 2))
        #expect(await older.waitFor(count: 1))
        try insert(["name": "Alan", "age": 41])
        #expect(await older.waitFor(count: 2))
        // A write that leaves the answer as it was sends nothing.
        try insert(["name": "Young", "age": 20])
        try makeAdaFifty()
        #expect(await older.waitFor(count: 3))
        try temporary.store.close()
        #expect(await older.waitForEnd())
        #expect(older.values.map { $0.compactMap { $0["name"].stringValue } } == [["Grace"], ["Grace", "Alan"], ["Ada", "Grace"]])
        #expect(older.error == nil)

        let broken = ObservedValues(try temporary.reopen().collection("people").observe(where: "[age] >"))
        #expect(await broken.waitForEnd())
        #expect(broken.error is QueryError)
    }
}
