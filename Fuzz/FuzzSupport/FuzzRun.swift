// FuzzRun: feeds a target inputs and judges each: a FuzzViolation, or an input whose decode
// takes longer than the deadline twice in a row (once could be the machine), is a failure. A
// crash ends the process: the caller says beforehand which input is running.

import Larder

/// One input a target failed on, and why.
package struct FuzzFailure: CustomStringConvertible {
    package var target: String
    package var input: [UInt8]
    package var reason: String

    package var description: String {
        "\(target): \(reason)\n  input (\(input.count) bytes): \(input.map { String($0, radix: 16) }.joined(separator: " ").prefix(600))"
    }
}

/// Runs targets on inputs.
package enum FuzzRun {
    /// The longest one input may take to decode.
    package static let deadline = Duration.milliseconds(100)

    /// The failure of `target` on `input`, or nil when it decodes (or refuses) it in time;
    /// `accepted` says which.
    package static func check(_ target: FuzzTarget, _ input: [UInt8], accepted: inout Bool) -> FuzzFailure? {
        var slowest = Duration.zero
        for _ in 0 ..< 2 {
            let started = ContinuousClock.now
            do {
                accepted = try target.run(input)
            } catch {
                return FuzzFailure(target: target.name, input: input, reason: error.description)
            }
            let took = ContinuousClock.now - started
            guard took > deadline else { return nil }
            slowest = took
        }
        return FuzzFailure(target: target.name, input: input, reason: "took \(slowest), more than \(deadline)")
    }

    /// The failure of `target` on `input`, or nil when it decodes (or refuses) it in time.
    package static func check(_ target: FuzzTarget, _ input: [UInt8]) -> FuzzFailure? {
        var accepted = false
        return check(target, input, accepted: &accepted)
    }

    /// What a run of many inputs found.
    package struct Summary {
        package var inputs = 0
        /// Inputs the decoder accepted: a run whose inputs it all refuses tests little.
        package var accepted = 0
        package var failures: [FuzzFailure] = []
        package var elapsed = Duration.zero
    }

    /// Runs `target` on `count` inputs mutated from its seeds (the seeds first) by a mutator
    /// seeded with `seed`; `willRun` is told each input before it runs (to keep it should
    /// the process crash). Stops after `maximumFailures` failures.
    package static func mutating(_ target: FuzzTarget, inputs count: Int, seed: UInt64, maximumFailures: Int = 10,
                                 willRun: ([UInt8]) -> Void = { _ in }) -> Summary {
        let seeds = target.seeds()
        var mutator = Mutator(seeds: seeds, seed: seed)
        var summary = Summary()
        let started = ContinuousClock.now
        while summary.inputs < count, summary.failures.count < maximumFailures {
            let input = summary.inputs < seeds.count ? seeds[summary.inputs] : mutator.next()
            willRun(input)
            var accepted = false
            if let failure = check(target, input, accepted: &accepted) { summary.failures.append(failure) }
            if accepted { summary.accepted += 1 }
            summary.inputs += 1
        }
        summary.elapsed = ContinuousClock.now - started
        return summary
    }
}
