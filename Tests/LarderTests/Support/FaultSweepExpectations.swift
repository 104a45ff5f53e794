// The checks every fault sweep of a store write makes: the write changed something, left no
// problem for verify(), and every failure left the old state or the new one with a typed error.

import Testing
@testable import Larder

extension FaultSweep.Result where State == [String] {
    /// Expects the sweep's write to be all or nothing at each of more than `minimumOperations`
    /// file operations, some of which failed it.
    func expectAllOrNothing(moreOperationsThan minimumOperations: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(old != new, sourceLocation: sourceLocation)
        #expect(!new.contains { $0.hasPrefix("problem") }, "\(new)", sourceLocation: sourceLocation)
        #expect(violations == [], sourceLocation: sourceLocation)
        let failures = outcomes.compactMap(\.failure)
        #expect(failures.allSatisfy { $0 is StoreError || $0 is BackendError }, "\(failures)", sourceLocation: sourceLocation)
        #expect(outcomes.count > minimumOperations && !failures.isEmpty, "the write performed too few operations to test",
                sourceLocation: sourceLocation)
    }
}
