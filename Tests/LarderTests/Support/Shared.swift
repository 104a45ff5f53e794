// Shared: a value that tasks of a test read and change, under a lock (a Mutex cannot be
// captured by the escaping closures of tasks).

import Synchronization

/// A value tasks share.
final class Shared<Value: Sendable>: Sendable {
    private let value: Mutex<Value>

    init(_ value: Value) { self.value = Mutex(value) }

    var current: Value { value.withLock { $0 } }

    func update(_ body: (inout Value) -> Void) { value.withLock { body(&$0) } }
}
