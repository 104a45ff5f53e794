// FaultInjector: a test hook inside the commit path that fails the N-th file operation, to
// prove that a failure at any point of a save leaves the store consistent.

/// Fails one chosen file operation of a backend (for tests).
package final class FaultInjector {
    /// The 1-based number of the operation to fail.
    package let failingOperation: Int
    /// How many operations were counted so far.
    package private(set) var count = 0
    /// Whether the fault was injected.
    package var fired: Bool { count >= failingOperation }

    package init(failingOperation: Int) {
        self.failingOperation = failingOperation
    }

    /// Counts an operation and throws an I/O failure if it is the chosen one.
    package func check(_ operation: String, path: String) throws {
        count += 1
        if count == failingOperation {
            throw StoreError.ioFailure(path: path, operation: operation, reason: "injected fault")
        }
    }
}
