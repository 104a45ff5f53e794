// ChangeFeed: the live subscribers of a store's changes (Store.changes) or of a document
// collection's (DocumentCollection.changes). A commit publishes its change to each after it is
// applied, in commit order, from the committing thread; a subscriber whose reader stops (the
// task is cancelled, or the stream and its iterators are released) is removed, and closing
// finishes every stream. The Store is not Sendable; the feed and its subscribers are, so the
// streams can be read from any task.

/// The subscribers to one store's (or collection's) changes.
package final class ChangeFeed<Change: FeedElement>: Sendable {
    private struct State {
        var subscribers: [Int: ChangeSubscriber<Change>] = [:]
        var nextID = 0
        var isFinished = false
    }

    private let state = Locked(State())

    package init() {}

    /// Removes a subscriber when the stream that reads it is released (its unfolding closure,
    /// which alone holds this, goes away with it).
    private final class Registration: Sendable {
        let feed: ChangeFeed<Change>
        let id: Int

        init(feed: ChangeFeed<Change>, id: Int) {
            self.feed = feed
            self.id = id
        }

        deinit { feed.remove(id) }
    }

    /// Whether any stream is subscribed.
    package var hasSubscribers: Bool { state.withLock { !$0.subscribers.isEmpty } }

    /// A new stream of the changes published from now on, keeping up to `bufferSize` changes
    /// for a reader that falls behind; a finished stream once the feed is finished.
    package func subscribe(bufferSize: Int) -> AsyncStream<Change> {
        let subscriber = ChangeSubscriber<Change>(bufferSize: bufferSize)
        let id = state.withLock { state -> Int? in
            guard !state.isFinished else { return nil }
            state.nextID += 1
            state.subscribers[state.nextID] = subscriber
            return state.nextID
        }
        guard let id else {
            subscriber.finish()
            return AsyncStream { nil }
        }
        let registration = Registration(feed: self, id: id)
        return AsyncStream(unfolding: {
            let change = await subscriber.next()
            withExtendedLifetime(registration) {}
            return change
        }, onCancel: { [weak self] in
            subscriber.finish(dropQueued: true)
            self?.remove(id)
        })
    }

    /// Hands `change` to every subscriber.
    package func publish(_ change: Change) {
        state.withLock { state in
            for subscriber in state.subscribers.values { subscriber.deliver(change) }
        }
    }

    /// Finishes every stream (each reader gets what is queued, then nil) and every stream
    /// subscribed from now on.
    package func finish() {
        let subscribers = state.withLock { state -> [ChangeSubscriber<Change>] in
            state.isFinished = true
            defer { state.subscribers = [:] }
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.finish() }
    }

    private func remove(_ id: Int) {
        _ = state.withLock { $0.subscribers.removeValue(forKey: id) }
    }
}
