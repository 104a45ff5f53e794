// Eventually: waiting in an async test for something another task does, with a limit that
// only stops a hang. The limit counts only time in which the waiting test itself was running:
// under `make test` the other suites' long synchronous tests (a crash test runs for minutes)
// can keep both of a 2-core machine's task threads busy, and then the task being waited for and
// the waiting test are starved alike. A wall-clock limit failed exactly so: three observations
// "hung" together for 300 s, and each had its value as soon as a thread was free again. A
// wait that comes back much later than it asked was time without a thread for anyone, and
// counts for little.

/// Waits until `condition` holds (true), or `limit` of the waiting task's own running time
/// passed (false). A test that passes waits no longer than the condition takes.
///
/// ```swift
/// #expect(await eventually { feed.values.count == 3 })
/// ```
public func eventually(within limit: Duration = .seconds(300), _ condition: () -> Bool) async -> Bool {
    let clock = ContinuousClock()
    let tick = Duration.milliseconds(1)
    var waited = Duration.zero
    while waited < limit {
        if condition() { return true }
        let before = clock.now
        try? await Task.sleep(for: tick)
        waited += min(clock.now - before, tick * 10)
    }
    return condition()
}
