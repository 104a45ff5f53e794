// FaultInjector: a test hook inside the commit path that fails chosen file operations, and
// records every operation it sees, to prove that a failure at any point of a save leaves the
// store consistent and that each durability level reaches exactly its sync steps.

/// Fails chosen file operations of a backend, and records them all (for tests).
///
/// ```swift
/// backend.faultInjector = FaultInjector(failingOperation: 3)
/// ```
package final class FaultInjector {
    /// The 1-based numbers of the operations to fail.
    package let failingOperations: Set<Int>
    /// The first operation to fail.
    package var failingOperation: Int { failingOperations.min() ?? 0 }
    /// How many operations were counted so far.
    package private(set) var count = 0
    /// Every operation counted, in order, as "operation file-name".
    package private(set) var operations: [String] = []
    /// Whether the (first) fault was injected.
    package var fired: Bool { count >= failingOperation }

    package init(failingOperation: Int) {
        self.failingOperations = [failingOperation]
    }

    /// Fails each of `failingOperations` (for a failure during the roll-forward of another).
    package init(failingOperations: Set<Int>) {
        self.failingOperations = failingOperations
    }

    /// A recorder that fails nothing.
    package static func recorder() -> FaultInjector {
        FaultInjector(failingOperations: [])
    }

    /// Counts an operation and throws an I/O failure if it is a chosen one.
    package func check(_ operation: String, path: String) throws {
        count += 1
        operations.append(operation + " " + (path.split(separator: "/").last.map(String.init) ?? path))
        if failingOperations.contains(count) {
            throw BackendError.ioFailure(path: path, operation: operation, reason: "injected fault")
        }
    }
}
