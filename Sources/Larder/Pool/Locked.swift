// Locked: a value behind a lock, for the state that tasks and threads share (a pool's gates and
// snapshots, the change feeds). A pthread mutex rather than Synchronization's Mutex: on Linux
// that one waits on futexes ThreadSanitizer cannot see, so every access it orders would be
// reported as a race, and `make thread-sanitizer` could find no real one. The mutex is glibc's
// adaptive kind, which spins a little before it sleeps: every section under these locks is a
// few hundred instructions, so a thread that finds one held (a reader beside the pool's writer)
// gets it on the spin instead of a futex sleep and wake-up, which cost more than the section.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value that every access reaches under one lock.
package final class Locked<Value>: @unchecked Sendable {
    // @unchecked: `value` is only touched under `mutex`.

    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    // Unchecked: the mutex orders every access, and Swift's dynamic exclusivity check (a
    // runtime call on entry and exit, about 120 instructions) ran on each of a pool read's
    // half-dozen sections.
    @exclusivity(unchecked) private var value: Value

    package init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        #if canImport(Glibc)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ADAPTIVE_NP))
        #endif
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    @inline(__always)
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
