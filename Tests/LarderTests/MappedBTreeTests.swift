// MappedBTree: B+tree pages read in place hand out the records a Tokyo Cabinet cursor does, over
// many leaves and two levels of nodes, after deletes and a reopen; a transaction open leaves the
// scan to the cursor; a walk that meets a leaf it cannot read goes on with the cursor.

import CTokyoCabinet
import Foundation
import Testing
@testable import Larder

@Suite struct MappedBTreeTests {
    /// A new directory for a test's file, and the file's path in it.
    private func file(in directory: TemporaryDirectory) throws -> String {
        try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true)
        return directory.file("t.tcb")
    }

    /// Key of record `number`: a prefix byte, then the number big-endian in 2 bytes.
    private func key(_ number: Int) -> [UInt8] { [7, UInt8(number >> 8), UInt8(number & 0xFF)] }

    /// The number in a key `key(_:)` made.
    private func number(_ key: UnsafeRawBufferPointer) -> Int { Int(key[1]) << 8 | Int(key[2]) }

    /// A value of `size` bytes that names its record.
    private func value(_ number: Int, size: Int = 600) -> [UInt8] {
        (0 ..< size).map { UInt8(truncatingIfNeeded: number &+ $0) }
    }

    /// Writes the even numbers below `count` in one transaction, in descending order (so that
    /// leaves split everywhere, not only at the end).
    private func fill(_ database: BTreeDatabase, count: Int) throws {
        try database.beginTransaction()
        for number in stride(from: count - 2, through: 0, by: -2) {
            try value(number).withUnsafeBytes { value in
                try key(number).withUnsafeBytes { try database.put(value, forKey: $0) }
            }
        }
        try database.commit()
    }

    /// The numbers a scan hands out (checking each value), at most `limit`.
    private func scan(_ database: BTreeDatabase, from start: [UInt8], through end: [UInt8]?, backingUp: Bool,
                      inPlace: Bool, limit: Int = .max) throws -> [Int] {
        var found: [Int] = []
        try database.forEachRecord(from: start, through: end, reverse: false, backingUp: backingUp, inPlace: inPlace) { key, value in
            #expect(value.elementsEqual(self.value(number(key))))
            found.append(number(key))
            return found.count < limit
        }
        return found
    }

    /// How the in-place walk alone ends for a scan from `start`.
    private func outcome(_ database: BTreeDatabase, from start: [UInt8]) throws -> MappedBTree.Outcome {
        var nodes = MappedBTree.Nodes()
        return try database.withHandle { handle in
            MappedBTree.forEachRecord(in: handle, from: start, backingUp: true, through: nil, nodes: &nodes) { _, _ in true }
        }
    }

    /// Every start (on each key, between keys, before and after all), backing up or not, with
    /// and without an end and a limit: the walk in place hands out what the cursor does.
    private func expectSameAsCursor(_ database: BTreeDatabase, count: Int) throws {
        for start in stride(from: -1, through: count + 1, by: 3) {
            let startKey = start < 0 ? [6] : key(start)
            for backingUp in [false, true] {
                let limit = 3 + start % 5
                let end = start % 3 == 0 ? key(start + 40) : nil
                let inPlace = try scan(database, from: startKey, through: end, backingUp: backingUp, inPlace: true, limit: limit)
                let cursor = try scan(database, from: startKey, through: end, backingUp: backingUp, inPlace: false, limit: limit)
                #expect(inPlace == cursor, "start \(start), backing up \(backingUp)")
            }
        }
        // Whole scans from near the start, over every leaf.
        for backingUp in [false, true] {
            let inPlace = try scan(database, from: key(1), through: nil, backingUp: backingUp, inPlace: true)
            #expect(inPlace == (try scan(database, from: key(1), through: nil, backingUp: backingUp, inPlace: false)))
        }
    }

    @Test func pagesReadInPlaceHandOutWhatACursorDoes() throws {
        let directory = TemporaryDirectory()
        let path = try file(in: directory)
        let count = 8_000
        var database = try BTreeDatabase(path: path, readOnly: false)
        try fill(database, count: count)
        // 4,000 records of 600 bytes: leaves of at most 16 KB, more than a node holds, so the
        // root is a node over nodes.
        #expect(try database.withHandle { tcbdblnum($0) } > 256)
        #expect(try database.withHandle { tcbdbnnum($0) } > 1)
        #expect(try outcome(database, from: key(1_001)) == .finished)
        #expect(try scan(database, from: key(1_001), through: key(1_010), backingUp: true, inPlace: true) == [1_000, 1_002, 1_004, 1_006, 1_008, 1_010])
        #expect(try scan(database, from: key(1_001), through: key(1_010), backingUp: false, inPlace: true) == [1_002, 1_004, 1_006, 1_008, 1_010])
        #expect(try scan(database, from: [6], through: key(4), backingUp: true, inPlace: true) == [0, 2, 4])
        #expect(try scan(database, from: [8], through: nil, backingUp: true, inPlace: true) == [count - 2])
        #expect(try scan(database, from: [8], through: nil, backingUp: false, inPlace: true).isEmpty)
        try expectSameAsCursor(database, count: count)

        // Every 7th record gone (many of them first in their leaves), in the open handle and after a reopen.
        try database.beginTransaction()
        for number in stride(from: 0, to: count, by: 14) { try key(number).withUnsafeBytes { try database.delete($0) } }
        try database.commit()
        #expect(try outcome(database, from: key(1_001)) == .finished)
        #expect(try scan(database, from: key(1_001), through: key(1_010), backingUp: true, inPlace: true) == [1_000, 1_002, 1_004, 1_006, 1_010])
        #expect(try scan(database, from: key(1_009), through: key(1_014), backingUp: true, inPlace: true) == [1_006, 1_010, 1_012, 1_014])
        try expectSameAsCursor(database, count: count)

        // Odd numbers added in a fifth of the range after those reads (the handle's parsed
        // nodes are dropped at the write).
        try database.beginTransaction()
        for number in stride(from: 3_001, to: 4_600, by: 2) {
            try value(number).withUnsafeBytes { value in try key(number).withUnsafeBytes { try database.put(value, forKey: $0) } }
        }
        try database.commit()
        #expect(try scan(database, from: key(3_999), through: key(4_001), backingUp: true, inPlace: true) == [3_999, 4_000, 4_001])
        try expectSameAsCursor(database, count: count)
        try database.close()
        database = try BTreeDatabase(path: path, readOnly: true)
        #expect(try outcome(database, from: key(1_001)) == .finished)
        try expectSameAsCursor(database, count: count)
        try database.close()
    }

    @Test func anOpenTransactionLeavesTheScanToTheCursor() throws {
        let directory = TemporaryDirectory()
        let database = try BTreeDatabase(path: try file(in: directory), readOnly: false)
        try fill(database, count: 2_000)
        try database.beginTransaction()
        try value(1_001).withUnsafeBytes { value in try key(1_001).withUnsafeBytes { try database.put(value, forKey: $0) } }
        // The new record is in the cache, not yet in the file: only the cursor sees it.
        #expect(try outcome(database, from: key(1_001)) == .unavailable(after: nil))
        #expect(try scan(database, from: key(1_001), through: key(1_004), backingUp: true, inPlace: true) == [1_001, 1_002, 1_004])
        try database.commit()
        #expect(try outcome(database, from: key(1_001)) == .finished)
        #expect(try scan(database, from: key(1_001), through: key(1_004), backingUp: true, inPlace: true) == [1_001, 1_002, 1_004])
        try database.close()
    }

    @Test func aWalkMeetingALeafItCannotReadGoesOnWithTheCursor() throws {
        let directory = TemporaryDirectory()
        let database = try BTreeDatabase(path: try file(in: directory), readOnly: false)
        let count = 4_000
        try fill(database, count: count)
        // A second record under key 1,000 (Larder never writes one): its leaf is not read in place.
        try database.beginTransaction()
        let added = try database.withHandle { handle in
            value(1_000).withUnsafeBytes { value in
                key(1_000).withUnsafeBytes { key in
                    tcbdbputdup(handle, key.baseAddress, Int32(key.count), value.baseAddress, Int32(value.count))
                }
            }
        }
        #expect(added)
        try database.commit()
        var resumed: [[UInt8]] = []
        for start in stride(from: 0, to: 1_000, by: 5) {
            if case let .unavailable(after: last?) = try outcome(database, from: key(start)) { resumed.append(last) }
        }
        // Walks from earlier leaves stopped at the last record before that leaf, and the scan
        // goes on from there with the cursor: the duplicate comes out as the cursor gives it.
        #expect(!resumed.isEmpty && resumed.allSatisfy { $0.withUnsafeBytes(number) < 1_000 })
        #expect(try scan(database, from: key(990), through: key(1_004), backingUp: false, inPlace: true)
                    == [990, 992, 994, 996, 998, 1_000, 1_000, 1_002, 1_004])
        try expectSameAsCursor(database, count: count)
        try database.close()
    }
}
