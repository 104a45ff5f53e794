// LarderFuzz: the long fuzzing of every decoder of untrusted bytes (`make fuzz`).
//
// Built plainly, it is a deterministic mutation fuzzer:
//   LarderFuzz [--target NAME] [--inputs N] [--seed S] [--out DIR]   N inputs per target (default 1,000,000)
//   LarderFuzz --replay FILE-OR-FOLDER --target NAME                  runs kept inputs
//   LarderFuzz --write-seeds DIR                                      DIR/<target>/seed-N for libFuzzer
// Failures (and the input running when the process crashes) are saved to DIR/<target>/.
//
// Built with `-sanitize=fuzzer,address -D LARDER_LIBFUZZER` (`make fuzz`), it is a libFuzzer
// target, coverage-guided, for the target named by LARDER_FUZZ_TARGET (its seeds written first
// into the folder LARDER_FUZZ_SEEDS names); a failed promise or an input slower than
// FuzzRun.deadline aborts, so that libFuzzer keeps it as a crash.

import Foundation
import FuzzSupport
import Larder
import LarderDocuments

#if canImport(Glibc)
import Glibc
#endif

/// Writes a line to standard output at once (not buffered: a crash must not lose it).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// The target a libFuzzer build runs, named by the environment.
nonisolated(unsafe) private var libFuzzerTarget: FuzzTarget?

@_cdecl("LLVMFuzzerInitialize")
public func fuzzerInitialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    let name = ProcessInfo.processInfo.environment["LARDER_FUZZ_TARGET"] ?? ""
    guard let target = FuzzTarget.all.first(where: { $0.name == name }) else {
        say("LARDER_FUZZ_TARGET must name one of: \(FuzzTarget.all.map(\.name).joined(separator: ", "))")
        exit(2)
    }
    libFuzzerTarget = target
    // The seeds, into the corpus folder libFuzzer is about to read.
    if let folder = ProcessInfo.processInfo.environment["LARDER_FUZZ_SEEDS"] {
        try? writeSeeds(of: target, to: URL(fileURLWithPath: folder))
    }
    return 0
}

/// Writes the seeds of `target` into `folder`, one file each.
func writeSeeds(of target: FuzzTarget, to folder: URL) throws {
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    for (number, seed) in target.seeds().enumerated() {
        try Data(seed).write(to: folder.appendingPathComponent("seed-\(number)"))
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let target = libFuzzerTarget else { return 0 }
    let input = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    if let failure = FuzzRun.check(target, input) {
        say("FAILURE \(failure)")
        abort()
    }
    return 0
}

#if LARDER_LIBFUZZER
/// libFuzzer's driver: runs LLVMFuzzerTestOneInput on the inputs it generates, as its own
/// `main` would (SwiftPM gives an executable the entry point, so this one calls the driver).
@_silgen_name("LLVMFuzzerRunDriver")
func runLibFuzzer(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                  _ test: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt

@main
struct LarderFuzz {
    static func main() {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(runLibFuzzer(&argc, &argv, fuzzerTestOneInput))
    }
}
#else
@main
struct LarderFuzz {
    static func main() throws {
        let arguments = Arguments(CommandLine.arguments.dropFirst())
        if let folder = arguments["--write-seeds"] {
            for target in FuzzTarget.all { try writeSeeds(of: target, to: URL(fileURLWithPath: folder).appendingPathComponent(target.name)) }
            return
        }
        let targets = try arguments["--target"].map { name in
            guard let target = FuzzTarget.all.first(where: { $0.name == name }) else {
                throw ArgumentError("no target \(name): \(FuzzTarget.all.map(\.name).joined(separator: ", "))")
            }
            return [target]
        } ?? FuzzTarget.all
        if let path = arguments["--replay"] {
            exit(try replay(path, targets: targets) ? 0 : 1)
        }
        let count = Int(arguments["--inputs"] ?? "") ?? 1_000_000
        let seed = UInt64(arguments["--seed"] ?? "") ?? UInt64.random(in: 0 ... UInt64.max)
        let out = URL(fileURLWithPath: arguments["--out"] ?? "fuzz-failures")
        var failed = false
        for target in targets {
            say("\(target.name): \(count) inputs, seed \(seed)")
            CrashKeeper.prepare(file: out.appendingPathComponent(target.name).appendingPathComponent("crashed-seed-\(seed)"))
            var started = 0
            let summary = FuzzRun.mutating(target, inputs: count, seed: seed) { input in
                CrashKeeper.keep(input)
                started += 1
                if started % 100_000 == 0 { say("\(target.name): \(started) inputs") }
            }
            CrashKeeper.finish()
            for failure in summary.failures {
                failed = true
                let file = try FuzzCorpus.save(failure.input, of: target.name, in: out)
                say("FAILURE \(failure)\n  saved to \(file.path)")
            }
            let seconds = Double(summary.elapsed.components.seconds) + Double(summary.elapsed.components.attoseconds) / 1e18
            say("\(target.name): \(summary.inputs) inputs (\(summary.accepted) accepted) in \(String(format: "%.1f", seconds)) s, "
                  + "\(summary.failures.count) failures")
        }
        exit(failed ? 1 : 0)
    }

    /// Runs the inputs in `path` (a file, or a folder of them); true when none fails.
    static func replay(_ path: String, targets: [FuzzTarget]) throws -> Bool {
        var isFolder: ObjCBool = false
        _ = FileManager.default.fileExists(atPath: path, isDirectory: &isFolder)
        let files = isFolder.boolValue ? try FileManager.default.contentsOfDirectory(atPath: path).sorted().map { path + "/" + $0 } : [path]
        var passed = true
        for target in targets {
            for file in files {
                let input = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
                if let failure = FuzzRun.check(target, input) {
                    passed = false
                    say("FAILURE \(file)\n\(failure)")
                }
            }
        }
        return passed
    }
}

#endif
