// The decoders of untrusted bytes under a short fuzz run each (the long one is `make fuzz`),
// and the inputs that once broke them (Tests/FuzzCorpus), replayed: no input crashes, breaks
// a decoder's promise, or takes longer than FuzzRun.deadline.

import Foundation
import FuzzSupport
import Larder
import LarderDocuments
import Testing

@Suite struct DecoderFuzzTests {
    /// Inputs per target in the short run: about ten seconds for all of them in a debug build.
    static let inputsPerTarget = 20_000

    @Test(arguments: FuzzTarget.all.map(\.name))
    func seedsAreAccepted(target name: String) throws {
        let target = try #require(FuzzTarget.all.first { $0.name == name })
        let seeds = target.seeds()
        #expect(seeds.count >= 2)
        for (number, seed) in seeds.enumerated() {
            var accepted = false
            let failure = FuzzRun.check(target, seed, accepted: &accepted)
            #expect(failure == nil, "\(String(describing: failure))")
            #expect(accepted, "seed \(number) of \(name) is refused: its mutations would test little")
        }
    }

    @Test(arguments: FuzzTarget.all.map(\.name))
    func shortRunFindsNoFailure(target name: String) throws {
        let target = try #require(FuzzTarget.all.first { $0.name == name })
        // A new seed each run (printed, to replay a failure with `LarderFuzz --target --seed`).
        let seed = UInt64.random(in: 0 ... UInt64.max)
        let summary = FuzzRun.mutating(target, inputs: Self.inputsPerTarget, seed: seed, maximumFailures: 3)
        for failure in summary.failures {
            Issue.record("seed \(seed): \(failure)")
        }
        // Some mutations stay valid: a target that refuses them all would not reach its decoder's depths.
        #expect(summary.accepted > summary.inputs / 50, "seed \(seed): \(summary.accepted) of \(summary.inputs) accepted")
    }

    @Test(arguments: FuzzTarget.all.map(\.name))
    func corpusInputsPass(target name: String) throws {
        let target = try #require(FuzzTarget.all.first { $0.name == name })
        for (file, input) in try FuzzCorpus.inputs(of: name) {
            let failure = FuzzRun.check(target, input)
            #expect(failure == nil, "Tests/FuzzCorpus/\(name)/\(file): \(String(describing: failure))")
        }
    }

    @Test func everyTargetHasItsOwnName() {
        let names = FuzzTarget.all.map(\.name)
        #expect(Set(names).count == names.count)
        #expect(names.count == 19)
    }
}
