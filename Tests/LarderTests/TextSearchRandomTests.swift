// Full-text search against a brute-force filter: random titles, random updates, deletes and
// inserts over several saves, random queries of every form; and random query strings, which
// must parse or throw SearchQueryError, never crash.

import Foundation
import Testing
@testable import Larder
import LarderTestSupport

/// A query as a tree the test renders and evaluates itself: or-groups joined left to right by
/// AND or NOT.
private struct ReferenceQuery {
    enum Term {
        case substring(String)
        case token(String, TokenMatch)
    }

    var groups: [[Term]]
    var joins: [String]   // " ", " && " or " !! " before each group after the first

    var text: String {
        var result = render(groups[0])
        for (join, group) in zip(joins, groups.dropFirst()) { result += join + render(group) }
        return result
    }

    private func render(_ group: [Term]) -> String {
        group.map { term -> String in
            switch term {
            case let .substring(word): return word.contains(" ") ? "\"\(word)\"" : word
            case let .token(word, .exact): return "[[\(word)]]"
            case let .token(word, .prefix): return "[[\(word)*]]"
            case let .token(word, .suffix): return "[[*\(word)]]"
            case let .token(word, .contains): return "[[*\(word)*]]"
            }
        }.joined(separator: " || ")
    }

    func matches(_ title: String) -> Bool {
        var result = matches(groups[0], title)
        for (join, group) in zip(joins, groups.dropFirst()) {
            result = join == " !! " ? result && !matches(group, title) : result && matches(group, title)
        }
        return result
    }

    private func matches(_ group: [Term], _ title: String) -> Bool {
        let text = title.lowercased()
        let tokens = text.split { !$0.isLetter && !$0.isNumber }.map(String.init)
        return group.contains { term in
            switch term {
            case let .substring(word): return text.contains(word.lowercased())
            case let .token(word, match):
                let word = word.lowercased()
                return tokens.contains { token in
                    switch match {
                    case .exact: return token == word
                    case .prefix: return token.hasPrefix(word)
                    case .suffix: return token.hasSuffix(word)
                    case .contains: return token.contains(word)
                    }
                }
            }
        }
    }
}

@Suite struct TextSearchRandomTests {
    static let words = ["blue", "Bluebird", "green", "red", "bird", "redbird", "sun", "Sunny", "moon", "honey",
                        "one", "bone", "phone", "a", "an", "ONE-way", "bee", "beehive"]

    private func randomTitle(_ generator: inout SplitMix) -> String {
        let count = Int.random(in: 1 ... 4, using: &generator)
        var title = ""
        for index in 0 ..< count {
            if index > 0 { title += ["", " ", " ", "-", ", "].randomElement(using: &generator) ?? " " }
            title += Self.words.randomElement(using: &generator) ?? "x"
        }
        return title
    }

    private func randomQuery(_ generator: inout SplitMix) -> ReferenceQuery {
        func fragment() -> String {
            let word = Self.words.randomElement(using: &generator) ?? "x"
            let letters = Array(word.lowercased().filter(\.isLetter))
            let start = Int.random(in: 0 ..< letters.count, using: &generator)
            let end = Int.random(in: start + 1 ... letters.count, using: &generator)
            return String(letters[start ..< end])
        }
        func term() -> ReferenceQuery.Term {
            switch Int.random(in: 0 ..< 6, using: &generator) {
            case 0: return .substring(fragment())
            case 1: return .substring(fragment() + " " + fragment())
            case 2: return .token(fragment(), .exact)
            case 3: return .token(fragment(), .prefix)
            case 4: return .token(fragment(), .suffix)
            default: return .token(fragment(), .contains)
            }
        }
        let groupCount = Int.random(in: 1 ... 3, using: &generator)
        let groups = (0 ..< groupCount).map { _ in (0 ..< Int.random(in: 1 ... 2, using: &generator)).map { _ in term() } }
        let joins = (1 ..< max(1, groupCount)).map { _ in [" ", " && ", " !! "].randomElement(using: &generator) ?? " " }
        return ReferenceQuery(groups: groups, joins: joins)
    }

    @Test(arguments: BackendKind.allCases) func searchesAgreeWithABruteForceFilterAcrossSaves(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory("fts-random", backend: backend)
        let seed: UInt64 = 6
        var generator = SplitMix(seed: seed)
        var store = try directory.store()
        try store.register(IndexedSong.self)
        for _ in 0 ..< 300 { try store.insert(IndexedSong(randomTitle(&generator))) }
        try store.saveChanges()
        var checkedMatches = 0
        for round in 0 ..< 6 {
            var songs = try store.allObjects(of: IndexedSong.self)
            for _ in 0 ..< 25 { songs.randomElement(using: &generator)?.title = randomTitle(&generator) }
            for _ in 0 ..< 10 {
                guard let index = songs.indices.randomElement(using: &generator) else { break }
                try store.delete(songs.remove(at: index))
            }
            for _ in 0 ..< 25 { try store.insert(IndexedSong(randomTitle(&generator))) }
            try store.saveChanges()
            if round == 3 {   // reopen half-way: the vocabulary is read back from the files
                try store.close()
                store = try directory.store()
                try store.register(IndexedSong.self)
            }
            let all = try store.allObjects(of: IndexedSong.self)
            for _ in 0 ..< 60 {
                let query = randomQuery(&generator)
                let expected = all.filter { query.matches($0.title) }.map(\.rowID)
                let found = try store.titleMatches(query.text)
                #expect(found == expected, "seed \(seed) round \(round): \(query.text)")
                checkedMatches += expected.count
            }
        }
        #expect(checkedMatches > 1_000, "the queries matched too little to test anything")
        let report = try store.verify()
        #expect(report.isHealthy, "\(report.problems)")
        try store.close()
    }

    @Test(arguments: BackendKind.allCases) func aTokenInThousandsOfRowsSpansSeveralChunks(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory("fts-chunks", backend: backend)
        let store = try makeIndexedStore(directory, titles: (0 ..< 9_000).map { "common word\($0 % 50)" })
        var songs = try store.allObjects(of: IndexedSong.self)
        for (offset, song) in songs.enumerated() where offset % 5 == 0 { song.title = "rare" }
        for (offset, song) in songs.enumerated() where offset % 7 == 1 { try store.delete(song) }
        try store.insert(IndexedSong("Common again"))
        try store.saveChanges()
        songs = try store.allObjects(of: IndexedSong.self)
        #expect(try store.titleMatches("[[common]]") == songs.filter { $0.title.lowercased().hasPrefix("common") }.map(\.rowID))
        #expect(try store.titleMatches("[[word7]] !! [[word17]]").count == songs.filter { $0.title.hasSuffix(" word7") }.count)
        let vocabulary = try #require(try store.entry(for: IndexedSong.self).textIndex?.loadedVocabularies(in: store)["title"])
        let common = try #require(vocabulary.entry(for: Array("common".utf8)[...]))
        #expect(common.chunks.count >= 2)
        #expect(common.rowCount == UInt64(songs.count - songs.filter { $0.title == "rare" }.count))
        let report = try store.verify()
        #expect(report.isHealthy, "\(report.problems)")
        try store.close()
    }

    @Test(arguments: BackendKind.allCases) func randomQueryStringsParseOrThrowTheirError(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory("fts-fuzz", backend: backend)
        let store = try makeIndexedStore(directory)
        let seed: UInt64 = 66
        var generator = SplitMix(seed: seed)
        let pieces = ["a", "blue", " ", "  ", "&&", "||", "!!", "&", "|", "!", "[[", "]]", "[", "]", "*", "\"", "é",
                      "-", "\u{301}", "\t", "東", "🎷"]
        var parsed = 0, rejected = 0
        for _ in 0 ..< 3_000 {
            let query = (0 ..< Int.random(in: 0 ... 12, using: &generator))
                .map { _ in pieces.randomElement(using: &generator) ?? "" }.joined()
            do {
                _ = try store.titleMatches(query)
                parsed += 1
            } catch let error as SearchQueryError {
                #expect(error.position >= 0 && error.position <= query.count, "seed \(seed): '\(query)': \(error)")
                rejected += 1
            }
        }
        #expect(parsed > 100 && rejected > 100, "parsed \(parsed), rejected \(rejected)")
        try store.close()
    }
}

extension TextSearchRandomTests {
    @Test(arguments: BackendKind.allCases) func aQueryOfTooManyTermsIsRefusedNotEvaluated(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory("fts-long", backend: backend)
        let store = try makeIndexedStore(directory)
        let query = Array(repeating: "blue", count: 5_000).joined(separator: " || ")
        #expect(throws: SearchQueryError.self) { try store.titleMatches(query) }
        #expect(try store.titleMatches(Array(repeating: "blue", count: 400).joined(separator: " || ")) == [1, 2, 5, 7, 9])
        try store.close()
    }
}
