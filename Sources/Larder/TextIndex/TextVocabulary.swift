// TextVocabulary: the tokens of one indexed attribute, held in memory once loaded: each with its
// token ID, how many rows hold it and its posting chunks. Wildcard terms ([[*brain*]]) look up
// the tokens through an index of the 3-byte substrings (trigrams) of every token, built on first
// use: the rarest trigram of the word gives a few candidates, each checked.

/// One posting record of a token: its number (in the record's key) and its smallest rowID.
internal struct PostingChunk: Equatable {
    var id: UInt32
    var firstRowID: UInt64
}

/// What the index knows about one token of one attribute.
internal struct VocabularyEntry: Equatable {
    var tokenID: UInt32
    var token: [UInt8]
    /// Rows holding the token.
    var rowCount: UInt64
    /// The token's posting records, ascending by first rowID; each holds the rowIDs from its
    /// first up to the next one's first.
    var chunks: [PostingChunk]
}

/// The vocabulary of one attribute of one class.
internal final class TextVocabulary {
    private(set) var entries: [ByteKey: VocabularyEntry] = [:]
    private var tokens: [[UInt8]] = []
    private var trigrams: [UInt32: [Int32]] = [:]
    private var searchIsStale = true

    var isEmpty: Bool { entries.isEmpty }

    func entry(for token: ArraySlice<UInt8>) -> VocabularyEntry? { entries[ByteKey(token)] }

    /// Sets (or with nil removes) a token's entry.
    func set(_ entry: VocabularyEntry?, for token: [UInt8]) {
        entries[ByteKey(token)] = entry
        searchIsStale = true
    }

    /// The entries of the tokens matching `word` as `match` says.
    func matching(_ word: [UInt8], _ match: TokenMatch) -> [VocabularyEntry] {
        if match == .exact { return entries[ByteKey(word)].map { [$0] } ?? [] }
        rebuildSearchIndexIfNeeded()
        func matches(_ token: [UInt8]) -> Bool {
            switch match {
            case .exact: return token == word
            case .prefix: return token.starts(with: word)
            case .suffix: return token.count >= word.count && token.suffix(word.count).elementsEqual(word)
            case .contains: return TextNormalizer.contains(token, word)
            }
        }
        var candidates: [Int32]?
        if word.count >= 3 {
            for start in 0 ... word.count - 3 {
                let list = trigrams[Self.trigram(word, at: start)] ?? []
                if candidates == nil || list.count < candidates?.count ?? 0 { candidates = list }
            }
        }
        let indexes = candidates.map { $0.map(Int.init) } ?? Array(tokens.indices)
        return indexes.compactMap { index in
            matches(tokens[index]) ? entries[ByteKey(tokens[index])] : nil
        }
    }

    private static func trigram(_ bytes: [UInt8], at start: Int) -> UInt32 {
        UInt32(bytes[start]) << 16 | UInt32(bytes[start + 1]) << 8 | UInt32(bytes[start + 2])
    }

    private func rebuildSearchIndexIfNeeded() {
        guard searchIsStale else { return }
        searchIsStale = false
        tokens = entries.keys.map { Array($0.bytes) }
        trigrams = [:]
        for (index, token) in tokens.enumerated() where token.count >= 3 {
            var previous: UInt32?
            for start in 0 ... token.count - 3 {
                let gram = Self.trigram(token, at: start)
                // A token lists once under each trigram (repeats are usually adjacent).
                if gram == previous || trigrams[gram]?.last == Int32(index) { continue }
                trigrams[gram, default: []].append(Int32(index))
                previous = gram
            }
        }
    }
}
