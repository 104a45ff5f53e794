// SplitMix: SplitMix64, the small deterministic generator behind every seeded workload of the
// speed tests (the PointRead keys, the FullText titles, the Documents users), so every engine
// sees the same data, and behind the randomized tests, so every run sees the same values. The
// LarderTestSupport product, so that the speed-test package and Larder's own tests share it.

/// SplitMix64 from a seed: the same values for the same seed, on every machine.
///
/// ```swift
/// var random = SplitMix(seed: 42)
/// let roll = random.next(below: 6)
/// ```
public struct SplitMix: RandomNumberGenerator {
    private var state: UInt64

    /// A generator that starts from `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }

    /// The next value below `bound`.
    public mutating func next(below bound: UInt64) -> UInt64 {
        next() % bound
    }
}
