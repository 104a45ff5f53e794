// StoreObservation: one live `Store.observe` stream: the fetch to run again, what its last run
// read, and whether its reader has gone. The store runs the fetch on its own thread (at
// `observe`, then after each commit that touched what the fetch read) and hands the value to
// the stream; the reader, in any task, only ever sees values.

import Synchronization

/// One observation of a store.
internal final class StoreObservation {
    /// Set from any thread when the stream's reader goes away; read by the store before it
    /// runs the fetch again.
    final class Cancellation: Sendable {
        private let cancelled = Atomic(false)

        var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

        func cancel() { cancelled.store(true, ordering: .releasing) }
    }

    /// Runs the fetch and sends its value (or its error, which ends the stream); false once
    /// the stream has ended.
    private let evaluate: (Store) -> Bool
    /// Ends the stream without an error (the store closes).
    private let finishStream: () -> Void
    let cancellation: Cancellation
    /// What the last run of the fetch read.
    var dependencies = ReadDependencies()

    init(cancellation: Cancellation, evaluate: @escaping (Store) -> Bool, finish: @escaping () -> Void) {
        self.cancellation = cancellation
        self.evaluate = evaluate
        self.finishStream = finish
    }

    /// Runs the fetch on `store`, noting what it reads; false when the observation is over
    /// (its reader went away, or the fetch threw).
    func run(on store: Store) -> Bool {
        guard !cancellation.isCancelled else { return false }
        let dependencies = ReadDependencies()
        let goesOn = store.tracking(dependencies) { evaluate(store) }
        self.dependencies = dependencies
        return goesOn
    }

    func finish() { finishStream() }
}
