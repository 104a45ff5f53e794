// Several Stores on one etcd prefix, as several machines would use it: rowIDs never collide,
// saves that change different objects (even in the same page) both land, a save that changes an
// object another client changed first gets StoreError.conflict naming it with that object's
// change dropped and the rest kept, refresh() brings in other clients' saves (objects refaulted
// or deleted, counts, queries, the change feed and observations), the registry stays exact, and a
// closing store gives back the unused end of its block of rowIDs only when nobody reserved after it.

import Foundation
import Larder
import LarderTestSupport
import Testing
@testable import LarderEtcd

final class SharedNote: StoredObject {
    @Stored var text = ""
    @Stored var count: Int64 = 0

    override class var indexes: [ObjectIndex] { [ObjectIndex(\SharedNote.count)] }

    convenience init(_ text: String, count: Int64 = 0) {
        self.init()
        self.text = text
        self.count = count
    }

    override func writeContent(to buffer: inout DataBuffer) {
        buffer.write(text)
        buffer.write(count)
    }

    override func readContent(from buffer: inout DataBuffer, in store: Store) throws {
        text = try buffer.readString()
        count = try buffer.readInt64()
    }
}

@Suite struct SharedStoreTests {
    private func open(_ prefix: String, limits: EtcdLimits = .etcdDefaults) throws -> Store {
        let store = try Store(backend: EtcdTestStore.backend(prefix: prefix, limits: limits))
        try store.register(SharedNote.self)
        return store
    }

    private func texts(_ store: Store) throws -> [UInt64: String] {
        Dictionary(uniqueKeysWithValues: try store.allObjects(of: SharedNote.self).map { ($0.rowID, $0.text) })
    }

    @Test func twoClientsInsertingGetDifferentRowIDsAndBothSavesLand() throws {
        let prefix = EtcdTestStore.freshPrefix("shared-insert")
        let first = try open(prefix)
        let second = try open(prefix)
        var expected: [UInt64: String] = [:]
        for round in 0 ..< 3 {
            for (name, store) in [("first", first), ("second", second)] {
                for n in 0 ..< 40 {
                    let note = SharedNote("\(name) \(round) \(n)")
                    try store.insert(note)
                    #expect(expected[note.rowID] == nil)
                    expected[note.rowID] = note.text
                }
                // The other client saved since this one read: the save takes it in and lands.
                try store.saveChanges()
            }
        }
        let reader = try open(prefix)
        #expect(try texts(reader) == expected)
        #expect(try reader.count(of: SharedNote.self) == 240)
        // The registry is exact: every rowID below the next one is saved or counted deleted.
        let report = try reader.verify()
        #expect(report.problems.isEmpty, "\(report.problems)")
        // Deleting everything leaves a class that opens, counts 0 and verifies.
        for note in try reader.allObjects(of: SharedNote.self) { try reader.delete(note) }
        try reader.saveChanges()
        let emptied = try open(prefix)
        #expect(try emptied.count(of: SharedNote.self) == 0)
        #expect(try emptied.verify().problems.isEmpty)
    }

    @Test func savesOfDifferentObjectsInOnePageBothLand() throws {
        let prefix = EtcdTestStore.freshPrefix("shared-page")
        let setup = try open(prefix)
        let notes = (0 ..< 10).map { SharedNote("note \($0)", count: Int64($0)) }
        for note in notes { try setup.insert(note) }
        try setup.saveChanges()
        let first = try open(prefix)
        let second = try open(prefix)
        let a = try #require(try first.object(of: SharedNote.self, rowID: notes[2].rowID))
        let b = try #require(try second.object(of: SharedNote.self, rowID: notes[7].rowID))
        a.text = "changed by first"
        b.text = "changed by second"
        try first.saveChanges()
        try second.saveChanges()   // refused by etcd, taken in, saved again
        let reader = try open(prefix)
        var expected = Dictionary(uniqueKeysWithValues: notes.map { ($0.rowID, $0.text) })
        expected[notes[2].rowID] = "changed by first"
        expected[notes[7].rowID] = "changed by second"
        #expect(try texts(reader) == expected)
        // The second client sees the first's change too (its save took it in).
        #expect(try second.object(of: SharedNote.self, rowID: notes[2].rowID)?.text == "changed by first")
    }

    @Test func aSaveOfAnObjectAnotherClientChangedIsAConflictThatKeepsTheRest() throws {
        let prefix = EtcdTestStore.freshPrefix("shared-conflict")
        let setup = try open(prefix)
        let counter = SharedNote("counter", count: 1)
        let other = SharedNote("other")
        try setup.insert(counter)
        try setup.insert(other)
        try setup.saveChanges()
        let first = try open(prefix)
        let second = try open(prefix)
        let firstCounter = try #require(try first.object(of: SharedNote.self, rowID: counter.rowID))
        let secondCounter = try #require(try second.object(of: SharedNote.self, rowID: counter.rowID))
        let secondOther = try #require(try second.object(of: SharedNote.self, rowID: other.rowID))
        firstCounter.count += 1
        try first.saveChanges()
        secondCounter.count += 10
        secondOther.text = "kept"
        let fresh = SharedNote("inserted by second")
        try second.insert(fresh)
        #expect(throws: StoreError.conflict(objects: ["SharedNote": [counter.rowID]])) { try second.saveChanges() }
        // The loser's object shows the winner's save; its other changes are still pending.
        #expect(secondCounter.count == 2)
        #expect(second.hasUnsavedChanges)
        secondCounter.count += 10
        try second.saveChanges()
        let reader = try open(prefix)
        #expect(try reader.object(of: SharedNote.self, rowID: counter.rowID)?.count == 12)
        #expect(try reader.object(of: SharedNote.self, rowID: other.rowID)?.text == "kept")
        #expect(try reader.object(of: SharedNote.self, rowID: fresh.rowID)?.text == "inserted by second")
        // A delete against an update is a conflict too; a delete against a delete is not.
        let third = try open(prefix)
        try first.refresh()
        try first.delete(try #require(try first.object(of: SharedNote.self, rowID: other.rowID)))
        try first.saveChanges()
        let thirdOther = try #require(try third.object(of: SharedNote.self, rowID: other.rowID))
        thirdOther.text = "too late"
        #expect(throws: StoreError.conflict(objects: ["SharedNote": [other.rowID]])) { try third.saveChanges() }
        #expect(thirdOther.isDeleted)
        let thirdFresh = try #require(try third.object(of: SharedNote.self, rowID: fresh.rowID))
        try second.delete(try #require(try second.object(of: SharedNote.self, rowID: fresh.rowID)))
        try second.saveChanges()
        try third.delete(thirdFresh)
        try third.saveChanges()
        #expect(try open(prefix).count(of: SharedNote.self) == 1)
    }

    @Test func refreshBringsInOtherClientsSavesAndFeedsChangesAndObservations() async throws {
        let prefix = EtcdTestStore.freshPrefix("shared-refresh")
        let writer = try open(prefix)
        let kept = SharedNote("kept", count: 5)
        let doomed = SharedNote("doomed", count: 6)
        for note in [kept, doomed] { try writer.insert(note) }
        try writer.saveChanges()
        let reader = try open(prefix)
        let readKept = try #require(try reader.object(of: SharedNote.self, rowID: kept.rowID))
        let readDoomed = try #require(try reader.object(of: SharedNote.self, rowID: doomed.rowID))
        #expect(readKept.text == "kept")
        #expect(try reader.refresh().isEmpty)
        let feed = ObservedValues(reader.changes)
        let counts = ObservedValues(reader.observe { try $0.count(of: SharedNote.self, where: \.count > 10) })
        #expect(await counts.waitFor(count: 1))
        #expect(counts.values == [0])

        kept.text = "changed elsewhere"
        kept.count = 50
        try writer.delete(doomed)
        let added = SharedNote("added elsewhere", count: 7)
        try writer.insert(added)
        try writer.saveChanges()
        // Before refresh the reader still sees its state; after it, the writer's save.
        #expect(try reader.count(of: SharedNote.self) == 2)
        let changes = try reader.refresh()
        #expect(changes.count == 1)
        #expect(changes.first?.updated(of: SharedNote.self) == [kept.rowID])
        #expect(changes.first?.deleted(of: SharedNote.self) == [doomed.rowID])
        #expect(changes.first?.inserted(of: SharedNote.self) == [added.rowID])
        #expect(readKept.text == "changed elsewhere")
        #expect(readDoomed.isDeleted)
        #expect(try reader.count(of: SharedNote.self) == 2)
        #expect(try reader.objects(of: SharedNote.self, where: \.count > 10).map(\.rowID) == [kept.rowID])
        #expect(try reader.object(of: SharedNote.self, rowID: added.rowID)?.text == "added elsewhere")
        #expect(await feed.waitFor(count: 1))
        #expect(feed.values == changes)
        #expect(await counts.waitFor(count: 2))
        #expect(counts.values == [0, 1])
        #expect(reader.changeSequence == writer.changeSequence)
    }

    @Test func aStagedSaveOfManyObjectsFromTwoClientsLandsWhole() throws {
        let prefix = EtcdTestStore.freshPrefix("shared-staged")
        let small = EtcdLimits(maximumOperations: 8, maximumRequestBytes: 8192)
        let first = try open(prefix, limits: small)
        let second = try open(prefix, limits: small)
        for n in 0 ..< 300 { try first.insert(SharedNote("first \(n)", count: Int64(n))) }
        for n in 0 ..< 300 { try second.insert(SharedNote("second \(n)", count: Int64(n))) }
        try first.saveChanges()
        try second.saveChanges()
        let reader = try open(prefix)
        #expect(try reader.count(of: SharedNote.self) == 600)
        #expect(try reader.count(of: SharedNote.self, where: \.count == 299) == 2)
        #expect(try reader.verify().problems.isEmpty)
    }

    private func inserted(into store: Store, _ text: String) throws -> UInt64 {
        let note = SharedNote(text)
        try store.insert(note)
        return note.rowID
    }

    @Test func aClosingStoreGivesBackItsBlockOnlyWhenNobodyReservedAfterIt() throws {
        let prefix = EtcdTestStore.freshPrefix("shared-blocks")
        let a = try open(prefix)
        let b = try open(prefix)
        let fromA = try inserted(into: a, "a")
        let fromB = try inserted(into: b, "b")
        #expect(fromA == 1)
        #expect(fromB > fromA)
        try a.saveChanges()
        try a.close()   // b reserved after a: a's block stays used up
        let c = try open(prefix)
        let fromC = try inserted(into: c, "c")
        #expect(fromC > fromB)
        try b.saveChanges()
        try c.saveChanges()
        try b.close()   // c reserved after b
        try c.close()   // nobody after c: the rest of its block comes back
        let d = try open(prefix)
        #expect(try inserted(into: d, "d") == fromC + 1)
        try d.saveChanges()
        let texts = try d.allObjects(of: SharedNote.self).map(\.text)
        #expect(texts == ["a", "b", "c", "d"])
        #expect(try d.verify().problems.isEmpty)
    }

    /// A pool's reads are snapshots of its own commits, which other clients' saves would go
    /// around: it refuses the shared backend, leaving it whole for a Store.
    @Test func aStorePoolRefusesTheSharedBackendAndLeavesItToAStore() throws {
        let prefix = EtcdTestStore.freshPrefix("shared-pool")
        let backend = try EtcdTestStore.backend(prefix: prefix)
        #expect(backend.isShared)
        #expect(throws: StoreError.sharedBackendInPool) {
            try StorePool(backend: backend, classes: [SharedNote.self])
        }
        let store = try Store(backend: backend)
        try store.register(SharedNote.self)
        try store.insert(SharedNote("after the pool"))
        try store.saveChanges()
        try store.close()
        let other = try open(prefix)
        #expect(try texts(other) == [1: "after the pool"])
        try other.close()
    }
}
