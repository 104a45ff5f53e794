// SpeedRun: what every speed-test executable shares: its command line, the workload names and
// sizes, timing of phases (wall and CPU), peak memory, store size, and the one-line
// machine-readable result format that SpeedCompare reads.
//
// Command line:  <Engine>SpeedTest <Workload> --dir PATH [--scale S] [--durability full|nosync]
// Output:        one line per timed phase:
//   RESULT engine=<e> workload=<w> phase=<p> durability=<d> wall=<s> cpu=<s> rss_kb=<n> size_bytes=<n> count=<n> check=<text>

import LarderTestSupport
import Foundation

/// The workloads, as named on the command line.
public enum Workload: String, CaseIterable, Sendable {
    case complexInsert = "ComplexInsert"
    case complexFetch = "ComplexFetch"
    case simpleInsert = "SimpleInsert"
    case simpleFetch = "SimpleFetch"
    case simpleFetchStreaming = "SimpleFetchStreaming"
    case simpleUpdate = "SimpleUpdate"
    case pointRead = "PointRead"
    case fullText = "FullText"
    case documents = "Documents"
    /// Larder's object queries through declared indexes, against SQLite with the same indexes
    /// and against LarderDocuments on the same data (see QuerySongs).
    case queries = "Queries"
    /// Larder only: the same songs inserted and fetched in a plaintext and an encrypted store,
    /// the key derived before the clock starts (the cost of per-record encryption).
    case encryption = "Encryption"
    /// Larder only: ComplexInsert rounds and SimpleUpdate's save in a plain store, one with an
    /// active change-feed subscriber, and one whose songs keep history (their costs).
    case changes = "Changes"
    /// Throughput of 1 and 2 concurrent readers (point reads, reads of 20 consecutive songs),
    /// with and without a writer saving in a loop: Larder's StorePool against GRDB's
    /// DatabasePool (see ConcurrencyRun).
    case concurrency = "Concurrency"
    /// Larder only: SimpleInsert and SimpleFetch's songs as the hand-written Song and as its
    /// @StoredModel twin (the macro's cost).
    case model = "Model"
}

/// Sizes at SCALE=1 (BNRPersistence's), scaled.
public struct WorkloadSizes: Sendable {
    public let scale: Double
    public init(scale: Double) { self.scale = scale }
    private func scaled(_ n: Int) -> Int { max(1, Int((Double(n) * scale).rounded())) }
    /// Songs per ComplexInsert round (100,000).
    public var complexSongs: Int { scaled(100_000) }
    /// Playlists per ComplexInsert round (1,000); each holds 100 consecutive songs.
    public var complexPlaylists: Int { max(1, complexSongs / 100) }
    public var songsPerPlaylist: Int { 100 }
    /// ComplexInsert rounds into the same store (10, not scaled).
    public var complexRounds: Int { 10 }
    /// Songs in SimpleInsert (1,000,000).
    public var simpleSongs: Int { scaled(1_000_000) }
    /// Random lookups in PointRead (100,000).
    public var pointReads: Int { scaled(100_000) }
    /// Song titles in FullText (1,000,000).
    public var fullTextTitles: Int { scaled(1_000_000) }
    /// User documents in Documents (1,000,000).
    public var documents: Int { scaled(1_000_000) }
    /// Songs in Queries (1,000,000), in albums of about 100.
    public var querySongs: Int { scaled(1_000_000) }
    /// Songs in each store of Encryption (300,000).
    public var encryptionSongs: Int { scaled(300_000) }
    /// Songs in the Concurrency store (100,000).
    public var concurrencySongs: Int { max(ConcurrencyRun.Operation.fetch20.length, scaled(100_000)) }
    /// How long each Concurrency scenario runs, in seconds: 1.5 from scale 0.1 up (a rate
    /// needs no more songs, only time), shorter below so that the smoke test stays quick
    /// (0.015 s at scale 0.001).
    public var concurrencySeconds: Double { 1.5 * min(1, scale * 10) }
}

/// A parsed command line.
public struct SpeedArguments: Sendable {
    public let workload: Workload
    public let directory: String
    public let sizes: WorkloadSizes
    /// "full" or "nosync".
    public let durability: String

    /// Parses `CommandLine.arguments`; prints usage and exits with 2 on a bad command line.
    public static func parse(engine: String) -> SpeedArguments {
        var arguments = Array(CommandLine.arguments.dropFirst())
        func usage() -> Never {
            FileHandle.standardError.write(Data("usage: \(engine)SpeedTest <\(Workload.allCases.map(\.rawValue).joined(separator: "|"))> --dir PATH [--scale S] [--durability full|nosync]\n".utf8))
            exit(2)
        }
        guard let first = arguments.first, let workload = Workload(rawValue: first) else { usage() }
        arguments.removeFirst()
        var directory: String?
        var scale = 1.0
        var durability = "full"
        while !arguments.isEmpty {
            let flag = arguments.removeFirst()
            guard !arguments.isEmpty else { usage() }
            let value = arguments.removeFirst()
            switch flag {
            case "--dir": directory = value
            case "--scale": scale = Double(value) ?? 0
            case "--durability": durability = value
            default: usage()
            }
        }
        guard let directory, scale > 0, ["full", "nosync"].contains(durability) else { usage() }
        return SpeedArguments(workload: workload, directory: directory, sizes: WorkloadSizes(scale: scale),
                              durability: durability)
    }
}

/// Times phases and prints their results.
public struct SpeedReporter: Sendable {
    public let engine: String
    public let arguments: SpeedArguments

    public init(engine: String, arguments: SpeedArguments) {
        self.engine = engine
        self.arguments = arguments
    }

    /// Runs `body`, then prints its RESULT line. `body` returns the number of objects it
    /// handled and a short check string (e.g. a title it read) so a run can be checked.
    /// `storePath` is measured for size after the phase (a file or a directory).
    public func measure(phase: String, storePath: String, _ body: () throws -> (count: Int, check: String)) rethrows {
        let timing = try timed(body)
        report(phase: phase, wall: timing.wall, cpu: timing.cpu, storePath: storePath, count: timing.count, check: timing.check)
    }

    /// User + system CPU time of this process, in seconds.
    public static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }

    /// Peak resident set size of this process, in kilobytes.
    public static func peakRSSKilobytes() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Int(usage.ru_maxrss)
    }

    /// Bytes on disk of a file, or of every file below a directory.
    public static func size(of path: String) -> Int {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return 0 }
        func fileSize(_ path: String) -> Int {
            var info = stat()
            return stat(path, &info) == 0 ? Int(info.st_blocks) * 512 : 0
        }
        guard isDirectory.boolValue else { return fileSize(path) }
        let names = (try? FileManager.default.subpathsOfDirectory(atPath: path)) ?? []
        return names.reduce(0) { $0 + fileSize((path as NSString).appendingPathComponent($1)) }
    }
}

/// The deterministic order of PointRead lookups: `count` rowIDs in 1...`max`, seeded.
public func pointReadKeys(count: Int, max: Int) -> [Int64] {
    var generator = SplitMix(seed: 0x5eed)
    return (0 ..< count).map { _ in Int64(generator.next(below: UInt64(max))) + 1 }
}
