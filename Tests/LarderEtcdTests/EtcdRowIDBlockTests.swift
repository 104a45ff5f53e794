// EtcdBackend's rowID blocks against the real cluster: clients reserving in turns get blocks that
// never overlap, whatever each remembers of the counter; a block is given back only while no
// client reserved after it; the floor is kept; the counter holds the next rowID no client was
// given; a counter of the wrong size is a typed error. (That a reservation the backend guesses
// right costs one transaction and no read shows in `make speed`'s request counts.)

import Foundation
import Larder
import Testing
@testable import LarderEtcd

@Suite struct EtcdRowIDBlockTests {
    @Test func clientsReservingInTurnsGetBlocksThatNeverOverlap() throws {
        let prefix = EtcdTestStore.freshPrefix("rowids")
        let first = try EtcdTestStore.backend(prefix: prefix)
        let second = try EtcdTestStore.backend(prefix: prefix)
        #expect(try first.reserveRowIDs(64, in: "Song", atLeast: 1) == 1 ..< 65)
        // The second has no idea of the counter: its guess (none yet) fails and it reads it.
        #expect(try second.reserveRowIDs(10, in: "Song", atLeast: 1) == 65 ..< 75)
        // The first remembers 65, which another client moved since: it reads it too.
        #expect(try first.reserveRowIDs(100, in: "Song", atLeast: 1) == 75 ..< 175)
        #expect(try second.reserveRowIDs(1, in: "Song", atLeast: 1) == 175 ..< 176)
        // Tables count apart; a floor above the counter is kept.
        #expect(try second.reserveRowIDs(5, in: "Playlist", atLeast: 1_000) == 1_000 ..< 1_005)
        #expect(try first.reserveRowIDs(5, in: "Playlist", atLeast: 1) == 1_005 ..< 1_010)
    }

    @Test func aBlockIsGivenBackOnlyWhileNobodyReservedAfterIt() throws {
        let prefix = EtcdTestStore.freshPrefix("giveback")
        let first = try EtcdTestStore.backend(prefix: prefix)
        let second = try EtcdTestStore.backend(prefix: prefix)
        let kept = try #require(try first.reserveRowIDs(64, in: "t", atLeast: 1))
        try first.returnRowIDs(10 ..< kept.upperBound, in: "t")
        #expect(try second.reserveRowIDs(5, in: "t", atLeast: 1) == 10 ..< 15)
        // The first's block is no longer the last one: giving it back changes nothing.
        let behind = try #require(try first.reserveRowIDs(5, in: "t", atLeast: 1))
        #expect(behind == 15 ..< 20)
        _ = try second.reserveRowIDs(5, in: "t", atLeast: 1)
        try first.returnRowIDs(behind, in: "t")
        #expect(try second.reserveRowIDs(1, in: "t", atLeast: 1) == 25 ..< 26)
    }

    @Test func theCounterHoldsTheNextRowIDNoClientWasGiven() throws {
        let prefix = EtcdTestStore.freshPrefix("onetxn")
        let backend = try EtcdTestStore.backend(prefix: prefix)
        let client = try EtcdTestStore.client()
        let before = try client.currentRevision()
        _ = try backend.reserveRowIDs(64, in: "t", atLeast: 1)
        _ = try backend.reserveRowIDs(64, in: "t", atLeast: 1)
        let counter = try client.range(from: backend.layout.rowIDCounterKey("t"), before: nil, revision: nil).records
        // 8 bytes, big-endian: 129 is the next rowID.
        #expect(counter.map(\.value) == [[0, 0, 0, 0, 0, 0, 0, 129]])
        #expect(counter.first.map(\.modRevision).map { $0 > before } == true)
    }

    @Test func aCounterOfTheWrongSizeIsATypedError() throws {
        let prefix = EtcdTestStore.freshPrefix("damagedcounter")
        let backend = try EtcdTestStore.backend(prefix: prefix)
        let client = try EtcdTestStore.client()
        _ = try client.transaction(comparing: [], success: [.put([1, 2, 3], forKey: backend.layout.rowIDCounterKey("t"))])
        #expect(throws: EtcdError.damagedRowIDCounter(table: "t")) {
            try backend.reserveRowIDs(64, in: "t", atLeast: 1)
        }
    }
}
