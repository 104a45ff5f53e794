// TextVocabulary: the tokens of one indexed attribute, held in memory once loaded: each with its
// token ID, how many rows hold it and which posting chunks exist. Wildcard terms ([[*brain*]])
// scan it as one byte string, "\0token\0token\0...", so a match costs a memchr pass.

/// What the index knows about one token of one attribute.
internal struct VocabularyEntry: Equatable {
    var tokenID: UInt32
    var token: [UInt8]
    /// Rows holding the token.
    var rowCount: UInt64
    /// Chunk numbers (rowID >> chunkShift) that have a posting record, ascending.
    var chunks: [UInt32]
}

/// The vocabulary of one attribute of one class.
internal final class TextVocabulary {
    private(set) var entries: [ArraySlice<UInt8>: VocabularyEntry] = [:]
    private var searchBytes: [UInt8] = []
    private var searchStarts: [Int] = []
    private var searchTokens: [[UInt8]] = []
    private var searchIsStale = true

    var isEmpty: Bool { entries.isEmpty }

    func entry(for token: ArraySlice<UInt8>) -> VocabularyEntry? { entries[token] }

    /// Sets (or with nil removes) a token's entry.
    func set(_ entry: VocabularyEntry?, for token: [UInt8]) {
        entries[token[...]] = entry
        searchIsStale = true
    }

    /// The entries of the tokens matching `word` as `match` says.
    func matching(_ word: [UInt8], _ match: TokenMatch) -> [VocabularyEntry] {
        if match == .exact { return entries[word[...]].map { [$0] } ?? [] }
        rebuildSearchBytesIfNeeded()
        var pattern = word
        if match == .prefix { pattern.insert(0, at: 0) }
        if match == .suffix { pattern.append(0) }
        var found: [VocabularyEntry] = []
        var lastIndex = -1
        searchBytes.withUnsafeBufferPointer { bytes in
            pattern.withUnsafeBufferPointer { pattern in
                var position = 0
                while let offset = ByteSearch.firstOccurrence(of: pattern, in: bytes, from: position) {
                    // A prefix pattern starts at the separator before its token.
                    let tokenIndex = self.tokenIndex(at: match == .prefix ? offset + 1 : offset)
                    if tokenIndex != lastIndex, let entry = entries[searchTokens[tokenIndex][...]] {
                        found.append(entry)
                        lastIndex = tokenIndex
                    }
                    position = offset + 1
                }
            }
        }
        return found
    }

    /// The index of the token whose bytes contain `offset`.
    private func tokenIndex(at offset: Int) -> Int {
        var low = 0, high = searchStarts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if searchStarts[middle] <= offset { low = middle } else { high = middle - 1 }
        }
        return low
    }

    private func rebuildSearchBytesIfNeeded() {
        guard searchIsStale else { return }
        searchIsStale = false
        searchBytes = [0]
        searchStarts = []
        searchTokens = []
        searchStarts.reserveCapacity(entries.count)
        searchTokens.reserveCapacity(entries.count)
        for token in entries.keys {
            searchStarts.append(searchBytes.count)
            searchTokens.append(Array(token))
            searchBytes.append(contentsOf: token)
            searchBytes.append(0)
        }
    }
}
