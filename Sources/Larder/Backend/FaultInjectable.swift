// FaultInjectable: a backend whose file operations a test can make fail, one chosen operation
// at a time (FaultInjector), without the code that drives it knowing the backend's type.

/// A backend that fails the operations its ``FaultInjector`` picks (tests only).
package protocol FaultInjectable: AnyObject {
    /// Fails a chosen operation, when set.
    var faultInjector: FaultInjector? { get set }
}
