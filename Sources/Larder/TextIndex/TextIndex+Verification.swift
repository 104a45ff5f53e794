// Verification of a class's full-text index: its registry record and every record open and
// decode, the row texts are the objects' indexed texts, and the postings and vocabulary are
// exactly what those texts give.

extension Store {
    /// The problems of `index`, given the normalized indexed text of every object of its class.
    internal func verify(_ index: TextIndex, objectTexts: [UInt64: RowText]) -> [VerificationReport.Problem] {
        var problems: [String] = []
        do {
            try checkRegistryRecord(of: index)
            var rowTexts: [UInt64: RowText] = [:]
            try index.forEachRow(in: self) { rowID, text in rowTexts[rowID] = text }
            for (rowID, text) in rowTexts where objectTexts[rowID] != text {
                problems.append(objectTexts[rowID] == nil ? "row \(rowID) is indexed but has no such object text"
                                : "row \(rowID) is indexed with an old text")
            }
            let unindexed = objectTexts.keys.filter { rowTexts[$0] == nil }
            if let first = unindexed.min() {
                problems.append("\(unindexed.count) rows are not indexed, the first \(first) (rebuildTextIndex(of:) "
                                + "indexes objects saved before their class declared indexed text)")
            }
            // What the row texts give: per attribute and token, the rows.
            var expected: [String: [[UInt8]: [UInt64]]] = [:]
            for (rowID, text) in rowTexts {
                for (attribute, value) in text {
                    for token in TextNormalizer.uniqueTokens(value) {
                        expected[attribute, default: [:]][Array(token), default: []].append(rowID)
                    }
                }
            }
            let postings = try readAllPostings(of: index)
            var vocabularyTokens: [String: Set<[UInt8]>] = [:]
            try forEachVocabularyEntry(of: index) { attribute, entry in
                vocabularyTokens[attribute, default: []].insert(entry.token)
                let chunks = postings[attribute]?[entry.tokenID] ?? [:]
                let name = "'\(String(decoding: entry.token, as: UTF8.self))' in \(attribute)"
                guard Set(entry.chunks.map(\.id)) == Set(chunks.keys), entry.chunks.count == chunks.count else {
                    problems.append("chunk list of \(name) is wrong")
                    return
                }
                var rows: [UInt64] = []
                for (position, chunk) in entry.chunks.enumerated() {
                    let chunkRows = chunks[chunk.id] ?? []
                    let end = position + 1 < entry.chunks.count ? entry.chunks[position + 1].firstRowID : UInt64.max
                    if chunkRows.first != chunk.firstRowID || (chunkRows.last ?? 0) >= end {
                        problems.append("a posting chunk of \(name) holds rows out of its range")
                    }
                    rows += chunkRows
                }
                let expectedRows = (expected[attribute]?[entry.token] ?? []).sorted()
                if rows != expectedRows { problems.append("postings of \(name) disagree with the row texts") }
                if UInt64(rows.count) != entry.rowCount { problems.append("row count of \(name) is wrong") }
            }
            for (attribute, tokens) in expected {
                let missing = tokens.keys.filter { vocabularyTokens[attribute]?.contains($0) != true }
                if !missing.isEmpty { problems.append("\(missing.count) tokens of \(attribute) are missing from the vocabulary") }
            }
        } catch {
            problems.append("\(error)")
        }
        return problems.prefix(20).map { .textIndexMismatch(class: index.className, reason: $0) }
    }

    /// Checks the index's record in the metadata table: it opens and its format is one this
    /// version reads. (Elsewhere the record is only looked up, so damage to it would go unseen.)
    private func checkRegistryRecord(of index: TextIndex) throws {
        let key = TextIndex.registryKey(for: index.className)
        try backend.withValue(forKey: key, in: Self.metadataTable) { value in
            guard let value else {
                throw StoreError.corruptTextIndex(class: index.className, reason: "its registry record is missing")
            }
            var buffer = try key.withUnsafeBytes { key in
                try openMetadata(value, key: key, name: "text/" + index.className)
            }
            let format = try index.decode("the registry record") { try buffer.readVarInt() }
            guard format <= TextIndex.formatVersion else {
                throw StoreError.corruptTextIndex(class: index.className, reason: "its format \(format) is newer than this version's")
            }
        }
    }

    /// Every posting record: its rows per attribute, token ID and chunk ID.
    private func readAllPostings(of index: TextIndex) throws -> [String: [UInt32: [UInt32: [UInt64]]]] {
        var postings: [String: [UInt32: [UInt32: [UInt64]]]] = [:]
        try backend.forEachRecord(in: index.postingsTable) { key, value in
            guard let parsed = TextIndex.parseKey(key), let chunk = parsed.chunk else {
                throw StoreError.corruptTextIndex(class: index.className, reason: "malformed posting key")
            }
            var buffer = try index.open(value, key: key, scope: index.postingScope, cipher: cipher, what: "posting")
            var rows: [UInt64] = []
            try index.decode("a posting record") { try PostingList.decode(&buffer, appendingTo: &rows) }
            postings[parsed.attribute, default: [:]][parsed.tokenID, default: [:]][chunk] = rows
            return true
        }
        return postings
    }

    private func forEachVocabularyEntry(of index: TextIndex, _ body: (String, VocabularyEntry) -> Void) throws {
        try backend.forEachRecord(in: index.vocabularyTable) { key, value in
            guard let parsed = TextIndex.parseKey(key), parsed.chunk == nil else {
                throw StoreError.corruptTextIndex(class: index.className, reason: "malformed vocabulary key")
            }
            var buffer = try index.open(value, key: key, scope: index.vocabularyScope, cipher: cipher, what: "vocabulary")
            let entry = try index.decode("a vocabulary record") {
                try TextIndex.decodeVocabularyEntry(&buffer, tokenID: parsed.tokenID)
            }
            body(parsed.attribute, entry)
            return true
        }
    }
}
