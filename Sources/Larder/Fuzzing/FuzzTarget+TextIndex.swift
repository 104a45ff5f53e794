// The full-text index fuzz target: a posting list or a row block (the records of `_text.<C>`
// and `_textrows.<C>`) as a damaged or hostile file holds them. Each decodes or throws a
// DataBufferError; a record decoded once encodes to bytes that decode to the same rows.

extension FuzzTarget {
    /// `[kind][content]`: kind bit 0 clear, a posting list; set, a row block.
    package static let textIndex = FuzzTarget(name: "textIndex", seeds: textIndexSeeds) { input throws(FuzzViolation) in
        guard let kind = input.first else { return false }
        var buffer = DataBuffer(bytes: Array(input.dropFirst()))
        if kind & 1 == 0 {
            var rowIDs: [UInt64] = []
            guard (try? PostingList.decode(&buffer, appendingTo: &rowIDs)) != nil else { return false }
            try FuzzViolation.check(zip(rowIDs, rowIDs.dropFirst()).allSatisfy { $0 < $1 }, "a posting list decodes out of order")
            var encoded = DataBuffer(bytes: PostingList.encode(rowIDs))
            var again: [UInt64] = []
            try? PostingList.decode(&encoded, appendingTo: &again)
            try FuzzViolation.check(again == rowIDs, "a posting list does not survive encoding")
        } else {
            guard let rows = try? TextRowBlock.decode(&buffer) else { return false }
            var encoded = TextRowBlock.encode(rows)
            try FuzzViolation.check((try? TextRowBlock.decode(&encoded)) == rows, "a row block does not survive encoding")
        }
        return true
    }

    @Sendable private static func textIndexSeeds() -> [[UInt8]] {
        let rows: [UInt64: RowText] = [65: ["title": Array("blue in green".utf8)], 70: ["title": [], "notes": Array("modal".utf8)]]
        return [[0] + PostingList.encode([1, 2, 64, 70_000]), [0] + PostingList.encode([]), [1] + TextRowBlock.encode(rows).bytes]
    }
}
