// A B+tree file whose meta a killed process left half rewritten: Tokyo Cabinet's tcbdbdumpmeta
// zeroes the meta in the file's mapped header and then writes it field by field, outside any
// undo log in tcbdbtranbegin, tcbdbsync and tcbdbclose; a SIGKILL in between leaves the meta zero
// from some field on (BTreeMetaRepair). The next writer rebuilds it from the file's pages.

import Foundation
import Testing
@testable import Larder

@Suite struct BTreeMetaRepairTests {
    /// Where the header keeps its flags and the B+tree meta; the flag a writer sets while open.
    private static let flagsOffset: UInt64 = 33
    private static let metaOffset: UInt64 = 128
    private static let metaSize = 64
    private static let openFlag: UInt8 = 1
    private static let fatalFlag: UInt8 = 2

    /// Key `number` of table `t.idx`: its two bytes behind a prefix byte, in key order.
    private func key(_ number: Int) -> [UInt8] { [7, UInt8(number >> 8), UInt8(number & 0xFF)] }

    /// Writes records `numbers` (value: the number's low byte) in one batch.
    private func put(_ numbers: ClosedRange<Int>, into backend: TokyoCabinetBackend) throws {
        var batch = WriteBatch()
        for number in numbers { batch.put([UInt8(number & 0xFF)], forKey: key(number), in: "t.idx") }
        try backend.apply(batch)
    }

    /// The numbers of every record of `t.idx`, in key order.
    private func numbers(in backend: TokyoCabinetBackend) throws -> [Int] {
        var numbers: [Int] = []
        try backend.forEachRecord(in: "t.idx") { key, value in
            let number = Int(key[1]) << 8 | Int(key[2])
            #expect(value.count == 1 && value[0] == UInt8(number & 0xFF))
            numbers.append(number)
            return true
        }
        return numbers
    }

    private func readBytes(_ path: String, at offset: UInt64, count: Int) throws -> [UInt8] {
        let handle = try #require(FileHandle(forReadingAtPath: path))
        defer { try? handle.close() }
        try handle.seek(toOffset: offset)
        return Array(try #require(try handle.read(upToCount: count)))
    }

    private func writeBytes(_ bytes: [UInt8], to path: String, at offset: UInt64) throws {
        let handle = try #require(FileHandle(forWritingAtPath: path))
        defer { try? handle.close() }
        try handle.seek(toOffset: offset)
        try handle.write(contentsOf: bytes)
    }

    /// Records in the tree: enough for over 256 leaves, so two levels of nodes.
    private static let treeSize = 20_000

    /// A closed store whose `t.idx` holds records 0 ..< treeSize.
    private func storeWithTree(in directory: TemporaryDirectory) throws {
        let backend = try TokyoCabinetBackend(path: directory.path)
        declareOrderedTestTables(of: backend)
        try put(0 ... Self.treeSize - 1, into: backend)
        try backend.close()
    }

    /// The meta as a process killed in tcbdbdumpmeta leaves it: its bytes from `zeroFrom` on
    /// zero (0: killed right after the memset; 40: after the last leaf was written, when Tokyo
    /// Cabinet still opens the file but with no leaf, node or record counted), and the file's
    /// "open" flag still set.
    @Test(arguments: [0, 16, 24, 40, 56])
    func aMetaLeftZeroFromAFieldOnIsRebuiltFromThePages(zeroFrom: Int) throws {
        let directory = TemporaryDirectory("btree-meta")
        try storeWithTree(in: directory)
        let file = directory.file("t.idx.tcb")
        let whole = try readBytes(file, at: Self.metaOffset, count: Self.metaSize)
        #expect(whole.contains { $0 != 0 })
        try writeBytes([UInt8](repeating: 0, count: Self.metaSize - zeroFrom), to: file,
                       at: Self.metaOffset + UInt64(zeroFrom))
        let flags = try readBytes(file, at: Self.flagsOffset, count: 1)[0]
        try writeBytes([flags | Self.openFlag], to: file, at: Self.flagsOffset)

        let backend = try TokyoCabinetBackend(path: directory.path)
        declareOrderedTestTables(of: backend)
        #expect(try numbers(in: backend) == Array(0 ..< Self.treeSize))
        #expect(try backend.recordCount(in: "t.idx") == Self.treeSize)
        // New leaves and nodes take page numbers no page has: the tree stays whole.
        try put(Self.treeSize ... 2 * Self.treeSize - 1, into: backend)
        #expect(try backend.recordCount(in: "t.idx") == 2 * Self.treeSize)
        try backend.close()
        // The leaf and node sizes the file was made with, whatever the kill left of them.
        #expect(try readBytes(file, at: Self.metaOffset + 8, count: 8) == Array(whole[8 ..< 16]))

        let reopened = try TokyoCabinetBackend(path: directory.path)
        declareOrderedTestTables(of: reopened)
        #expect(try numbers(in: reopened) == Array(0 ..< 2 * Self.treeSize))
        #expect(try reopened.recordCount(in: "t.idx") == 2 * Self.treeSize)
        try reopened.close()
    }

    /// The meta is rebuilt to exactly what Tokyo Cabinet wrote, counters included.
    @Test func theRebuiltMetaIsTheOneTokyoCabinetWrote() throws {
        let directory = TemporaryDirectory("btree-meta")
        try storeWithTree(in: directory)
        let file = directory.file("t.idx.tcb")
        let whole = try readBytes(file, at: Self.metaOffset, count: Self.metaSize)
        try writeBytes([UInt8](repeating: 0, count: Self.metaSize), to: file, at: Self.metaOffset)
        let flags = try readBytes(file, at: Self.flagsOffset, count: 1)[0]
        try writeBytes([flags | Self.openFlag], to: file, at: Self.flagsOffset)

        let backend = try TokyoCabinetBackend(path: directory.path)
        declareOrderedTestTables(of: backend)
        #expect(try backend.recordCount(in: "t.idx") == Self.treeSize)
        try backend.close()
        #expect(try readBytes(file, at: Self.metaOffset, count: Self.metaSize) == whole)
    }

    /// The state the documents crash test found: the checker's failed open (TCEMETA) set the
    /// "fatal" flag and closed the file, clearing the "open" flag, with the meta still zero.
    @Test func aZeroMetaInAFileMarkedFatalAndClosedIsRebuilt() throws {
        let directory = TemporaryDirectory("btree-meta")
        try storeWithTree(in: directory)
        let file = directory.file("t.idx.tcb")
        try writeBytes([UInt8](repeating: 0, count: Self.metaSize), to: file, at: Self.metaOffset)
        let flags = try readBytes(file, at: Self.flagsOffset, count: 1)[0]
        try writeBytes([(flags & ~Self.openFlag) | Self.fatalFlag], to: file, at: Self.flagsOffset)

        let backend = try TokyoCabinetBackend(path: directory.path)
        declareOrderedTestTables(of: backend)
        #expect(try numbers(in: backend) == Array(0 ..< Self.treeSize))
        try backend.close()
    }

    /// A whole meta is left byte for byte, in a tree whose meta has a zero field of its own (one
    /// leaf: no node), which is read to be sure, as in a tree of two levels of nodes, which is not.
    @Test(arguments: [1, 100, 20_000])
    func aWholeMetaIsLeftAsItIs(records: Int) throws {
        let directory = TemporaryDirectory("btree-meta")
        let backend = try TokyoCabinetBackend(path: directory.path)
        declareOrderedTestTables(of: backend)
        try put(0 ... records - 1, into: backend)
        try backend.close()
        let file = directory.file("t.idx.tcb")
        let whole = try readBytes(file, at: Self.metaOffset, count: Self.metaSize)
        let flags = try readBytes(file, at: Self.flagsOffset, count: 1)[0]
        try writeBytes([flags | Self.openFlag], to: file, at: Self.flagsOffset)

        let reopened = try TokyoCabinetBackend(path: directory.path)
        declareOrderedTestTables(of: reopened)
        #expect(try reopened.recordCount(in: "t.idx") == records)
        #expect(try readBytes(file, at: Self.metaOffset, count: Self.metaSize) == whole)
        try reopened.close()
    }
}
