// A batch larger than its arena's chunks and than the journal's write pieces: every operation
// reads back as added, and the journal written a piece at a time is the journal encoded whole.

import Foundation
import Testing
@testable import Larder

@Suite struct WriteBatchArenaTests {
    /// The value of operation `index`: its length varies (0 to 9,000 bytes, past a small
    /// chunk's room) and its bytes depend on the index.
    private func value(_ index: Int) -> [UInt8] {
        let count = index % 7 == 0 ? 9_000 : (index * 37) % 1_500
        return (0 ..< count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) }
    }

    private func key(_ index: Int) -> [UInt8] { RowIDKey.bytes(UInt64(index)) }

    /// About 12 MB in three tables, with deletes, inserts and values written in place.
    private func largeBatch() throws -> WriteBatch {
        var batch = WriteBatch()
        for index in 0 ..< 20_000 {
            let table = ["A", "B", "C"][index % 3]
            switch index % 5 {
            case 0: batch.removeValue(forKey: key(index), in: table)
            case 1:
                key(index).withUnsafeBytes { key in
                    value(index).withUnsafeBytes { value in batch.put(value, forKey: key, in: table, isNew: true) }
                }
            case 2:
                batch.put(forKey: key(index), in: table) { bytes, _ in bytes.append(contentsOf: value(index)) }
            default: batch.put(value(index), forKey: key(index), in: table)
            }
        }
        return batch
    }

    @Test func everyOperationReadsBackAsAddedAcrossChunks() throws {
        let batch = try largeBatch()
        #expect(batch.operationCount == 20_000)
        #expect(batch.byteCount > 8 << 20)
        var seen = 0
        for (offset, table) in ["A", "B", "C"].enumerated() {
            var index = offset
            batch.forEachOperation(in: table) { kind, key, value in
                #expect(Array(key) == self.key(index))
                switch index % 5 {
                case 0:
                    #expect(kind == .delete)
                    #expect(value.isEmpty)
                case 1:
                    #expect(kind == .insert)
                    #expect(Array(value) == self.value(index))
                default:
                    #expect(kind == .put)
                    #expect(Array(value) == self.value(index))
                }
                index += 3
                seen += 1
            }
        }
        #expect(seen == 20_000)
    }

    @Test func aFailedWriteInPlaceLeavesNothingBehind() throws {
        struct Refused: Error {}
        var batch = WriteBatch()
        batch.put([1], forKey: [1], in: "T")
        #expect(throws: Refused.self) {
            try batch.put(forKey: [2], in: "T") { bytes, _ in
                bytes.append(contentsOf: [UInt8](repeating: 7, count: 100))
                throw Refused()
            }
        }
        batch.put([3], forKey: [3], in: "T")
        var operations: [[UInt8]] = []
        batch.forEachOperation(in: "T") { _, key, value in operations.append(Array(key) + Array(value)) }
        #expect(operations == [[1, 1], [3, 3]])
        #expect(batch.byteCount == 4)
    }

    @Test func theJournalWrittenInPiecesIsTheJournalEncodedWhole() throws {
        let directory = TemporaryDirectory("journal-pieces")
        try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true)
        for batch in [try largeBatch(), WriteBatch()] {
            let path = directory.file("_journal")
            try CommitJournal.write(batch, to: path, sync: false)
            let written = try #require(try FileIO.read(path))
            #expect(written == CommitJournal.encode(batch))
            let decoded = try #require(CommitJournal.decode(written))
            #expect(decoded.operationCount == batch.operationCount)
            #expect(CommitJournal.encode(decoded) == written)
        }
    }

    @Test func aJournalWrittenOverALongerOneLeavesNoneOfItsBytes() throws {
        let directory = TemporaryDirectory("journal-replace")
        try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true)
        let path = directory.file("_journal")
        try CommitJournal.write(try largeBatch(), to: path, sync: true)
        var small = WriteBatch()
        small.put([1, 2, 3], forKey: [9], in: "T")
        try CommitJournal.write(small, to: path, sync: true)
        #expect(try FileIO.read(path) == CommitJournal.encode(small))
    }
}
