// FaultSweep: a test hook that runs a write once for each file operation it performs, failing
// that operation (FaultInjector), and records what each failure left, to prove a write all or
// nothing. Used by the tests of both Larder and LarderDocuments, hence `package`.

/// Runs a write with each of its file operations failing in turn (tests only).
///
/// ```swift
/// let sweep = try FaultSweep(prepare: makeStore, write: { directory, injector in … }, state: contents).run()
/// print(sweep.violations)   // [] when every failure left the old state or the new one
/// ```
package struct FaultSweep<Place, State: Equatable> {
    /// Makes a fresh place (a store directory) in the state before the write.
    let prepare: () throws -> Place
    /// Makes the write on a place, with the injector installed for the write (none when nil).
    let write: (Place, FaultInjector?) throws -> Void
    /// What a fresh open of the place finds.
    let state: (Place) throws -> State

    package init(prepare: @escaping () throws -> Place, write: @escaping (Place, FaultInjector?) throws -> Void,
                 state: @escaping (Place) throws -> State) {
        self.prepare = prepare
        self.write = write
        self.state = state
    }

    /// What failing one file operation of the write left.
    package struct Outcome {
        /// The 1-based number of the failed operation.
        package let operation: Int
        /// What the write threw, or nil when it completed anyway (rolled forward).
        package let failure: (any Error)?
        /// What a fresh open found afterwards.
        package let state: State
        /// What a fresh open found after the write was retried without a fault, when the
        /// failure left the old state.
        package let stateAfterRetry: State?
    }

    /// The states before and after the write, and what failing each of its operations left.
    package struct Result {
        package let old: State
        package let new: State
        package let outcomes: [Outcome]

        /// Every outcome that is not all or nothing, described: a failure that left neither the
        /// old state nor the new one, a retry that did not land whole, or a completed write
        /// that is not whole.
        package var violations: [String] {
            outcomes.compactMap { outcome in
                let left = "operation \(outcome.operation): \(outcome.failure.map { "\($0)" } ?? "completed"), left \(outcome.state)"
                if outcome.state == new { return nil }
                guard outcome.failure != nil, outcome.state == old else { return left }
                return outcome.stateAfterRetry == new ? nil : left + "; the retry left \(String(describing: outcome.stateAfterRetry))"
            }
        }
    }

    /// Runs the write without a fault, then once with each of its operations failing, each on
    /// a freshly prepared place, until the write performs fewer operations than the one to fail.
    package func run() throws -> Result {
        let old = try state(prepare())
        let written = try prepare()
        try write(written, nil)
        let new = try state(written)
        var outcomes: [Outcome] = []
        while true {
            let place = try prepare()
            let injector = FaultInjector(failingOperation: outcomes.count + 1)
            var failure: (any Error)?
            do {
                try write(place, injector)
            } catch {
                failure = error
            }
            guard injector.fired else {
                if let failure { throw failure }
                return Result(old: old, new: new, outcomes: outcomes)
            }
            let after = try state(place)
            var afterRetry: State?
            if failure != nil && after == old {
                try write(place, nil)
                afterRetry = try state(place)
            }
            outcomes.append(Outcome(operation: injector.failingOperation, failure: failure, state: after,
                                    stateAfterRetry: afterRetry))
        }
    }
}
