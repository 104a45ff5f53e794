// ChunkOutcomes: what each chunk of a job spread over the cores with
// `DispatchQueue.concurrentPerform` ended with, for the calling thread to read once every
// chunk is done: a value (what the chunk made, or how far it got) and the error that
// stopped it, if one did. Each chunk sets its own outcome.

import Foundation

/// Per chunk, a value and the error that stopped the chunk, if any.
final class ChunkOutcomes<Value>: @unchecked Sendable {
    // @unchecked: every access holds `lock`.
    private var values: [Value]
    private var errors: [(any Error)?]
    private let lock = NSLock()

    /// `count` chunks, each with `initial` and no error until it sets its outcome.
    init(count: Int, initial: Value) {
        values = Array(repeating: initial, count: count)
        errors = Array(repeating: nil, count: count)
    }

    func set(_ chunk: Int, value: Value, error: (any Error)?) {
        lock.lock()
        values[chunk] = value
        errors[chunk] = error
        lock.unlock()
    }

    func value(_ chunk: Int) -> Value {
        lock.lock()
        defer { lock.unlock() }
        return values[chunk]
    }

    /// The error of the first chunk that failed, if one did.
    var firstError: (any Error)? {
        lock.lock()
        defer { lock.unlock() }
        return errors.lazy.compactMap { $0 }.first
    }
}
