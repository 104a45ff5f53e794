// TextSearchEvaluator: runs a parsed query against one attribute of a class's index and returns
// the matching rowIDs, ascending. [[...]] terms scan the in-memory vocabulary and read the
// posting chunks of the tokens found; a bare word is the same as [[*word*]]; a phrase or a term
// spanning several tokens takes the rows holding all its tokens and checks each one's text.

/// Evaluates queries on one attribute of one class's index.
internal struct TextSearchEvaluator {
    let index: TextIndex
    let attribute: String
    let vocabulary: TextVocabulary?
    let store: Store

    /// The rows matching `query`, group by group: a loop, not a recursion, so that a query of
    /// any length runs on a small stack.
    func rowIDs(matching query: SearchQuery) throws -> [UInt64] {
        var rows = try rowIDs(matchingAny: query.first)
        for step in query.steps {
            guard !rows.isEmpty else { return [] }
            let group = try rowIDs(matchingAny: step.alternatives)
            switch step.combination {
            case .and: rows = PostingList.intersection(rows, group)
            case .not: rows = PostingList.subtracting(rows, group)
            }
        }
        return rows
    }

    /// The rows matching at least one of `terms`.
    private func rowIDs(matchingAny terms: [SearchTerm]) throws -> [UInt64] {
        var rows: [UInt64] = []
        for term in terms { rows = PostingList.union(rows, try rowIDs(matching: term)) }
        return rows
    }

    private func rowIDs(matching term: SearchTerm) throws -> [UInt64] {
        switch term {
        case let .token(word, match):
            return try rowIDs(ofTokensMatching: word, match)
        case let .substring(text):
            let ranges = TextNormalizer.tokenRanges(text)
            if ranges.count == 1, ranges[0] == 0 ..< text.count {
                return try rowIDs(ofTokensMatching: text, .contains)
            }
            guard !ranges.isEmpty else { return try scanRows(containing: text) }
            // Candidates: rows holding every token of the term, the first possibly cut at its
            // start, the last at its end; then each candidate's text is checked.
            var candidates: [UInt64]?
            for (position, range) in ranges.enumerated() {
                let match: TokenMatch = ranges.count == 1 ? .contains
                    : position == 0 ? .suffix : position == ranges.count - 1 ? .prefix : .exact
                let rows = try rowIDs(ofTokensMatching: Array(text[range]), match)
                candidates = candidates.map { PostingList.intersection($0, rows) } ?? rows
                if candidates?.isEmpty == true { return [] }
            }
            return try rows(candidates ?? [], containing: text)
        }
    }

    private func rowIDs(ofTokensMatching word: [UInt8], _ match: TokenMatch) throws -> [UInt64] {
        guard let vocabulary else { return [] }
        let entries = vocabulary.matching(word, match)
        if entries.count == 1 { return try index.postings(of: entries[0], attribute: attribute, in: store) }
        var all: [UInt64] = []
        for entry in entries { all += try index.postings(of: entry, attribute: attribute, in: store) }
        return PostingList.normalized(all)
    }

    /// The candidates (ascending) whose normalized text contains `text`.
    private func rows(_ candidates: [UInt64], containing text: [UInt8]) throws -> [UInt64] {
        var result: [UInt64] = []
        var block: UInt64?
        var blockRows: [UInt64: RowText] = [:]
        for rowID in candidates {
            let number = TextRowBlock.number(of: rowID)
            if number != block {
                blockRows = try index.rowBlock(number, in: store)
                block = number
            }
            if let rowText = blockRows[rowID]?[attribute], TextNormalizer.contains(rowText, text) {
                result.append(rowID)
            }
        }
        return result
    }

    /// Every row whose normalized text contains `text` (a term with no letter or digit).
    private func scanRows(containing text: [UInt8]) throws -> [UInt64] {
        var result: [UInt64] = []
        try index.forEachRow(in: store) { rowID, rowText in
            if let value = rowText[attribute], TextNormalizer.contains(value, text) { result.append(rowID) }
        }
        return PostingList.normalized(result)
    }
}
