// Decoding batches of records (CopiedRecords): batches picked on several threads are decoded
// as one, where they lie, in order, on every core for a large total and on the calling
// thread for a small one; a damaged record anywhere fails the whole decode.

import Foundation
import Testing
@testable import LarderDocuments

@Suite struct CopiedRecordsTests {
    /// A batch of the records of `rowIDs`, each an object `{"n": rowID}` in JSONBinary.
    private func batch(_ rowIDs: some Sequence<Int64>) -> CopiedRecords {
        var batch = CopiedRecords()
        for rowID in rowIDs {
            JSONBinary.encode(["n": .int(rowID)]).withUnsafeBytes { batch.append($0, rowID: rowID) }
        }
        return batch
    }

    private func decode(_ batches: [CopiedRecords]) throws -> [(rowID: Int64, document: JSON)] {
        try CopiedRecords.decode(batches, shapes: ObjectShapes()) { record, rowID, shapes in
            try JSONBinary.decode(record, addingRowID: rowID, shapes: shapes)
        }
    }

    @Test(arguments: [[1_000, 0, 3, 2_500], [700, 600], [1, 5_000, 1]])
    func batchesDecodeAsOneInOrder(sizes: [Int]) throws {
        var batches: [CopiedRecords] = []
        var next: Int64 = 1
        for size in sizes {
            batches.append(batch(next ..< next + Int64(size)))
            next += Int64(size)
        }
        let decoded = try decode(batches)
        #expect(decoded.map(\.rowID) == Array(1 ..< next))
        #expect(decoded.allSatisfy { $0.document == ["n": .int($0.rowID), "__rowid__": .int($0.rowID)] })
        #expect(try decode([batch(1 ..< next)]).map(\.document) == decoded.map(\.document))
    }

    @Test func aDamagedRecordInAnyBatchFailsTheDecode() throws {
        for damagedBatch in 0 ..< 3 {
            // 4,000 records, decoded on every core; and 6, on the calling thread.
            for bounds in [[1, 1_500, 1_502, 4_000], [1, 2, 4, 6]] {
                var batches = [batch(Int64(bounds[0]) ... Int64(bounds[1])), batch(Int64(bounds[1] + 1) ... Int64(bounds[2])),
                               batch(Int64(bounds[2] + 1) ... Int64(bounds[3]))]
                #expect(try decode(batches).count == bounds[3])
                let span = batches[damagedBatch].spans[1]
                batches[damagedBatch].bytes[span.start] = 0xEE   // not a tag
                #expect(throws: JSONBinary.DecodingFailure.self) { try decode(batches) }
            }
        }
    }
}
