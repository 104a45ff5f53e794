// Timing: a phase timed like SpeedReporter.measure (wall clock and process CPU) but reported
// later, for engines that must close their store before its size can be measured.

import Foundation

/// The wall and CPU time of one phase, with what it counted and read back.
public struct Timing: Sendable {
    public var wall: Double
    public var cpu: Double
    public var count: Int
    public var check: String

    public init(wall: Double, cpu: Double, count: Int, check: String) {
        self.wall = wall
        self.cpu = cpu
        self.count = count
        self.check = check
    }
}

/// Times `body` (wall clock and process CPU), without printing: what
/// ``SpeedReporter/measure(phase:storePath:_:)`` reports. Never inlined: callgrind's
/// `--toggle-collect` names it to count only a phase's body (README, "Counting instructions").
@inline(never)
public func timed(_ body: () throws -> (count: Int, check: String)) rethrows -> Timing {
    let startWall = DispatchTime.now().uptimeNanoseconds
    let startCPU = SpeedReporter.cpuSeconds()
    let (count, check) = try body()
    let wall = Double(DispatchTime.now().uptimeNanoseconds - startWall) / 1e9
    return Timing(wall: wall, cpu: SpeedReporter.cpuSeconds() - startCPU, count: count, check: check)
}

extension SpeedReporter {
    /// Prints the RESULT line of a phase timed with ``timed(_:)``.
    public func report(_ phase: String, _ timing: Timing, _ storePath: String) {
        report(phase: phase, wall: timing.wall, cpu: timing.cpu, storePath: storePath,
               count: timing.count, check: timing.check)
    }
}
