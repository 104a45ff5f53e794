// LarderEtcdWorker: a client process of an etcd store, for the tests that kill a client or run
// several at once (Tests/LarderEtcdTests/EtcdClientProcessTests.swift). ENDPOINTS is a
// comma-separated list of client URLs; every command prints its result as lines on stdout.
//
//   big-save ENDPOINTS PREFIX COUNT STOP   insert COUNT items in one save, staged (small limits);
//                                          print "saving" before it and "saved" after; with STOP
//                                          (staging, publishing or rolling:N) the staged commit
//                                          stops there, the worker prints "stopped" and waits to
//                                          be killed; with "none" it runs to the end
//   check ENDPOINTS PREFIX COUNT GRACE     open a fresh client (removing unpublished staging
//                                          older than GRACE seconds); print "all", "none" or
//                                          what is wrong with the items it sees
//   seed-counter ENDPOINTS PREFIX          make the counter, at 0; print "seeded"
//   increment ENDPOINTS PREFIX TIMES PAUSE print "ready", wait for a line on stdin, then TIMES
//                                          times: read the counter, add one, save; on a conflict
//                                          (the counter then shows the other's save) retry; after a save, pause
//                                          up to PAUSE milliseconds (at random), as a client
//                                          between requests. Print "ack V" for each saved value
//                                          V, "conflicts C" at the end
//   read-counter ENDPOINTS PREFIX          print "counter V"

import Foundation
import Larder
import LarderEtcd

/// One object of the big save: its number, and a text made from it.
final class EtcdWorkerItem: StoredObject {
    @Stored var number: UInt64 = 0
    @Stored var text = ""

    override class var indexes: [ObjectIndex] { [ObjectIndex(\EtcdWorkerItem.number, unique: true)] }

    static func text(of number: UInt64) -> String {
        "item \(number), " + String(repeating: "\(number % 10)", count: 8)
    }

    override func writeContent(to buffer: inout DataBuffer) {
        buffer.write(number)
        buffer.write(text)
    }

    override func readContent(from buffer: inout DataBuffer, in store: Store) throws {
        number = try buffer.readUInt64()
        text = try buffer.readString()
    }
}

/// The counter the increment workers share.
final class EtcdWorkerCounter: StoredObject {
    @Stored var value: UInt64 = 0

    override func writeContent(to buffer: inout DataBuffer) {
        buffer.write(value)
    }

    override func readContent(from buffer: inout DataBuffer, in store: Store) throws {
        value = try buffer.readUInt64()
    }
}

/// Prints a line at once, unbuffered: the parent reads it while this process runs.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

struct WorkerFailure: Error, CustomStringConvertible {
    let description: String
}

/// Small limits, so that a save of a few hundred objects (a page holds 32) is a staged commit of
/// many transactions.
let smallLimits = EtcdLimits(maximumOperations: 2, maximumRequestBytes: 8192)

func openStore(_ endpoints: String, _ prefix: String, limits: EtcdLimits = .etcdDefaults,
               stagingGracePeriod: Double = 600) throws -> (Store, EtcdBackend) {
    let backend = try EtcdBackend(endpoints: endpoints.split(separator: ",").map(String.init), prefix: prefix,
                                  limits: limits, stagingGracePeriod: stagingGracePeriod)
    let store = try Store(backend: backend)
    try store.register(EtcdWorkerItem.self)
    try store.register(EtcdWorkerCounter.self)
    return (store, backend)
}

func stop(named name: String) throws -> StagedCommitInterruption? {
    switch name {
    case "none": return nil
    case "staging": return .afterStaging
    case "publishing": return .afterPublishing
    default:
        guard name.hasPrefix("rolling:"), let count = Int(name.dropFirst("rolling:".count)) else {
            throw WorkerFailure(description: "unknown stop '\(name)'")
        }
        return .afterRollingForward(transactions: count)
    }
}

func bigSave(_ endpoints: String, _ prefix: String, count: Int, stopName: String) throws {
    let (store, backend) = try openStore(endpoints, prefix, limits: smallLimits)
    backend.interruption = try stop(named: stopName)
    for number in 0 ..< UInt64(count) {
        let item = EtcdWorkerItem()
        item.number = number
        item.text = EtcdWorkerItem.text(of: number)
        try store.insert(item)
    }
    say("saving")
    do {
        try store.saveChanges()
    } catch is StagedCommitInterrupted {
        say("stopped")
        // The parent kills this process now: it never goes on from here. Should the parent be
        // gone (an orphan is adopted by another process), it ends: a worker never outlives its test.
        let parent = getppid()
        while getppid() == parent { usleep(100_000) }
        exit(3)
    }
    say("saved")
}

func check(_ endpoints: String, _ prefix: String, count: Int, gracePeriod: Double) throws -> String {
    let (store, _) = try openStore(endpoints, prefix, stagingGracePeriod: gracePeriod)
    let items = try store.allObjects(of: EtcdWorkerItem.self)
    let counted = try store.count(of: EtcdWorkerItem.self)
    if items.isEmpty, counted == 0 { return "none" }
    guard items.count == count, counted == count else {
        return "partial: \(items.count) items read, \(counted) counted, of \(count)"
    }
    let numbers = Set(items.map(\.number))
    guard numbers == Set(0 ..< UInt64(count)) else { return "wrong numbers: \(numbers.count) distinct" }
    if let wrong = items.first(where: { $0.text != EtcdWorkerItem.text(of: $0.number) }) {
        return "wrong text in item \(wrong.number)"
    }
    return "all"
}

func counter(in store: Store) throws -> EtcdWorkerCounter {
    guard let counter = try store.allObjects(of: EtcdWorkerCounter.self).first else {
        throw WorkerFailure(description: "no counter")
    }
    return counter
}

func increment(_ endpoints: String, _ prefix: String, times: Int, pauseMilliseconds: Int) throws {
    let (store, _) = try openStore(endpoints, prefix)
    say("ready")
    _ = readLine()
    var conflicts = 0
    var saved = 0
    while saved < times {
        let counter = try counter(in: store)
        counter.value += 1
        do {
            try store.saveChanges()
            say("ack \(counter.value)")
            saved += 1
            usleep(UInt32(Int.random(in: 0 ... max(0, pauseMilliseconds)) * 1000))
        } catch StoreError.conflict {
            // Another process saved the counter first: the save took that in, dropped this
            // change, and the counter shows the other's value. Add one to it and save again.
            conflicts += 1
        }
    }
    say("conflicts \(conflicts)")
}

let arguments = CommandLine.arguments
func argument(_ index: Int) throws -> String {
    guard index < arguments.count else { throw WorkerFailure(description: "missing argument \(index)") }
    return arguments[index]
}
func number(_ index: Int) throws -> Int {
    guard let value = Int(try argument(index)) else { throw WorkerFailure(description: "argument \(index) is not a number") }
    return value
}

do {
    let endpoints = try argument(2), prefix = try argument(3)
    switch try argument(1) {
    case "big-save":
        try bigSave(endpoints, prefix, count: number(4), stopName: argument(5))
    case "check":
        say(try check(endpoints, prefix, count: number(4), gracePeriod: Double(number(5))))
    case "seed-counter":
        let (store, _) = try openStore(endpoints, prefix)
        try store.insert(EtcdWorkerCounter())
        try store.saveChanges()
        say("seeded")
    case "increment":
        try increment(endpoints, prefix, times: number(4), pauseMilliseconds: number(5))
    case "read-counter":
        let (store, _) = try openStore(endpoints, prefix)
        say("counter \(try counter(in: store).value)")
    default:
        throw WorkerFailure(description: "unknown command")
    }
} catch {
    say("error \(error)")
    exit(1)
}
