// ReadTracking: whether an observation's fetch is running anywhere in the process, so that a
// `@Stored` getter (inlined into every property read) notes the class of an object read from
// memory only then: one relaxed load and a branch otherwise. An object already in memory is
// read without the store, and an observation must still know its class was read.

import Synchronization

/// The process-wide count of observation fetches running.
@usableFromInline
internal enum ReadTracking {
    @usableFromInline
    internal static let fetchesRunning = Atomic<Int>(0)

    /// Whether some store runs an observation's fetch (on any thread): `@Stored` reads then
    /// tell their store what they read.
    @inlinable
    internal static var isActive: Bool { fetchesRunning.load(ordering: .relaxed) > 0 }
}
