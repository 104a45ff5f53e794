// ObservedValues: what a reader task got from an observation stream, for tests that must not
// hang when a value they expect never comes: the task reads the stream and keeps its values and
// how it ended; the test waits for a count (or the end) with a deadline.

import Synchronization

final class ObservedValues<Value: Sendable>: Sendable {
    private struct State {
        var values: [Value] = []
        var error: (any Error)?
        var isFinished = false
    }

    private let state = Mutex(State())

    init(_ stream: AsyncThrowingStream<Value, any Error>) {
        Task { [self] in
            do {
                for try await value in stream { state.withLock { $0.values.append(value) } }
            } catch {
                state.withLock { $0.error = error }
            }
            state.withLock { $0.isFinished = true }
        }
    }

    var values: [Value] { state.withLock { $0.values } }
    var error: (any Error)? { state.withLock { $0.error } }
    var isFinished: Bool { state.withLock { $0.isFinished } }

    /// Waits until `count` values came (true), or five seconds passed (false).
    func waitFor(count: Int) async -> Bool {
        await wait { $0.values.count >= count }
    }

    /// Waits until the stream ended (true), or five seconds passed (false).
    func waitForEnd() async -> Bool {
        await wait { $0.isFinished }
    }

    private func wait(until condition: (State) -> Bool) async -> Bool {
        for _ in 0 ..< 5_000 {
            if state.withLock({ condition($0) }) { return true }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return false
    }
}
