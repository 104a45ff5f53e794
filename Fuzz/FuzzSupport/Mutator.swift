// Mutator: the inputs of the deterministic fuzzer (the short runs of the test suite and
// `make fuzz-mutation`): a target's seeds changed by a few byte flips, insertions, deletions,
// truncations, repeats and splices, chosen by a seeded SplitMix, so that a seed and an input
// number name one input exactly.

import LarderTestSupport

/// Makes inputs from seeds.
package struct Mutator {
    private var generator: SplitMix
    private let seeds: [[UInt8]]
    /// The last input made, mutated again now and then to go further from the seeds.
    private var previous: [UInt8] = []

    /// Byte values decoders treat specially: lengths, varint continuations, format bytes.
    private static let interestingBytes: [UInt8] = [0, 1, 2, 3, 5, 7, 0x0F, 0x10, 0x1F, 0x20, 0x50, 0x51, 0x52, 0x53,
                                                    0x7F, 0x80, 0x81, 0xC0, 0xFE, 0xFF]
    /// Byte strings that take decoders to their limits: longest varints, largest words.
    private static let interestingRuns: [[UInt8]] = [
        [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01], [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02],
        [0xFF, 0xFF, 0xFF, 0xFF], [0xFF, 0xFF, 0xFF, 0x7F], [0, 0, 0, 0x80], [0x80, 0x01],
        Array("[[".utf8), Array("]]".utf8), Array("\"".utf8), Array(" && ".utf8), Array(" || ".utf8), Array(" !! ".utf8),
        Array("(".utf8), Array(")".utf8), Array(" NOT ".utf8), Array(" AND ".utf8), Array("'".utf8), Array("[a.b]".utf8),
        Array("?".utf8), Array("%".utf8), Array("\u{301}".utf8), Array("\r\n".utf8),
    ]

    /// A mutator of `seeds` (at least one; an empty list mutates the empty input) from `seed`.
    package init(seeds: [[UInt8]], seed: UInt64) {
        self.seeds = seeds.isEmpty ? [[]] : seeds
        generator = SplitMix(seed: seed)
    }

    /// The next input.
    package mutating func next() -> [UInt8] {
        var input = !previous.isEmpty && below(4) == 0 ? previous : seeds[below(seeds.count)]
        // Mostly one change: inputs near a valid one reach deeper into the decoder.
        for _ in 0 ... (below(2) == 0 ? 0 : below(6)) { mutate(&input) }
        if input.count > 1 << 16 { input.removeLast(input.count - (1 << 16)) }
        previous = input
        return input
    }

    private mutating func below(_ bound: Int) -> Int {
        Int(generator.next(below: UInt64(max(bound, 1))))
    }

    private mutating func mutate(_ input: inout [UInt8]) {
        let position = below(input.count + 1)
        switch below(11) {
        case 0 where position < input.count:
            input[position] ^= 1 << UInt8(below(8))
        case 1 where position < input.count:
            input[position] = UInt8(truncatingIfNeeded: generator.next())
        case 2 where position < input.count:
            input[position] = Self.interestingBytes[below(Self.interestingBytes.count)]
        case 3:
            input.insert(contentsOf: (0 ..< 1 + below(8)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }, at: position)
        case 4:
            input.insert(contentsOf: Self.interestingRuns[below(Self.interestingRuns.count)], at: position)
        case 5 where position < input.count:
            input.removeSubrange(position ..< min(input.count, position + 1 + below(16)))
        case 6:
            input.removeLast(input.count - position)   // truncate
        case 7 where position < input.count:
            // Repeat a piece: nesting, long lists, many terms.
            let piece = Array(input[position ..< min(input.count, position + 1 + below(32))])
            for _ in 0 ..< 1 + below(below(4) == 0 ? 200 : 8) { input.insert(contentsOf: piece, at: position) }
        case 8:
            // Splice: a piece of another seed.
            let other = seeds[below(seeds.count)]
            let start = below(other.count + 1)
            input.insert(contentsOf: other[start ..< min(other.count, start + below(64))], at: position)
        case 9 where position + 4 <= input.count:
            let word = [UInt32.max, 0, 1, 0x8000_0000, UInt32(input.count), UInt32(position)][below(6)]
            withUnsafeBytes(of: word.littleEndian) { input.replaceSubrange(position ..< position + 4, with: $0) }
        default:
            if position < input.count { input[position] = input[position] &+ UInt8(truncatingIfNeeded: below(7)) &- 3 }
        }
    }
}
