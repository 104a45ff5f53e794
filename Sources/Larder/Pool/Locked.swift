// Locked: a value behind a lock, for the state that tasks and threads share (a pool's gates and
// snapshots, the change feeds). A pthread mutex (through NSLock) rather than Synchronization's
// Mutex: on Linux that one waits on futexes ThreadSanitizer cannot see, so every access it
// orders would be reported as a race, and `make thread-sanitizer` could find no real one.

import Foundation

/// A value that every access reaches under one lock.
package final class Locked<Value>: @unchecked Sendable {
    // @unchecked: `value` is only touched under `lock`.

    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    /// The result of `body`, run with the value under the lock.
    @inline(__always)
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
