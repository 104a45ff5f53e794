// Observation on a pool: `observe` runs its fetch on a read context at once, then again after
// each committed save that touched what the last run read (or after a gap in the feed), and
// sends the value unless it equals the last one sent: Store.observe's promise, with the fetch
// off the writer's queue. The pool's change feed drives it; the stream ends when the pool closes
// or its reader goes away.

extension StorePool {
    /// Values of `fetch`, run on a read context: the current value at once, then a fresh one
    /// after each save that touched a class or named buffer the fetch read.
    ///
    /// ```swift
    /// for try await titles in pool.observe({ try $0.allObjects(of: Song.self).map(\.title) }) {
    ///     print(titles)
    /// }
    /// ```
    public func observe<Value: Sendable>(_ fetch: @escaping @Sendable (Store) throws -> Value)
        -> AsyncThrowingStream<Value, any Error> {
        observe(fetch, isRepeat: { _, _ in false })
    }

    /// Values of `fetch`, as ``observe(_:)-4s8e2``, without sending a value equal to the last one.
    ///
    /// ```swift
    /// for try await count in pool.observe({ try $0.count(of: Song.self) }) { print(count) }
    /// ```
    public func observe<Value: Sendable & Equatable>(_ fetch: @escaping @Sendable (Store) throws -> Value)
        -> AsyncThrowingStream<Value, any Error> {
        observe(fetch, isRepeat: ==)
    }

    private func observe<Value: Sendable>(_ fetch: @escaping @Sendable (Store) throws -> Value,
                                          isRepeat: @escaping @Sendable (Value, Value) -> Bool)
        -> AsyncThrowingStream<Value, any Error> {
        let (stream, continuation) = AsyncThrowingStream<Value, any Error>.makeStream(bufferingPolicy: .bufferingNewest(1))
        // Subscribed before the first fetch: no save between the two goes unseen.
        let feed = changes(bufferSize: 64)
        let task = Task { [self] in
            do {
                var (last, dependencies) = try await trackedFetch(fetch)
                continuation.yield(last)
                for await change in feed {
                    guard change.missed != nil || dependencies.isAffected(by: change) else { continue }
                    let value: Value
                    (value, dependencies) = try await trackedFetch(fetch)
                    if isRepeat(last, value) { continue }
                    last = value
                    continuation.yield(value)
                }
                continuation.finish()
            } catch StoreError.closed {
                // The pool closed while a save's re-run was still to come: closing ends the stream.
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// `fetch`'s value on a read context, with what it read.
    private func trackedFetch<Value>(_ fetch: (Store) throws -> Value) async throws -> (Value, ReadDependencies) {
        try await withReadContext { store in
            let dependencies = ReadDependencies()
            let value = try store.tracking(dependencies) { Result { try fetch(store) } }.get()
            return (value, dependencies)
        }
    }
}
