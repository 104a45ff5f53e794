// CacheLinePrefetch: the one door to the CPU's prefetch instruction. The rule: a read that will
// touch many scattered records (pages in Tokyo Cabinet's mapped file, their directories, the
// slots of a kept record index) first asks for all their cache lines, then reads them, so that
// the misses overlap instead of queuing one after another. A prefetch is only a hint: it never
// faults, even on a bad address, and no result depends on it.

import CPrefetch

/// Starts loading cache lines ahead of a read.
enum CacheLinePrefetch {
    /// Asks for the cache line holding `address`.
    @inline(__always)
    static func request(_ address: UnsafeRawPointer) {
        larder_prefetch(address)
    }
}
