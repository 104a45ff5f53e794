// Ordered tables: tables declared ordered are Tokyo Cabinet B+tree files scanned by key range, forward
// and backward, committed in the same atomic batch as the hash tables.

import Foundation
import Testing
@testable import Larder

@Suite struct OrderedTableTests {
    /// Keys 0, 2, 4, ... 98 as one big-endian byte each behind a prefix byte.
    private func fill(_ backend: TokyoCabinetBackend, table: String = "t.idx") throws {
        var batch = WriteBatch()
        for value in stride(from: 98, through: 0, by: -2) {
            batch.put([UInt8(value)], forKey: [7, UInt8(value)], in: table)
        }
        try backend.apply(batch)
    }

    private func keys(_ backend: TokyoCabinetBackend, from start: [UInt8]?, through end: [UInt8]?,
                      reverse: Bool = false, table: String = "t.idx") throws -> [Int] {
        var keys: [Int] = []
        try backend.forEachRecord(in: table, from: start, through: end, reverse: reverse) { key, value in
            #expect(key.count == 2 && value.count == 1 && key[1] == value[0])
            keys.append(Int(key[1]))
            return true
        }
        return keys
    }

    @Test func anOrderedTableIsABTreeFileScannedInKeyOrder() throws {
        let directory = TemporaryDirectory()
        let backend = try TokyoCabinetBackend(path: directory.path)
        declareOrderedTestTables(of: backend)
        try fill(backend)
        #expect(FileManager.default.fileExists(atPath: directory.file("t.idx.tcb")))
        #expect(backend.filePath(for: "t.idx") == directory.file("t.idx.tcb"))
        #expect(try keys(backend, from: nil, through: nil) == Array(stride(from: 0, through: 98, by: 2)))
        #expect(try keys(backend, from: nil, through: nil, reverse: true) == Array(stride(from: 98, through: 0, by: -2)))
        var all: [Int] = []
        try backend.forEachRecord(in: "t.idx") { key, _ in all.append(Int(key[1])); return true }
        #expect(all == Array(stride(from: 0, through: 98, by: 2)))
        #expect(try backend.recordCount(in: "t.idx") == 50)
        try backend.close()
    }

    @Test func rangesAreInclusiveAndMayFallBetweenKeys() throws {
        let directory = TemporaryDirectory()
        let backend = try TokyoCabinetBackend(path: directory.path)
        declareOrderedTestTables(of: backend)
        try fill(backend)
        #expect(try keys(backend, from: [7, 10], through: [7, 16]) == [10, 12, 14, 16])
        #expect(try keys(backend, from: [7, 11], through: [7, 17]) == [12, 14, 16])
        #expect(try keys(backend, from: [7, 11], through: [7, 17], reverse: true) == [16, 14, 12])
        #expect(try keys(backend, from: [7, 10], through: [7, 16], reverse: true) == [16, 14, 12, 10])
        // A bare prefix is before all its extensions: [7] ... [7, 0xFF] covers them all.
        #expect(try keys(backend, from: [7], through: [7, 0xFF]).count == 50)
        #expect(try keys(backend, from: [7, 99], through: nil).isEmpty)
        #expect(try keys(backend, from: nil, through: [6], reverse: true).isEmpty)
        #expect(try keys(backend, from: [8], through: nil, reverse: true).isEmpty)
        #expect(try keys(backend, from: [7, 96], through: nil) == [96, 98])
        var firstTwo: [Int] = []
        try backend.forEachRecord(in: "t.idx", from: nil, through: nil, reverse: true) { key, _ in
            firstTwo.append(Int(key[1]))
            return firstTwo.count < 2
        }
        #expect(firstTwo == [98, 96])
        // A table that was never written scans as empty.
        #expect(try keys(backend, from: nil, through: nil, table: "empty.idx").isEmpty)
        try backend.close()
    }

    /// A backend that forwards to Tokyo Cabinet but has only the protocol's own scan from the
    /// record holding a key.
    private final class ForwardingBackend: Backend {
        let base: TokyoCabinetBackend
        init(_ base: TokyoCabinetBackend) { self.base = base }
        func readValue(forKey key: [UInt8], in table: String, _ body: (UnsafeRawBufferPointer?) throws -> Void) throws {
            try base.readValue(forKey: key, in: table, body)
        }
        func forEachRecord(in table: String, _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws {
            try base.forEachRecord(in: table, body)
        }
        func forEachRecord(in table: String, from start: [UInt8]?, through end: [UInt8]?, reverse: Bool,
                           _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws {
            try base.forEachRecord(in: table, from: start, through: end, reverse: reverse, body)
        }
        func recordCount(in table: String) throws -> Int { try base.recordCount(in: table) }
        func apply(_ batch: WriteBatch) throws { try base.apply(batch) }
        func close() throws { try base.close() }
    }

    @Test func aScanHoldingAKeyStartsAtTheLastRecordAtOrBeforeIt() throws {
        let directory = TemporaryDirectory()
        let tokyoCabinet = try TokyoCabinetBackend(path: directory.path)
        declareOrderedTestTables(of: tokyoCabinet)
        try fill(tokyoCabinet)
        for backend in [tokyoCabinet, ForwardingBackend(tokyoCabinet)] as [any Backend] {
            func keys(holding start: [UInt8], through end: [UInt8]?, stopAfter limit: Int = .max) throws -> [Int] {
                var keys: [Int] = []
                try backend.forEachRecord(in: "t.idx", holding: start, through: end) { key, _ in
                    keys.append(Int(key[1]))
                    return keys.count < limit
                }
                return keys
            }
            // Between keys, the record before; on a key, that record.
            #expect(try keys(holding: [7, 11], through: [7, 16]) == [10, 12, 14, 16])
            #expect(try keys(holding: [7, 10], through: [7, 15]) == [10, 12, 14])
            // Before every key, the first record; past every key, the last.
            #expect(try keys(holding: [6], through: [7, 4]) == [0, 2, 4])
            #expect(try keys(holding: [7, 0], through: [7, 0]) == [0])
            #expect(try keys(holding: [8], through: nil) == [98])
            #expect(try keys(holding: [7, 99], through: nil) == [98])
            // The end bounds the keys, and the body can stop the scan.
            #expect(try keys(holding: [7, 11], through: [7, 9]).isEmpty)
            #expect(try keys(holding: [7, 51], through: nil, stopAfter: 3) == [50, 52, 54])
            #expect(try keys(holding: [7, 51], through: nil).count == 25)
            var none = 0
            try backend.forEachRecord(in: "empty.idx", holding: [7], through: nil) { _, _ in
                none += 1
                return true
            }
            #expect(none == 0)
        }
        #expect(throws: BackendError.unorderedTable("Song")) {
            try tokyoCabinet.forEachRecord(in: "Song", holding: [1], through: nil) { _, _ in true }
        }
        try tokyoCabinet.close()
    }

    /// Over many leaves (values of 1 KB: a leaf splits past 16 KB), a scan holding a key starts
    /// at the last record at or before it wherever the leaves split, also once the first
    /// records of leaves are deleted (the leaf a key leads to then starts after the key).
    @Test func aScanHoldingAKeyCrossesLeavesWhereTheyBegin() throws {
        let directory = TemporaryDirectory()
        let backend = try TokyoCabinetBackend(path: directory.path)
        declareOrderedTestTables(of: backend)
        func key(_ value: Int) -> [UInt8] { [7, UInt8(value >> 8), UInt8(value & 0xFF)] }
        var present = Array(stride(from: 0, to: 2_000, by: 2))
        var batch = WriteBatch()
        for value in present { batch.put([UInt8](repeating: UInt8(value & 0xFF), count: 1_024), forKey: key(value), in: "t.idx") }
        try backend.apply(batch)
        func check() throws {
            for start in stride(from: -1, to: 2_002, by: 1) {
                var found: [Int] = []
                try backend.forEachRecord(in: "t.idx", holding: start < 0 ? [6] : key(start), through: nil) { key, value in
                    #expect(value.count == 1_024 && value[0] == key[2])
                    found.append(Int(key[1]) << 8 | Int(key[2]))
                    return found.count < 2
                }
                // The last record at or before the start, else the first; then the one after it.
                let holding = present.lastIndex { $0 <= start } ?? 0
                #expect(found == Array(present[holding ..< min(holding + 2, present.count)]), "holding \(start)")
            }
        }
        try check()
        // Every 7th record gone, many of them first in their leaves.
        var removal = WriteBatch()
        for value in present where value % 14 == 0 { removal.removeValue(forKey: key(value), in: "t.idx") }
        try backend.apply(removal)
        present.removeAll { $0 % 14 == 0 }
        try check()
        try backend.close()
    }

    @Test func aHashTableRefusesRangeScans() throws {
        let directory = TemporaryDirectory()
        let backend = try TokyoCabinetBackend(path: directory.path)
        declareOrderedTestTables(of: backend)
        #expect(throws: BackendError.unorderedTable("Song")) {
            try backend.forEachRecord(in: "Song", from: nil, through: nil, reverse: false) { _, _ in true }
        }
        try backend.close()
    }

    @Test func putsReplaceAndDeletesRemoveOrderedKeys() throws {
        let directory = TemporaryDirectory()
        let backend = try TokyoCabinetBackend(path: directory.path)
        declareOrderedTestTables(of: backend)
        try fill(backend)
        var batch = WriteBatch()
        batch.removeValue(forKey: [7, 2], in: "t.idx")
        batch.removeValue(forKey: [7, 3], in: "t.idx")   // not there: not an error
        batch.put([4], forKey: [7, 4], in: "t.idx")
        try backend.apply(batch)
        #expect(try keys(backend, from: [7, 0], through: [7, 6]) == [0, 4, 6])
        #expect(try backend.withValue(forKey: [7, 4], in: "t.idx") { $0.map(Array.init) } == [4])
        #expect(try backend.withValue(forKey: [7, 2], in: "t.idx") { $0 == nil })
        try backend.close()
    }

    @Test func aBatchAcrossHashAndBTreeFilesIsAllOrNothing() throws {
        let directory = TemporaryDirectory()
        // Every failure point of the batch leaves both files as they were.
        for failing in 1 ... 12 {
            let backend = try TokyoCabinetBackend(path: directory.path)
            declareOrderedTestTables(of: backend)
            var batch = WriteBatch()
            batch.put([1], forKey: RowIDKey.bytes(1), in: "docs")
            batch.put([], forKey: [5, 0, 0, 0, 1], in: "docs.0.idx")
            backend.faultInjector = FaultInjector(failingOperation: failing)
            let failed = (try? backend.apply(batch)) == nil
            backend.faultInjector = nil
            let inHash = try backend.withValue(forKey: RowIDKey.bytes(1), in: "docs") { $0 != nil }
            let inTree = try backend.withValue(forKey: [5, 0, 0, 0, 1], in: "docs.0.idx") { $0 != nil }
            #expect(inHash == inTree, "failing operation \(failing)")
            if failed && !inHash {
                try backend.close()
                continue
            }
            try backend.close()
            try FileManager.default.removeItem(atPath: directory.path)
        }
    }

    @Test func newFilesAppearWholeUnderTheirNames() throws {
        let directory = TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true)
        // What a crash during an earlier creation leaves behind is set aside, not used.
        _ = FileManager.default.createFile(atPath: directory.file("t.idx.tcb.creating-12345"), contents: Data("half".utf8))
        _ = FileManager.default.createFile(atPath: directory.file("Song.tch.creating-12345"), contents: Data("half".utf8))
        let backend = try TokyoCabinetBackend(path: directory.path)
        declareOrderedTestTables(of: backend)
        try fill(backend)
        var batch = WriteBatch()
        batch.put([1], forKey: RowIDKey.bytes(1), in: "Song")
        try backend.apply(batch)
        #expect(try keys(backend, from: nil, through: nil).count == 50)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(!names.contains { $0.contains(".creating-") })
        #expect(Set(names).isSuperset(of: ["_store.tch", "t.idx.tcb", "Song.tch"]))
        try backend.close()
    }

    @Test func orderedTablesSurviveReopening() throws {
        let directory = TemporaryDirectory()
        do {
            let backend = try TokyoCabinetBackend(path: directory.path)
            declareOrderedTestTables(of: backend)
            try fill(backend)
            try backend.close()
        }
        let reader = try TokyoCabinetBackend(path: directory.path, configuration: .init(readOnly: true))
        declareOrderedTestTables(of: reader)
        #expect(try keys(reader, from: [7, 90], through: nil) == [90, 92, 94, 96, 98])
        try reader.close()
    }
}
