// ObservedValues: what a reader task got from a stream (an observation, a change feed), for
// tests that must not hang when a value they expect never comes: the task reads the stream and
// keeps its values and how it ended; the test waits for a count (or the end) with `eventually`
// (whose limit counts only the time the test itself runs, so that starvation of the task
// threads by other suites is not taken for a missing value).

import Foundation

/// The values a task read from a stream, and how it ended.
public final class ObservedValues<Value: Sendable>: @unchecked Sendable {
    // @unchecked: `state` is only touched under `lock` (a pthread mutex, which ThreadSanitizer
    // sees: `make thread-sanitizer` runs the suites that use this).
    private struct State {
        var values: [Value] = []
        var error: (any Error)?
        var isFinished = false
    }

    private let lock = NSLock()
    private var state = State()

    /// Starts a task that reads `stream` to its end.
    public init(_ stream: AsyncThrowingStream<Value, any Error>) {
        Task { [self] in
            do {
                for try await value in stream { withState { $0.values.append(value) } }
            } catch {
                withState { $0.error = error }
            }
            withState { $0.isFinished = true }
        }
    }

    /// Starts a task that reads `stream` (which cannot fail) to its end.
    public init(_ stream: AsyncStream<Value>) {
        Task { [self] in
            for await value in stream { withState { $0.values.append(value) } }
            withState { $0.isFinished = true }
        }
    }

    public var values: [Value] { withState { $0.values } }
    public var error: (any Error)? { withState { $0.error } }
    public var isFinished: Bool { withState { $0.isFinished } }

    /// Waits until `count` values came (true), or `eventually`'s limit passed (false).
    public func waitFor(count: Int) async -> Bool {
        await wait { $0.values.count >= count }
    }

    /// Waits until the stream ended (true), or `eventually`'s limit passed (false).
    public func waitForEnd() async -> Bool {
        await wait { $0.isFinished }
    }

    private func wait(until condition: (State) -> Bool) async -> Bool {
        await eventually { withState { condition($0) } }
    }

    private func withState<R>(_ body: (inout State) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(&state)
    }
}
