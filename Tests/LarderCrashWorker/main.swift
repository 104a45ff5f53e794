// LarderCrashWorker: a child process for the tests that need another process.
//
//   run PATH full|nosync ACKFILE   save units of work forever, appending each acknowledged
//                                  save number to ACKFILE (the parent kills it with SIGKILL)
//   check PATH                     reopen, check the invariant (objects, indexes, sequence number,
//                                  change log and history); print "ok SAVES" or the violation
//   verify PATH                    open and verify; print "healthy", "problems N" or "error ..."
//   hold PATH                      open for writing, print "ready", wait for a line on stdin
//   read PATH                      open read-only, print "read COUNT" or "error ..."
//   write PATH                     open for writing, print "opened" or "error ..."
//   populate PATH SAVES            make SAVES saves and write named buffers, so that every kind
//                                  of file holds records; print "populated SAVES"
//   interchange-scale DIR N [MB]   the interchange at scale (InterchangeScale.swift)
//   trap PATH                      stop on a trap (for the test that shows its message is kept)
//   hang PATH                      never answer (for the test that shows a deadline ends it)

import Foundation
import Larder

/// Prints a line at once, unbuffered: the parent reads it while this process runs.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    say("usage: LarderCrashWorker run|check|verify|hold|read|write|populate|trap|hang|compact PATH ...")
    exit(2)
}
let path = arguments[2]

func openStore(_ configuration: Store.Configuration = .init()) throws -> Store {
    let store = try Store(path: path, configuration: configuration)
    for type in crashModel { try store.register(type) }
    return store
}

/// One unit of work: new triples, sometimes the oldest triple deleted, the counter advanced.
func saveOnce(_ store: Store, counter: CrashCounter) throws -> UInt64 {
    let number = counter.saves + 1
    let tripleCount: UInt64 = number % 7 == 0 ? 60 : 1
    var live = counter.live
    for index in 0 ..< tripleCount {
        let value = number * 1_000 + index
        let a = CrashA(), b = CrashB(), c = CrashC()
        a.value = value
        a.payload = String(repeating: "x", count: Int(value % 200))
        b.value = value
        c.value = value
        a.b = b
        a.c = c
        b.a = a
        c.b = b
        live.append(a)
    }
    if number % 4 == 0, live.count > 1 {
        let oldest = live.removeFirst()
        if let b = oldest.b { try store.delete(b) }
        if let c = oldest.c { try store.delete(c) }
        try store.delete(oldest)
    }
    counter.live = live
    counter.saves = number
    try store.saveChanges()
    return number
}

func run() throws {
    guard arguments.count >= 5 else { throw StoreError.closed }
    var configuration = Store.Configuration()
    configuration.durability = arguments[3] == "full" ? .full : .noSync
    let acks = try FileHandle(forWritingTo: URL(fileURLWithPath: arguments[4]))
    acks.seekToEndOfFile()
    let store: Store
    if arguments.count >= 6, arguments[5] == "shadow" {
        // Every save's class files through shadow copies, not the undo log.
        let backend = try TokyoCabinetBackend(path: path, configuration: configuration.backend)
        backend.shadowCopyPolicy = .always
        store = try Store(backend: backend, configuration: configuration)
        for type in crashModel { try store.register(type) }
    } else {
        store = try openStore(configuration)
    }
    let counter: CrashCounter
    if let existing = try store.object(of: CrashCounter.self, rowID: 1) {
        counter = existing
    } else {
        counter = CrashCounter()
        try store.insert(counter)
        try store.saveChanges()
    }
    // Until killed, or until the test that started it is gone (an orphan is adopted by
    // another process): a worker must never outlive its test.
    let parent = getppid()
    while getppid() == parent {
        let number = try saveOnce(store, counter: counter)
        acks.write(Data("\(number)\n".utf8))
    }
}

/// Makes `saves` saves and a named buffer for every tenth, then closes the store.
func populate(saves: UInt64) throws -> String {
    let store = try openStore()
    let counter = CrashCounter()
    // A save of its own, as `run` makes it: the checks count it.
    try store.insert(counter)
    try store.saveChanges()
    for _ in 0 ..< saves {
        let number = try saveOnce(store, counter: counter)
        guard number % 10 == 0 else { continue }
        var note = DataBuffer()
        note.write("notes taken at save \(number), long enough to find in the file")
        note.write(number)
        try store.setDataBuffer(note, forName: "note \(number)")
    }
    try store.close()
    return "populated \(saves)"
}

/// Checks the invariant; returns the number of the last save in the store.
func check() throws -> String {
    let store = try openStore()
    guard let counter = try store.object(of: CrashCounter.self, rowID: 1) else {
        guard store.changeSequence == 0 else { return "violation: sequence \(store.changeSequence) without a save" }
        return try store.count(of: CrashA.self) == 0 ? "ok 0" : "violation: objects without a counter"
    }
    let aValues = try store.allObjects(of: CrashA.self).map(\.value)
    let bValues = try store.allObjects(of: CrashB.self).map(\.value)
    let cValues = try store.allObjects(of: CrashC.self).map(\.value)
    guard aValues == bValues, bValues == cValues else {
        return "violation: classes disagree (\(aValues.count) A, \(bValues.count) B, \(cValues.count) C)"
    }
    guard counter.live.map(\.value) == aValues else {
        return "violation: counter lists \(counter.live.count) live objects, store has \(aValues.count)"
    }
    let lastSave = aValues.map { $0 / 1_000 }.max() ?? 0
    guard lastSave == counter.saves || (counter.saves > 0 && aValues.isEmpty) else {
        return "violation: counter at \(counter.saves), newest object from save \(lastSave)"
    }
    for a in try store.allObjects(of: CrashA.self) {
        guard a.b?.value == a.value, a.c?.value == a.value, a.b?.a === a, a.c?.b === a.b,
              a.payload.count == Int(a.value % 200) else {
            return "violation: triple \(a.value) is inconsistent"
        }
    }
    let report = try store.verify()
    guard report.isHealthy else { return "violation: \(report.problems)" }
    if let violation = try checkTextSearch(store) { return violation }
    if let violation = try checkQueries(store, values: bValues) { return violation }
    if let violation = try checkChangeLog(store, counter: counter) { return violation }
    if let violation = try checkHistory(store, counter: counter) { return violation }
    try store.close()
    return "ok \(counter.saves)"
}

/// Queries through CrashB's and CrashC's indexes must give what a filter over the values gives.
func checkQueries(_ store: Store, values: [UInt64]) throws -> String? {
    guard let middle = values.dropFirst(values.count / 2).first else { return nil }
    let above = try store.objects(of: CrashB.self, where: \.value >= middle).map(\.value)
    if above != values.filter({ $0 >= middle }) { return "violation: index query found \(above.count) B objects" }
    if try store.count(of: CrashC.self, where: \.value < middle) != values.filter({ $0 < middle }).count {
        return "violation: index count of C objects disagrees"
    }
    let newest = try store.objects(of: CrashC.self, orderBy: [.descending(\.value)], limit: 3).map(\.value)
    if newest != Array(values.sorted(by: >).prefix(3)) { return "violation: ordered index query found \(newest)" }
    return nil
}

/// The sequence number must count exactly the commits whose effects are in the store: the
/// counter's own save, one per unit of work, one per named buffer (each written once, never
/// removed). And the newest change that saved objects must be the counter's last save: the
/// A objects it inserted are exactly those of that save's number, so no change record without
/// its save and no save without its change record.
func checkChangeLog(_ store: Store, counter: CrashCounter) throws -> String? {
    let sequence = store.changeSequence
    let expected = counter.saves + 1 + UInt64(try store.dataBufferNames().count)
    guard sequence == expected else {
        return "violation: sequence \(sequence), but \(counter.saves) saves and the buffers make \(expected) commits"
    }
    let recent = try store.changes(since: sequence - min(sequence, 4))
    guard let last = recent.last(where: { !$0.classNames.isEmpty }) else {
        return "violation: no change in the log saved objects (\(recent))"
    }
    let newest = try store.allObjects(of: CrashA.self).filter { $0.value / 1_000 == counter.saves }.map(\.rowID)
    let counterRows = last.inserted(of: CrashCounter.self) + last.updated(of: CrashCounter.self)
    guard last.inserted(of: CrashA.self) == newest, counterRows == [1] else {
        return "violation: change \(last.sequence) inserted A \(last.inserted(of: CrashA.self)), save \(counter.saves) made \(newest)"
    }
    return nil
}

/// No version without its save, no save without its version: the counter has one version per
/// save that wrote it (its insert, then one per unit of work), the last equal to the counter;
/// each C object still alive has its one version, equal to it, and each deleted one its version
/// and its deletion; no version names a save after the store's sequence number.
func checkHistory(_ store: Store, counter: CrashCounter) throws -> String? {
    let sequence = store.changeSequence
    let versions = try store.history(of: counter)
    guard versions.count == Int(counter.saves) + 1 else {
        return "violation: the counter has \(versions.count) versions after \(counter.saves) saves"
    }
    guard let last = versions.last?.object, last.saves == counter.saves, last.live.map(\.rowID) == counter.live.map(\.rowID) else {
        return "violation: the counter's last version is not the counter"
    }
    guard zip(versions, versions.dropFirst()).allSatisfy({ $0.sequence < $1.sequence }),
          let newest = versions.last?.sequence, newest <= sequence else {
        return "violation: the counter's versions are out of order or after save \(sequence)"
    }
    let live = Dictionary(uniqueKeysWithValues: try store.allObjects(of: CrashC.self).map { ($0.rowID, $0.value) })
    for rowID in stride(from: 1, through: live.keys.max() ?? 0, by: 1) {
        let versions = try store.history(of: CrashC.self, rowID: rowID)
        guard versions.allSatisfy({ $0.sequence <= sequence }) else { return "violation: C \(rowID) has a version after save \(sequence)" }
        if let value = live[rowID] {
            guard versions.count == 1, versions[0].object?.value == value else {
                return "violation: live C \(rowID) has \(versions.count) versions, not its one"
            }
        } else {
            guard versions.count == 2, versions[0].object != nil, versions[1].isDeletion else {
                return "violation: deleted C \(rowID) has \(versions.count) versions, not its insert and deletion"
            }
        }
    }
    return nil
}

/// Full-text searches over CrashA's labels must give what a filter over the objects gives.
func checkTextSearch(_ store: Store) throws -> String? {
    let objects = try store.allObjects(of: CrashA.self)
    func tokens(_ a: CrashA) -> [Substring] { a.label.split(separator: " ") }
    let searches: [(String, (CrashA) -> Bool)] = [
        ("[[alpha]]", { tokens($0).contains("alpha") }),
        ("beta || gamma", { $0.label.contains("beta") || $0.label.contains("gamma") }),
        ("\"alpha beta\"", { $0.label.contains("alpha beta") }),
        ("[[item1*]] !! [[eta]]", { a in tokens(a).contains { $0.hasPrefix("item1") } && !tokens(a).contains("eta") }),
        ("[[*ta]]", { a in tokens(a).contains { $0.hasSuffix("ta") } }),
    ]
    for (query, predicate) in searches {
        let found = try store.objects(of: CrashA.self, matchingText: query, forAttribute: "label").map(\.rowID)
        let expected = objects.filter(predicate).map(\.rowID)
        if found != expected { return "violation: search \(query) found \(found.count) objects, expected \(expected.count)" }
    }
    return nil
}

do {
    switch arguments[1] {
    case "run":
        try run()
    case "check":
        say(try check())
    case "verify":
        let store = try Store(path: path)
        for type in crashModel { try store.register(type) }
        let report = try store.verify()
        say(report.isHealthy ? "healthy" : "problems \(report.problems.count)")
    case "hold":
        let store = try openStore()
        say("ready")
        _ = readLine()
        try store.close()
    case "read":
        let store = try openStore(Store.Configuration(readOnly: true))
        say("read \(try store.count(of: CrashA.self))")
    case "write":
        _ = try openStore()
        say("opened")
    case "populate":
        say(try populate(saves: arguments.count > 3 ? UInt64(arguments[3]) ?? 0 : 0))
    case "interchange-scale":
        let count = arguments.count > 3 ? Int(arguments[3]) ?? 0 : 0
        let limit = arguments.count > 4 ? Int(arguments[4]) ?? 200 : 200
        let (report, passed) = try InterchangeScale.run(directory: path, count: count, limitMegabytes: limit)
        for line in report { say(line) }
        say(passed ? "ok" : "failed")
        if !passed { exit(1) }
    case "interchange-populate":
        try InterchangeScale.populate(path: path, count: arguments.count > 3 ? Int(arguments[3]) ?? 0 : 0)
        say("peak \(InterchangeScale.peakKilobytes())")
    case "interchange-export":
        try InterchangeScale.export(path: path, file: arguments.count > 3 ? arguments[3] : "")
        say("peak \(InterchangeScale.peakKilobytes())")
    case "interchange-import":
        try InterchangeScale.import(path: path, file: arguments.count > 3 ? arguments[3] : "")
        say("peak \(InterchangeScale.peakKilobytes())")
    case "trap":
        fatalError("trap on request")
    case "hang":
        let parent = getppid()
        while getppid() == parent { usleep(10_000) }   // until killed, or orphaned
    case "compact":
        // Compacts the store again and again until killed (the compaction crash test).
        let store = try openStore()
        say("ready")
        while true { try store.compact() }
    default:
        say("unknown command \(arguments[1])")
        exit(2)
    }
} catch {
    say("error \(error)")
    // Also where the parent looks when a worker it meant to kill ended by itself.
    FileHandle.standardError.write(Data("error \(error)\n".utf8))
    exit(3)
}
