// AsyncGate: a counting semaphore for tasks. `enter` takes one of a fixed number of places or
// waits for one, in the order tasks asked (first come, first served); a task cancelled while it
// waits leaves the queue at once with CancellationError, holding nothing. `leave` hands the place
// to the first waiter. A StorePool keeps one of a single place for its writer and one for its
// readers' contexts.

/// First-come, first-served places for tasks, with cancellation.
internal final class AsyncGate: Sendable {
    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var free: Int
        var waiters: [Waiter] = []
        var nextID: UInt64 = 0
        /// Tasks that must wait and have not joined the queue yet.
        var joining: Set<UInt64> = []
        /// Those of them cancelled before they joined.
        var cancelledEarly: Set<UInt64> = []
    }

    private let state: Locked<State>

    init(places: Int) {
        state = Locked(State(free: max(1, places)))
    }

    /// How many places are free and how many tasks wait (for the tests: nothing leaks).
    var counts: (free: Int, waiting: Int) {
        state.withLock { ($0.free, $0.waiters.count) }
    }

    /// Takes a place, waiting for one in turn; throws CancellationError, holding none, when the
    /// task is cancelled before it gets one.
    func enter() async throws {
        try Task.checkCancellation()
        let id: UInt64? = state.withLock { state in
            if state.free > 0 && state.waiters.isEmpty {
                state.free -= 1
                return nil
            }
            state.nextID += 1
            state.joining.insert(state.nextID)
            return state.nextID
        }
        guard let id else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let cancelled = state.withLock { state in
                    state.joining.remove(id)
                    if state.cancelledEarly.remove(id) != nil { return true }
                    if state.free > 0 && state.waiters.isEmpty {
                        state.free -= 1
                        continuation.resume()
                        return false
                    }
                    state.waiters.append(Waiter(id: id, continuation: continuation))
                    return false
                }
                if cancelled { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let waiter: Waiter? = state.withLock { state in
                if let index = state.waiters.firstIndex(where: { $0.id == id }) {
                    return state.waiters.remove(at: index)
                }
                if state.joining.contains(id) { state.cancelledEarly.insert(id) }
                return nil
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
        // Cancelled after it was given a place: the place is the task's to leave.
    }

    /// Gives a place back: to the first waiter, or to the free places.
    func leave() {
        // The common case, nobody waiting, touches no `Waiter`: a continuation is a resilient
        // type, and each optional one made, copied and destroyed goes through its metadata.
        let handsOver = state.withLock { state in
            guard state.waiters.isEmpty else { return true }
            state.free += 1
            return false
        }
        guard handsOver else { return }
        // The first waiter may have been cancelled meanwhile: then the place is free again.
        let waiter: Waiter? = state.withLock { state in
            guard !state.waiters.isEmpty else {
                state.free += 1
                return nil
            }
            return state.waiters.removeFirst()
        }
        waiter?.continuation.resume()
    }
}
