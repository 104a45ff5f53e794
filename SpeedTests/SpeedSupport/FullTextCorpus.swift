// FullTextCorpus: the FullText workload's data, the same for every engine: song titles of one to
// four words drawn from Debian's word list (wamerican, /usr/share/dict/words) with a Zipf-like
// frequency (the word of rank r is drawn with weight 1/r, ranks given by a seeded shuffle), and
// the searches, written in each engine's query language.

import LarderTestSupport
import Foundation

/// The titles and searches of the FullText workload.
public struct FullTextCorpus: Sendable {
    /// One search of the workload, as each engine writes it.
    public struct Search: Sendable {
        /// The RESULT phase name.
        public let phase: String
        /// Larder's query (Tokyo Dystopia syntax).
        public let larder: String
        /// SQLite FTS5 MATCH expression (trigram tokenizer: quoted strings are substrings).
        public let fts5: String
        /// LIKE patterns, every one of which must match.
        public let like: [String]
    }

    /// The words, most frequent first.
    public let words: [String]

    /// Reads and ranks the word list; exits with a message when it is missing.
    public init(path: String = "/usr/share/dict/words") {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            FileHandle.standardError.write(Data("FullText: cannot read \(path) (apt-get install wamerican)\n".utf8))
            exit(1)
        }
        var words = text.split(separator: "\n").map(String.init).filter { !$0.isEmpty }
        var generator = SplitMix(seed: 0xF7_5EED)
        for index in stride(from: words.count - 1, to: 0, by: -1) {
            words.swapAt(index, Int(generator.next() % UInt64(index + 1)))
        }
        self.words = words
    }

    /// `count` titles, the same on every run.
    public func titles(count: Int) -> [String] {
        var cumulative: [Double] = []
        cumulative.reserveCapacity(words.count)
        var total = 0.0
        for rank in 1 ... words.count {
            total += 1 / Double(rank)
            cumulative.append(total)
        }
        var generator = SplitMix(seed: 0x5015_6)
        func draw() -> String {
            let target = Double(generator.next() >> 11) / Double(1 << 53) * total
            var low = 0, high = cumulative.count - 1
            while low < high {
                let middle = (low + high) / 2
                if cumulative[middle] < target { low = middle + 1 } else { high = middle }
            }
            return words[low]
        }
        return (0 ..< count).map { _ in
            (0 ... Int(generator.next() % 4)).map { _ in draw() }.joined(separator: " ")
        }
    }

    /// The searches: three substring-of-a-word searches and a two-term AND of two frequent words.
    public var searches: [Search] {
        func isPlain(_ word: String) -> Bool { word.count >= 4 && word.allSatisfy { $0.isASCII && $0.isLowercase } }
        let first = words.dropFirst(20).first(where: isPlain) ?? "love"
        let second = words.dropFirst(60).first(where: isPlain) ?? "night"
        return ["choice", "brain", "pets"].map {
            Search(phase: $0, larder: "[[*\($0)*]]", fts5: "\"\($0)\"", like: ["%\($0)%"])
        } + [Search(phase: "and", larder: "[[*\(first)*]] [[*\(second)*]]", fts5: "\"\(first)\" AND \"\(second)\"",
                    like: ["%\(first)%", "%\(second)%"])]
    }

    /// Times of each search: one warm-up run, then the mean of `runs` runs.
    public static let runs = 5
}

/// Times `body` like ``timed(_:)``: one untimed warm-up call, then the mean of `runs` calls.
public func timedMean(runs: Int = FullTextCorpus.runs, _ body: () throws -> (count: Int, check: String)) rethrows -> Timing {
    _ = try body()
    var total = Timing(wall: 0, cpu: 0, count: 0, check: "")
    for _ in 0 ..< runs {
        let timing = try timed(body)
        total = Timing(wall: total.wall + timing.wall, cpu: total.cpu + timing.cpu, count: timing.count, check: timing.check)
    }
    return Timing(wall: total.wall / Double(runs), cpu: total.cpu / Double(runs), count: total.count, check: total.check)
}
