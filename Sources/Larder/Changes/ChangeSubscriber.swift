// ChangeSubscriber: one stream of a ChangeFeed (Store.changes, DocumentCollection.changes): a
// bounded queue of changes between the committing thread and the task that reads them. A commit
// only appends under a lock and never waits: when `bufferSize` changes wait unread, the next
// changes are dropped for this reader and counted in one gap marker, which it reads before the
// next change it gets. Markers take no place in the bound (so the queue holds at most
// 2 × bufferSize + 1 entries: a marker is never followed by another).

/// The queue of one subscriber to a store's changes.
package final class ChangeSubscriber<Change: FeedElement>: Sendable {
    private struct State {
        var queue: [Change] = []
        /// The position of the next change to read in `queue`.
        var head = 0
        /// The commits (not gap markers) in the queue from `head` on.
        var commits = 0
        /// The reader, when it waits for a change.
        var waiter: CheckedContinuation<Change?, Never>?
        /// No change will come: the store closed, or the reader is gone.
        var isFinished = false

        var buffered: Int { queue.count - head }

        mutating func takeFirst() -> Change {
            let change = queue[head]
            head += 1
            if change.missed == nil { commits -= 1 }
            if head == queue.count {
                queue.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 64 && head * 2 >= queue.count {
                queue.removeFirst(head)
                head = 0
            }
            return change
        }
    }

    /// Commits kept for a reader that is behind, gap markers aside.
    let bufferSize: Int
    private let state = Locked(State())

    init(bufferSize: Int) {
        self.bufferSize = max(1, bufferSize)
    }

    /// Hands `change` to the reader, or queues it, or (when `bufferSize` changes wait already)
    /// drops it and extends the gap marker at the end of the queue, or adds one. Never waits.
    func deliver(_ change: Change) {
        let waiter = state.withLock { state -> CheckedContinuation<Change?, Never>? in
            guard !state.isFinished else { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            if state.commits < bufferSize {
                state.queue.append(change)
                state.commits += 1
            } else if let last = state.queue.last, let missed = last.missed {
                state.queue[state.queue.count - 1] = Change(missed: missed.lowerBound ... change.sequence)
            } else {
                state.queue.append(Change(missed: change.sequence ... change.sequence))
            }
            return nil
        }
        waiter?.resume(returning: change)
    }

    /// The next change, waiting for one; nil once the subscription is finished and its queue
    /// read.
    func next() async -> Change? {
        await withCheckedContinuation { (continuation: CheckedContinuation<Change?, Never>) in
            let ready = state.withLock { state -> Change?? in
                if state.buffered > 0 { return .some(state.takeFirst()) }
                if state.isFinished { return .some(nil) }
                state.waiter = continuation
                return .none
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Ends the subscription: no change is queued any more; the reader gets what is queued,
    /// then nil (with `dropQueued`, nil at once).
    func finish(dropQueued: Bool = false) {
        let waiter = state.withLock { state -> CheckedContinuation<Change?, Never>? in
            state.isFinished = true
            if dropQueued {
                state.queue = []
                state.head = 0
                state.commits = 0
            }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }
}
