// ConcurrencyRun: the Concurrency workload's scenarios and the loop that runs them, the same for
// every engine (Larder's StorePool, GRDB's DatabasePool): each engine hands in its read, write
// and read-back as async closures, and this file starts the reader and writer tasks, counts what
// they completed in a fixed wall time, checks what they read, and prints the RESULT lines.
//
// Scenarios, for each operation (`point`: one read of one song by rowID and its title;
// `fetch20`: one read of 20 songs of consecutive rowIDs and their titles): 1 reader, 2 readers,
// 1 reader and a writer, 2 readers and a writer. A reader is a task calling the engine's async
// read in a loop, at random places (a seeded generator per reader); the writer is a task calling
// the engine's async write in a loop, each retitling one random song (one save, one transaction).
//
// RESULT lines: phase `<operation>_<readers>r` (`_w` with the writer); wall and cpu are the
// scenario's wall time and process CPU time divided by the reads completed (all readers
// together: the time per read, the inverse of the throughput), count is the reads completed.
// With a writer, phase `<…>_w_writes` is the same for the writes. Every phase's check is the
// number of songs in the store, read back after the last scenario.

import Foundation
import LarderTestSupport
import Synchronization

/// The Concurrency workload's scenarios and loop.
public enum ConcurrencyRun {
    /// What one read does.
    public enum Operation: String, CaseIterable, Sendable {
        /// One song by rowID, its title read.
        case point
        /// 20 songs of consecutive rowIDs, their titles read.
        case fetch20

        /// The songs one read fetches.
        public var length: Int { self == .point ? 1 : 20 }
    }

    /// One measured configuration of readers and writer.
    public struct Scenario: Sendable {
        public let operation: Operation
        public let readers: Int
        public let writer: Bool

        public init(operation: Operation, readers: Int, writer: Bool) {
            self.operation = operation
            self.readers = readers
            self.writer = writer
        }

        /// The RESULT phase: `point_1r`, `point_2r_w`, …
        public var phase: String { "\(operation.rawValue)_\(readers)r" + (writer ? "_w" : "") }
        /// The RESULT phase of the writer's writes (with a writer).
        public var writesPhase: String { phase + "_writes" }
    }

    /// Every scenario, in the order they run: for each operation, 1 and 2 readers, then the
    /// same with the writer.
    public static let allScenarios: [Scenario] = Operation.allCases.flatMap { operation in
        [(1, false), (2, false), (1, true), (2, true)].map { Scenario(operation: operation, readers: $0.0, writer: $0.1) }
    }

    /// The scenarios a run runs: all of them, or with `CONCURRENCY_PHASES=point_1r_w,…` in the
    /// environment only those (to profile one with perf).
    public static var scenarios: [Scenario] {
        guard let only = ProcessInfo.processInfo.environment["CONCURRENCY_PHASES"] else { return allScenarios }
        let phases = Set(only.split(separator: ",").map(String.init))
        return allScenarios.filter { phases.contains($0.phase) }
    }

    /// What a scenario completed.
    public struct Outcome: Sendable {
        public var reads = 0
        public var writes = 0
        /// Wall time from starting the tasks to the last one's end, in seconds.
        public var wall = 0.0
        /// Process CPU time meanwhile (readers, writer and the engine's own threads).
        public var cpu = 0.0
    }

    /// How long a reader reads before it yields, in nanoseconds (nil: never): 20 µs, or
    /// `CONCURRENCY_YIELD_MICROSECONDS` from the environment (0: after every read);
    /// `CONCURRENCY_NO_YIELD` set: never.
    public static var yieldInterval: UInt64? {
        let environment = ProcessInfo.processInfo.environment
        guard environment["CONCURRENCY_NO_YIELD"] == nil else { return nil }
        let microseconds = environment["CONCURRENCY_YIELD_MICROSECONDS"].flatMap { UInt64($0) } ?? 20
        return microseconds * 1000
    }

    /// Runs `scenario` for about `seconds` on a store of `songs` songs (rowIDs 1...songs).
    ///
    /// - `read(first, length)`: one read of the songs `first ..< first + length`, returning how
    ///   many of them it found with a non-empty title (anything but `length` fails the run).
    /// - `write(rowID, title)`: one write retitling the song `rowID`.
    /// - `title(rowID)`: the song's title, read after the tasks end (the writer's last title
    ///   must be there).
    ///
    /// Every task completes at least one operation, then goes on until the time is up.
    ///
    /// The tasks run on the cooperative pool, which has as many threads as cores (2 here): 2
    /// readers and a writer are 3 tasks on 2 threads. A reader whose read never suspends
    /// (Larder's, when a read context is free: it runs inline on the task's thread) would keep
    /// its thread until the time is up, and the writer, whose write resumes it from the
    /// engine's queue, would wait for a thread for the whole scenario. So a reader yields
    /// (`Task.yield()`) once it has read for ``yieldInterval`` since its last yield, on every
    /// engine alike, and the writer waits at most that long for a thread.
    ///
    /// A yield after every read (how this loop began) measured Swift's scheduler more than the
    /// engines: a yield costs about 2 µs on the 2-core VM this runs on, twice a Larder point
    /// read, and each wakes a second worker thread, so one reader kept 1.4 cores busy and a
    /// writer's saves competed with the scheduler's own work. `CONCURRENCY_YIELD_MICROSECONDS=0`
    /// brings that back; `CONCURRENCY_NO_YIELD=1` never yields (the engines' read paths alone;
    /// with 2 readers and Larder's writer, the writer then all but stops).
    public static func run(_ scenario: Scenario, songs: Int, seconds: Double,
                           read: @escaping @Sendable (_ first: Int64, _ length: Int) async throws -> Int,
                           write: @escaping @Sendable (_ rowID: Int64, _ title: String) async throws -> Void,
                           title: @escaping @Sendable (_ rowID: Int64) async throws -> String?) async throws -> Outcome {
        let length = scenario.operation.length
        let yieldAfter = yieldInterval
        let starts = UInt64(max(1, songs - length + 1))
        let startWall = DispatchTime.now().uptimeNanoseconds
        let startCPU = SpeedReporter.cpuSeconds()
        let deadline = startWall + UInt64(seconds * 1e9)

        struct TaskCount: Sendable {
            var reads = 0
            var writes = 0
            var lastWrite: (rowID: Int64, title: String)?
        }
        let counts = try await withThrowingTaskGroup(of: TaskCount.self) { group in
            for reader in 0 ..< scenario.readers {
                group.addTask {
                    var generator = SplitMix(seed: 0xC0_2C0 &+ UInt64(reader))
                    var count = TaskCount()
                    var lastYield = DispatchTime.now().uptimeNanoseconds
                    var now = lastYield
                    repeat {
                        let first = Int64(generator.next(below: starts)) + 1
                        let found = try await read(first, length)
                        guard found == length else {
                            throw ConcurrencyFailure("\(scenario.phase): a read of \(length) songs from \(first) found \(found) with a title")
                        }
                        count.reads += 1
                        now = DispatchTime.now().uptimeNanoseconds
                        if let yieldAfter, now &- lastYield >= yieldAfter {
                            await Task.yield()
                            now = DispatchTime.now().uptimeNanoseconds
                            lastYield = now
                        }
                    } while now < deadline
                    return count
                }
            }
            if scenario.writer {
                group.addTask {
                    var generator = SplitMix(seed: 0x3_1273)
                    var count = TaskCount()
                    repeat {
                        let rowID = Int64(generator.next(below: UInt64(songs))) + 1
                        let title = "Retitled \(rowID) \(count.writes)"
                        try await write(rowID, title)
                        count.writes += 1
                        count.lastWrite = (rowID, title)
                    } while DispatchTime.now().uptimeNanoseconds < deadline
                    return count
                }
            }
            var total = TaskCount()
            for try await count in group {
                total.reads += count.reads
                total.writes += count.writes
                total.lastWrite = count.lastWrite ?? total.lastWrite
            }
            return total
        }
        var outcome = Outcome(reads: counts.reads, writes: counts.writes)
        outcome.wall = Double(DispatchTime.now().uptimeNanoseconds - startWall) / 1e9
        outcome.cpu = SpeedReporter.cpuSeconds() - startCPU
        if let last = counts.lastWrite {
            let stored = try await title(last.rowID)
            guard stored == last.title else {
                throw ConcurrencyFailure("\(scenario.phase): song \(last.rowID) reads \(stored ?? "nothing") after the writer set \(last.title)")
            }
        }
        return outcome
    }
}

/// A Concurrency run that read or wrote something wrong.
public struct ConcurrencyFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

extension SpeedReporter {
    /// Prints the RESULT lines of a Concurrency scenario (see ConcurrencyRun): the time per
    /// read, and with a writer the time per write; `songs` is the store's song count read back
    /// after the last scenario.
    public func reportConcurrency(_ scenario: ConcurrencyRun.Scenario, _ outcome: ConcurrencyRun.Outcome,
                                  songs: Int, storePath: String) {
        let reads = Double(max(1, outcome.reads))
        report(phase: scenario.phase, wall: outcome.wall / reads, cpu: outcome.cpu / reads, storePath: storePath,
               count: outcome.reads, check: "songs_\(songs)")
        guard scenario.writer else { return }
        let writes = Double(max(1, outcome.writes))
        report(phase: scenario.writesPhase, wall: outcome.wall / writes, cpu: outcome.cpu / writes, storePath: storePath,
               count: outcome.writes, check: "songs_\(songs)")
    }
}

/// Runs `body` on a task of the cooperative pool and waits for it on this thread (a workload's
/// synchronous main thread, which is not one of the pool's), returning its result or throwing
/// its error.
public func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let result = Mutex<Result<T, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        do {
            let value = try await body()
            result.withLock { $0 = .success(value) }
        } catch {
            result.withLock { $0 = .failure(error) }
        }
        done.signal()
    }
    done.wait()
    return try result.withLock { $0! }.get()
}
