// Observation: a fetch whose value is sent at once, then again after each committed save that
// touched what it read (Store.observe), as GRDB's ValueObservation does; and refresh(_:), which
// turns an object back into a fault. The fetch runs on the store's thread: at `observe`, and
// right after each commit, before saveChanges returns. While it runs the store notes the
// classes and named buffers it reaches (ReadDependencies), so the next commit reruns only the
// fetches it may change.

extension Store {
    /// A stream of `fetch`'s value: the current value at once, then a new one after each
    /// committed save (or named-buffer write) that changed a class or named buffer the last run
    /// read. Values equal to the last one sent are skipped (see the `Equatable` overload). A
    /// reader that falls behind gets the newest value. The stream ends with the error when
    /// `fetch` throws, and when the store closes.
    ///
    /// `fetch` runs on the store's thread, right after each commit (before `saveChanges()`
    /// returns); it must only read: saving inside it throws
    /// ``StoreError/saveDuringObservation``. Its value must be `Sendable`: names, numbers,
    /// values copied out of objects, never the objects themselves. Read through the store the
    /// fetch is given: a fetch that captures its store keeps it alive until it is closed.
    ///
    /// ```swift
    /// let titles = store.observe { store in
    ///     try store.objects(of: Song.self, where: \.seconds > 300).map(\.title)
    /// }
    /// for try await longSongs in titles { print(longSongs) }
    /// ```
    public func observe<Value: Sendable>(_ fetch: @escaping (Store) throws -> Value) -> AsyncThrowingStream<Value, any Error> {
        observe(fetch, isRepeat: { _, _ in false })
    }

    /// A stream of `fetch`'s value, like ``observe(_:)-1vyu7``, that skips a value equal to the last
    /// one sent: a save that changed a class the fetch read but not its answer sends nothing.
    ///
    /// ```swift
    /// for try await count in store.observe({ try $0.count(of: Song.self) }) { print(count) }
    /// ```
    public func observe<Value: Sendable & Equatable>(_ fetch: @escaping (Store) throws -> Value)
        -> AsyncThrowingStream<Value, any Error> {
        observe(fetch, isRepeat: ==)
    }

    /// Turns `object` back into a fault: its next access reads its saved state. For an object
    /// whose record another context or process may have changed since it was read.
    /// Throws ``StoreError/objectHasUnsavedChanges(class:rowID:)`` when it has changes not saved
    /// (save or discard them first), and ``StoreError/objectNotInStore(class:)`` for an object
    /// this store does not hold.
    ///
    /// ```swift
    /// try store.refresh(song)
    /// print(song.title)   // read from the store
    /// ```
    public func refresh(_ object: StoredObject) throws {
        try checkOpen()
        guard object.attachedStore === self, let entry = object.entry else {
            throw StoreError.objectNotInStore(class: type(of: object).storageName)
        }
        guard object.pendingChange == .none else {
            throw StoreError.objectHasUnsavedChanges(class: entry.name, rowID: object.rowID)
        }
        object.hasContent = false
        faultErrors[ObjectIdentifier(object)] = nil
        // The class's last page is kept between reads: read it again too.
        entry.pageCache.invalidate()
    }

    // MARK: Internal

    /// Runs `body` noting what it reads into `dependencies`; saves inside it throw.
    internal func tracking<R>(_ dependencies: ReadDependencies, _ body: () -> R) -> R {
        let outer = readDependencies
        readDependencies = dependencies
        observationDepth += 1
        ReadTracking.fetchesRunning.add(1, ordering: .relaxed)
        defer {
            ReadTracking.fetchesRunning.subtract(1, ordering: .relaxed)
            readDependencies = outer
            observationDepth -= 1
        }
        return body()
    }

    /// Runs again the fetches `change` may have changed (after its commit), and drops the
    /// observations that are over.
    internal func notifyObservations(of change: StoreChange) {
        guard !observations.isEmpty else { return }
        // A copy: a fetch may start another observation.
        let current = observations
        var ended: Set<ObjectIdentifier> = []
        for observation in current {
            let goesOn = observation.cancellation.isCancelled ? false
                : !observation.dependencies.isAffected(by: change) || observation.run(on: self)
            if !goesOn { ended.insert(ObjectIdentifier(observation)) }
        }
        if !ended.isEmpty { observations.removeAll { ended.contains(ObjectIdentifier($0)) } }
    }

    /// Ends every observation's stream (the store closes).
    internal func finishObservations() {
        let ending = observations
        observations = []
        for observation in ending { observation.finish() }
    }

    private func observe<Value: Sendable>(_ fetch: @escaping (Store) throws -> Value,
                                          isRepeat: @escaping (Value, Value) -> Bool) -> AsyncThrowingStream<Value, any Error> {
        let (stream, continuation) = AsyncThrowingStream<Value, any Error>.makeStream(bufferingPolicy: .bufferingNewest(1))
        guard !isClosed else {
            continuation.finish(throwing: StoreError.closed)
            return stream
        }
        let cancellation = StoreObservation.Cancellation()
        continuation.onTermination = { _ in cancellation.cancel() }
        var last: Value?
        let observation = StoreObservation(cancellation: cancellation, evaluate: { store in
            do {
                let value = try fetch(store)
                if let last, isRepeat(last, value) { return true }
                last = value
                continuation.yield(value)
                return true
            } catch {
                continuation.finish(throwing: error)
                return false
            }
        }, finish: { continuation.finish() })
        observations.removeAll { $0.cancellation.isCancelled }
        if observation.run(on: self) { observations.append(observation) }
        return stream
    }
}
