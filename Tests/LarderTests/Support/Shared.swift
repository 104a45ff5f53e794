// Shared: a value that tasks of a test read and change, under a lock (Locked, which
// ThreadSanitizer sees, as `make thread-sanitizer` needs; a Mutex cannot be captured by the
// escaping closures of tasks anyway).

@testable import Larder

/// A value tasks share.
final class Shared<Value: Sendable>: Sendable {
    private let value: Locked<Value>

    init(_ value: Value) { self.value = Locked(value) }

    var current: Value { value.withLock { $0 } }

    func update(_ body: (inout Value) -> Void) { value.withLock { body(&$0) } }
}
