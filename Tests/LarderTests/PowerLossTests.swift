// Simulated power cuts, in the style of SQLite's crash tests: the crash worker saves with
// `.full` durability under the PowerCut interposer (Tests/PowerCut), which stops it at a random
// write, sync, rename or unlink of the store's files and records what was synced; the test then
// rebuilds the directory as a power cut could leave it (PowerCutImage) and requires that the
// rebuilt store opens, passes verify() and the worker's checks, and holds every acknowledged save.
// POWER_CUTS sets the number of cuts (`make power-loss` runs many), POWER_CUT_SEED the seed: cut
// i uses seed + i, so `POWER_CUTS=1 POWER_CUT_SEED=<printed seed>` replays one cut.

import Foundation
import Testing
import LarderTestSupport

@Suite struct PowerLossTests {
    /// The exit status of a worker the interposer stopped.
    static let cutStatus: Int32 = 86

    @Test func everyAcknowledgedSaveSurvivesSimulatedPowerCuts() throws {
        try runCuts(losingUnsyncedBytes: true)
    }

    /// The control: the same cuts, rebuilt as a kill -9 leaves them, must all pass, or the
    /// harness (not the store) is wrong.
    @Test func everyCutPassesWhenNothingUnsyncedIsLost() throws {
        try runCuts(losingUnsyncedBytes: false, count: 30)
    }

    private func runCuts(losingUnsyncedBytes: Bool, count: Int? = nil) throws {
        let environment = ProcessInfo.processInfo.environment
        let cuts = count ?? environment["POWER_CUTS"].flatMap { Int($0) } ?? 100
        let seed = environment["POWER_CUT_SEED"].flatMap { UInt64($0) } ?? 19
        let maxOperations = environment["POWER_CUT_MAX_OPS"].flatMap { Int($0) } ?? 2000
        let library = Worker.url.deletingLastPathComponent().appendingPathComponent("libPowerCut.so").path
        try #require(FileManager.default.fileExists(atPath: library), "build the PowerCut product first")
        var failures: [String] = []
        var acknowledgedTotal: UInt64 = 0
        for cut in 0 ..< cuts {
            let cutSeed = seed &+ UInt64(cut)
            var generator = SplitMix(seed: cutSeed)
            let operation = Int.random(in: 1 ... maxOperations, using: &generator)
            let outcome = try runCut(at: operation, seed: cutSeed, library: library,
                                     losingUnsyncedBytes: losingUnsyncedBytes, generator: &generator)
            acknowledgedTotal += outcome.acknowledged
            if let failure = outcome.failure {
                failures.append("seed \(cutSeed) (cut at operation \(operation)): \(failure)")
            }
        }
        print("power-loss test (\(losingUnsyncedBytes ? "power cut" : "kill -9 control")): \(cuts) cuts from seed \(seed), \(failures.count) failed, \(acknowledgedTotal) acknowledged saves checked")
        for failure in failures.prefix(20) { Issue.record(Comment(rawValue: failure)) }
        #expect(failures.isEmpty, "\(failures.count) of \(cuts) cuts failed")
        // Creating the store takes about 1,300 of the 2,000 operations a cut may fall at: on
        // average a cut follows about one acknowledged save (105 for seed 19's 100 cuts, 312
        // for 400 cuts from seed 1000).
        #expect(acknowledgedTotal > UInt64(cuts / 2), "the workers saved too little before the cuts to test anything")
    }

    /// How long the worker's check of a rebuilt store may take.
    static let checkTimeout = 20.0

    /// The worker's check of the store at `path`, or nil if it did not end in time (it is killed).
    private func check(_ path: String) throws -> String? {
        let (process, output) = try Worker.start(["check", path])
        let deadline = Date().addingTimeInterval(Self.checkTimeout)
        while process.isRunning, Date() < deadline { usleep(10_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return nil
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// With POWER_CUT_KEEP=DIR, keeps a failed cut's directories (store, shadow, rebuilt) there.
    private func keep(_ path: String) {
        guard let destination = ProcessInfo.processInfo.environment["POWER_CUT_KEEP"] else { return }
        try? FileManager.default.removeItem(atPath: destination)
        try? FileManager.default.copyItem(atPath: path, toPath: destination)
    }

    /// One cut: run the worker until the interposer stops it, rebuild, check. A failure or nil.
    private func runCut(at operation: Int, seed: UInt64, library: String, losingUnsyncedBytes: Bool,
                        generator: inout SplitMix) throws -> (acknowledged: UInt64, failure: String?) {
        let root = TemporaryDirectory("power-cut")
        let store = root.path + "/store", shadow = root.path + "/shadow", rebuilt = root.path + "/rebuilt"
        let acks = root.path + "/acks"
        for directory in [store, shadow] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        _ = FileManager.default.createFile(atPath: acks, contents: nil)

        let process = Process()
        process.executableURL = Worker.url
        // Every other cut writes its class files through shadow copies (ShadowCopy) instead of
        // Tokyo Cabinet's synced undo log: both ways of committing go under the cuts.
        process.arguments = ["run", store, "full", acks] + (seed % 2 == 1 ? ["shadow"] : [])
        var environment = ProcessInfo.processInfo.environment
        environment["LD_PRELOAD"] = library
        environment["POWERCUT_DIR"] = store
        environment["POWERCUT_SHADOW"] = shadow
        environment["POWERCUT_AT"] = String(operation)
        environment["POWERCUT_SEED"] = String(seed)
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == Self.cutStatus else {
            return (0, "the worker ended by itself (\(process.terminationReason == .exit ? "status" : "signal") \(process.terminationStatus))")
        }

        let lines = try String(contentsOfFile: acks, encoding: .utf8).split(separator: "\n")
        let acknowledged = lines.last.flatMap { UInt64($0) } ?? 0
        var image = PowerCutImage(storePath: store, shadowPath: shadow)
        image.losesUnsyncedBytes = losingUnsyncedBytes
        let how = try image.rebuild(into: rebuilt, using: &generator)
        // Kept with POWER_CUT_KEEP: the rebuilt directory as the check found it.
        try? FileManager.default.copyItem(atPath: rebuilt, toPath: root.path + "/rebuilt-before-check")
        guard let result = try check(rebuilt) else {
            keep(root.path)
            return (acknowledged, "the check hung (\(Self.checkTimeout) s) [\(how)]")
        }
        let parts = result.split(separator: " ")
        guard parts.count == 2, parts[0] == "ok", let saves = UInt64(parts[1]) else {
            keep(root.path)
            return (acknowledged, "\(result.isEmpty ? "the check crashed" : result) [\(how)]")
        }
        guard saves >= acknowledged else {
            keep(root.path)
            return (acknowledged, "acknowledged \(acknowledged) saves, the store has \(saves) [\(how)]")
        }
        return (acknowledged, nil)
    }
}
