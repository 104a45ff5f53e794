// TextIndexUpdate: the index side of a save. From the rows whose indexed text changed, it puts
// the row blocks, posting chunks and vocabulary records into the save's write batch (so they
// commit with the objects, through the journal), then, once the batch is applied, adopts the
// new vocabulary in memory.

/// The index changes of one save (or one rebuild), waiting for their batch to be applied.
internal struct TextIndexUpdate {
    private struct Pending {
        var index: TextIndex
        var vocabularies: [String: TextVocabulary]
        var changes: [(attribute: String, token: [UInt8], entry: VocabularyEntry?)]
        var nextTokenID: UInt32
    }

    private var pending: [Pending] = []

    /// A row to index: its object, or nil for a deleted row. The object's text is normalized
    /// when its block is written, so a big save does not hold every row's text at once.
    typealias Row = (rowID: UInt64, object: StoredObject?)

    /// Makes the in-memory vocabularies match the applied batch.
    func adopt() {
        for item in pending {
            var all = item.vocabularies
            for change in item.changes {
                let vocabulary = all[change.attribute] ?? TextVocabulary()
                all[change.attribute] = vocabulary
                vocabulary.set(change.entry, for: change.token)
            }
            item.index.replaceVocabularies(all, nextTokenID: item.nextTokenID)
            item.index.isRegistered = true
        }
    }

    /// Adds the index changes of `rows` to `batch`.
    /// `rowsAreNew`: every row block is known to be empty (a rebuild after clearing the tables).
    mutating func add(_ rows: [Row], of index: TextIndex, savedNextRowID: UInt64,
                      rowsAreNew: Bool = false, vocabularies: [String: TextVocabulary], nextTokenID: UInt32,
                      in store: Store, to batch: inout WriteBatch) throws {
        if !index.isRegistered {
            var record = DataBuffer()
            record.writeVarInt(TextIndex.formatVersion)
            record.writeVarInt(UInt64(TextIndex.maxChunkRows))
            record.writeVarInt(UInt64(TextIndex.rowBlockShift))
            try store.addMetadata(record, forKey: TextIndex.registryKey(for: index.className), to: &batch)
            index.createTables(in: &batch)
        }
        var deltas = TokenDeltas()
        try writeRowBlocks(rows, of: index, savedNextRowID: savedNextRowID, rowsAreNew: rowsAreNew,
                           in: store, to: &batch, deltas: &deltas)
        var item = Pending(index: index, vocabularies: vocabularies, changes: [], nextTokenID: nextTokenID)
        // Attributes by name, tokens in order of first appearance: new token IDs are the same
        // on every run.
        for (attribute, slots) in deltas.byAttribute.sorted(by: { $0.key < $1.key }) {
            let prefix = TextIndex.attributePrefix(attribute)
            let vocabulary = vocabularies[attribute]
            for (token, slot) in slots.sorted(by: { $0.value < $1.value }) {
                let added = PostingList.normalized(deltas.added[slot])
                let removed = PostingList.normalized(deltas.removed[slot])
                var entry: VocabularyEntry
                if let existing = vocabulary?.entry(for: token.bytes) {
                    entry = existing
                } else {
                    guard !added.isEmpty else { continue }
                    entry = VocabularyEntry(tokenID: item.nextTokenID, token: Array(token.bytes), rowCount: 0, chunks: [])
                    guard item.nextTokenID < UInt32.max else {
                        throw StoreError.corruptTextIndex(class: index.className, reason: "no token ID left")
                    }
                    item.nextTokenID += 1
                }
                try writeChunks(of: &entry, added: added, removed: removed, prefix: prefix, index: index,
                                in: store, to: &batch)
                let key = TextIndex.vocabularyKey(prefix: prefix, tokenID: entry.tokenID)
                if entry.rowCount == 0 {
                    batch.removeValue(forKey: key, in: index.vocabularyTable)
                    item.changes.append((attribute, entry.token, nil))
                } else {
                    try batch.putSealed(TextIndex.encodeVocabularyEntry(entry), forKey: key, in: index.vocabularyTable,
                                        cipher: store.cipher, scope: index.vocabularyScope)
                    item.changes.append((attribute, entry.token, entry))
                }
            }
        }
        pending.append(item)
    }

    /// Puts the changed row blocks and collects, per token, the rows that gain or lose it.
    private func writeRowBlocks(_ rows: [Row], of index: TextIndex, savedNextRowID: UInt64,
                                rowsAreNew: Bool, in store: Store, to batch: inout WriteBatch,
                                deltas: inout TokenDeltas) throws {
        // Rows in rowID order (a save's inserts already are), taken a block at a time.
        var order = Array(rows.indices)
        if zip(rows, rows.dropFirst()).contains(where: { $0.rowID > $1.rowID }) {
            order.sort { rows[$0].rowID < rows[$1].rowID }
        }
        var start = 0
        while start < order.count {
            let block = TextRowBlock.number(of: rows[order[start]].rowID)
            var end = start + 1
            while end < order.count, TextRowBlock.number(of: rows[order[end]].rowID) == block { end += 1 }
            defer { start = end }
            // A block whose first row was never saved has no record yet.
            let mayExist = !rowsAreNew && block << UInt64(TextIndex.rowBlockShift) < savedNextRowID
            var content = mayExist ? try index.rowBlock(block, in: store) : [:]
            var changed = false
            for change in order[start ..< end].map({ rows[$0] }) {
                let old = content[change.rowID]
                let text = change.object.flatMap(Store.normalizedText(of:))
                guard old != text else { continue }
                changed = true
                content[change.rowID] = text
                deltas.record(rowID: change.rowID, old: old, new: text)
            }
            guard changed else { continue }
            let key = RowIDKey.bytes(block)
            if content.isEmpty {
                batch.removeValue(forKey: key, in: index.rowsTable)
            } else {
                try batch.putSealed(TextRowBlock.encode(content), forKey: key, in: index.rowsTable,
                                    cipher: store.cipher, scope: index.rowScope)
            }
        }
    }

    /// Rewrites the posting chunks of one token that gain or lose rows, updating its entry.
    /// A row goes to the last chunk whose first rowID is not above it (or to the first chunk);
    /// a chunk that grows past the limit is split, one that empties is removed.
    private func writeChunks(of entry: inout VocabularyEntry, added: [UInt64], removed: [UInt64], prefix: [UInt8],
                             index: TextIndex, in store: Store, to batch: inout WriteBatch) throws {
        let chunks = entry.chunks
        func chunkIndex(of rowID: UInt64) -> Int {
            var low = 0, high = chunks.count - 1
            while low < high {
                let middle = (low + high + 1) / 2
                if chunks[middle].firstRowID <= rowID { low = middle } else { high = middle - 1 }
            }
            return low
        }
        var gained: [Int: [UInt64]] = [:], lost: [Int: [UInt64]] = [:]
        if chunks.isEmpty {
            gained[0] = added
        } else {
            for rowID in added { gained[chunkIndex(of: rowID), default: []].append(rowID) }
            for rowID in removed { lost[chunkIndex(of: rowID), default: []].append(rowID) }
        }
        var nextID = (chunks.map(\.id).max() ?? 0) &+ (chunks.isEmpty ? 0 : 1)
        var result: [PostingChunk] = []
        for position in 0 ..< max(chunks.count, 1) {
            let rowsGained = gained[position] ?? [], rowsLost = lost[position] ?? []
            if position < chunks.count, rowsGained.isEmpty, rowsLost.isEmpty {
                result.append(chunks[position])
                continue
            }
            let id = position < chunks.count ? chunks[position].id : nextID
            if position >= chunks.count { nextID &+= 1 }
            let key = TextIndex.postingKey(prefix: prefix, tokenID: entry.tokenID, chunk: id)
            let existing = position < chunks.count ? try index.chunk(key: key, in: store) : []
            let merged = PostingList.subtracting(PostingList.union(existing, rowsGained), rowsLost)
            // Clamped: a damaged row count must not stop the save.
            entry.rowCount = UInt64(max(0, Int64(clamping: entry.rowCount) + Int64(merged.count) - Int64(existing.count)))
            if merged.isEmpty {
                batch.removeValue(forKey: key, in: index.postingsTable)
                continue
            }
            for start in stride(from: 0, to: merged.count, by: TextIndex.maxChunkRows) {
                let piece = Array(merged[start ..< min(start + TextIndex.maxChunkRows, merged.count)])
                let pieceID = start == 0 ? id : nextID
                if start > 0 { nextID &+= 1 }
                let pieceKey = TextIndex.postingKey(prefix: prefix, tokenID: entry.tokenID, chunk: pieceID)
                try batch.putSealed(DataBuffer(bytes: PostingList.encode(piece)), forKey: pieceKey, in: index.postingsTable,
                                    cipher: store.cipher, scope: index.postingScope)
                result.append(PostingChunk(id: pieceID, firstRowID: piece[0]))
            }
        }
        entry.chunks = result
    }
}

/// Per attribute and token, the rows that gain it and the rows that lose it.
private struct TokenDeltas {
    var byAttribute: [String: [ByteKey: Int]] = [:]
    var added: [[UInt64]] = []
    var removed: [[UInt64]] = []

    mutating func record(rowID: UInt64, old: RowText?, new: RowText?) {
        if old == nil, let new {   // a new row: every token is gained
            for (attribute, text) in new {
                var slots = byAttribute[attribute] ?? [:]
                byAttribute[attribute] = nil
                for token in TextNormalizer.uniqueTokens(text) { added[slot(for: token, in: &slots)].append(rowID) }
                byAttribute[attribute] = slots
            }
            return
        }
        let attributes = Set((old ?? [:]).keys).union((new ?? [:]).keys)
        for attribute in attributes {
            let oldTokens = old?[attribute].map(TextNormalizer.uniqueTokens) ?? []
            let newTokens = new?[attribute].map(TextNormalizer.uniqueTokens) ?? []
            var slots = byAttribute[attribute] ?? [:]
            byAttribute[attribute] = nil
            for token in newTokens where !oldTokens.contains(token) {
                added[slot(for: token, in: &slots)].append(rowID)
            }
            for token in oldTokens where !newTokens.contains(token) {
                removed[slot(for: token, in: &slots)].append(rowID)
            }
            byAttribute[attribute] = slots
        }
    }

    private mutating func slot(for token: ArraySlice<UInt8>, in slots: inout [ByteKey: Int]) -> Int {
        let key = ByteKey(token)
        if let slot = slots[key] { return slot }
        let slot = added.count
        slots[key] = slot
        added.append([])
        removed.append([])
        return slot
    }
}
