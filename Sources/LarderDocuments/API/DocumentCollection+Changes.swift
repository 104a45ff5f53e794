// DocumentCollection+Changes: a collection's change feed (the rowIDs each committed write
// inserted, updated and removed) and observation of a query (its documents at once, then again
// after each write to the collection that changed them).

import Larder

extension DocumentCollection {
    /// The changes of every write to this collection committed from now on, in commit order,
    /// each once it is applied; never one for a write that threw or changed no document. Each
    /// subscriber keeps up to 256 changes for a reader that falls behind, then gets a gap marker
    /// (``DocumentChange/missed``). The stream finishes when the store closes or the collection
    /// is dropped.
    ///
    /// ```swift
    /// Task {
    ///     for await change in people.changes { print(change.inserted, change.removed) }
    /// }
    /// ```
    public var changes: AsyncStream<DocumentChange> { changes(bufferSize: 256) }

    /// The changes of every write committed from now on, like ``changes``, keeping up to
    /// `bufferSize` changes (at least 1) for a reader that falls behind.
    ///
    /// ```swift
    /// let feed = people.changes(bufferSize: 16)
    /// ```
    public func changes(bufferSize: Int) -> AsyncStream<DocumentChange> {
        guard let feed = try? store.withLock({ store.feed(of: name) }) else { return AsyncStream { nil } }
        return feed.feed.subscribe(bufferSize: bufferSize)
    }

    /// The documents a query finds (as `find(where:arguments:orderBy:limit:offset:)`): at once,
    /// then again after each write to the collection that changes them (a write that leaves the
    /// answer as it was sends nothing). The query runs in a task of its own after each write, so
    /// a reader gets the newest answer; the stream ends with the error when the query throws,
    /// and when the store closes or the collection is dropped.
    ///
    /// ```swift
    /// for try await oldest in people.observe(where: "[age] > ?", arguments: [30], orderBy: "[age] DESC", limit: 10) {
    ///     print(oldest.count)
    /// }
    /// ```
    public func observe(where query: String? = nil, arguments: [JSON] = [], orderBy: String? = nil,
                        limit: Int? = nil, offset: Int? = nil) -> AsyncThrowingStream<[JSON], any Error> {
        // Subscribed before the first read, so that no write falls between the two.
        let writes = changes(bufferSize: 1)
        let (stream, continuation) = AsyncThrowingStream<[JSON], any Error>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let reader = Task {
            do {
                var last = try await find(where: query, arguments: arguments, orderBy: orderBy, limit: limit, offset: offset)
                continuation.yield(last)
                for await _ in writes {
                    let answer = try await find(where: query, arguments: arguments, orderBy: orderBy, limit: limit, offset: offset)
                    if answer != last {
                        last = answer
                        continuation.yield(answer)
                    }
                }
                continuation.finish()
            } catch StoreError.closed {
                // The store closed while a write's re-run was still to come: closing ends the
                // stream, as it ends the feed (the value already sent may be of a later write).
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in reader.cancel() }
        return stream
    }
}
