// SplitMix: SplitMix64, the small deterministic generator behind every seeded workload (the
// PointRead keys, the FullText titles, the Documents users), so every engine sees the same
// data, and behind the randomized tests, so every run sees the same values.

/// SplitMix64 from a seed.
package struct SplitMix: RandomNumberGenerator {
    private var state: UInt64

    package init(seed: UInt64) { state = seed }

    package mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }

    /// The next value below `bound`.
    package mutating func next(below bound: UInt64) -> UInt64 {
        next() % bound
    }
}
