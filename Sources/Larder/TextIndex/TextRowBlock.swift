// TextRowBlock: the normalized indexed text of up to 64 consecutive rows, one record of the
// `_textrows.<Class>` table. The index keeps it so that an update or a delete knows which
// postings to remove without the object's old state, and so that phrase matches can be checked.

/// The normalized indexed text of one row: attribute -> normalized UTF-8 text.
internal typealias RowText = [String: [UInt8]]

/// The rows of one block, by rowID.
internal enum TextRowBlock {
    /// The block holding `rowID`.
    static func number(of rowID: UInt64) -> UInt64 { rowID >> UInt64(TextIndex.rowBlockShift) }

    /// Record content: varint row count; per row, ascending: varint rowID gap, varint attribute
    /// count, then per attribute (ascending by UTF-8 bytes) a string and a byte string.
    static func encode(_ rows: [UInt64: RowText]) -> DataBuffer {
        var buffer = DataBuffer()
        buffer.writeVarInt(UInt64(rows.count))
        var previous: UInt64 = 0
        for rowID in rows.keys.sorted() {
            let text = rows[rowID] ?? [:]
            buffer.writeVarInt(rowID - previous)
            previous = rowID
            buffer.writeVarInt(UInt64(text.count))
            for attribute in text.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
                buffer.write(attribute)
                buffer.write(text[attribute] ?? [])
            }
        }
        return buffer
    }

    static func decode(_ buffer: inout DataBuffer) throws -> [UInt64: RowText] {
        let count = try buffer.readVarInt()
        guard count <= UInt64(buffer.remainingCount) else { throw DataBufferError.valueOutOfRange(offset: buffer.readPosition) }
        var rows: [UInt64: RowText] = [:]
        var previous: UInt64 = 0
        for _ in 0 ..< count {
            let gap = try buffer.readVarInt()
            guard gap > 0, gap <= UInt64.max - previous else { throw DataBufferError.valueOutOfRange(offset: buffer.readPosition) }
            previous += gap
            let attributeCount = try buffer.readVarInt()
            guard attributeCount <= UInt64(buffer.remainingCount) else {
                throw DataBufferError.valueOutOfRange(offset: buffer.readPosition)
            }
            var text: RowText = [:]
            for _ in 0 ..< attributeCount {
                let attribute = try buffer.readString()
                text[attribute] = try buffer.readBytes()
            }
            rows[previous] = text
        }
        return rows
    }
}

extension TextIndex {
    /// The rows of block `block` (empty when it has no record).
    func rowBlock(_ block: UInt64, in store: Store) throws -> [UInt64: RowText] {
        guard isRegistered else { return [:] }   // no files yet (see loadedVocabularies)
        let key = RowIDKey.bytes(block)
        var rows: [UInt64: RowText] = [:]
        try store.backend.readValue(forKey: key, in: rowsTable) { value in
            guard let value else { return }
            try key.withUnsafeBytes { key in
                var buffer = try open(value, key: key, scope: rowScope, cipher: store.cipher, what: "row text")
                rows = try decode("a row text record") { try TextRowBlock.decode(&buffer) }
            }
        }
        return rows
    }

    /// Calls `body` with every row and its normalized text, block by block in storage order.
    func forEachRow(in store: Store, _ body: (UInt64, RowText) throws -> Void) throws {
        try store.backend.forEachRecord(in: rowsTable) { key, value in
            guard let block = RowIDKey.rowID(in: key) else {
                throw StoreError.corruptTextIndex(class: className, reason: "malformed row text key")
            }
            var buffer = try open(value, key: key, scope: rowScope, cipher: store.cipher, what: "row text")
            let rows = try decode("a row text record") { try TextRowBlock.decode(&buffer) }
            for (rowID, text) in rows {
                guard TextRowBlock.number(of: rowID) == block else {
                    throw StoreError.corruptTextIndex(class: className, reason: "row \(rowID) in block \(block)")
                }
                try body(rowID, text)
            }
            return true
        }
    }
}
