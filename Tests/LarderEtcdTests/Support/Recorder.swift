// Recorder: what an asynchronous producer (a watch, the remote-save stream) handed over, kept
// under a lock, and a wait until enough of it came (or a timeout: the test then checks what did).

import Foundation

final class Recorder<Element: Sendable>: @unchecked Sendable {
    // @unchecked: `elements` is used under `condition`.
    private let condition = NSCondition()
    private var elements: [Element] = []

    func record(_ element: Element) {
        condition.lock()
        elements.append(element)
        condition.broadcast()
        condition.unlock()
    }

    /// Everything recorded so far.
    var recorded: [Element] {
        condition.lock()
        defer { condition.unlock() }
        return elements
    }

    /// Waits up to `timeout` seconds until `enough` holds of what was recorded; returns it.
    @discardableResult
    func wait(timeout: TimeInterval = 20, until enough: ([Element]) -> Bool) -> [Element] {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while !enough(elements), condition.wait(until: deadline) {}
        return elements
    }
}
