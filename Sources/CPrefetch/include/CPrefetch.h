// CPrefetch: asks the processor to start loading memory that is about to be read, so that
// the misses of many independent reads overlap instead of coming one after another. Swift
// has no such intrinsic; a prefetch is a hint and never faults.

#ifndef LARDER_CPREFETCH_H
#define LARDER_CPREFETCH_H

/// Starts loading the cache line holding `address` for reading.
static inline void larder_prefetch(const void *address) {
    __builtin_prefetch(address, 0, 3);
}

#endif
