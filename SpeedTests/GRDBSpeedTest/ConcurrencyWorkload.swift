// Concurrency: GRDB's DatabasePool under 1 and 2 reader tasks, with and without a writer task
// saving in a loop, as LarderSpeedTest runs it on Larder's StorePool (ConcurrencyRun runs the
// scenarios). The songs are inserted through a DatabaseQueue in one transaction, untimed; the
// pool (WAL, and its writer's synchronous FULL or OFF as the other workloads set it) opens the
// database after the queue is closed. Reads and writes are GRDB's async `read` and `write`, the code a
// GRDB user writes in Swift concurrency.

import Foundation
import GRDB
import SpeedSupport

func concurrency() throws {
    let path = (arguments.directory as NSString).appendingPathComponent("concurrency.sqlite")
    let songs = sizes.concurrencySongs
    let dbQueue = try openQueue(path, create: true)
    try createSchema(dbQueue)
    try dbQueue.write { db in
        for i in 1 ... songs {
            var song = Song(id: nil, title: "Test Song \(i)", seconds: UInt32(i))
            try song.insert(db)
        }
    }
    try dbQueue.close()

    // DatabasePool turns WAL on and then sets `synchronous = NORMAL` on its writer, after
    // `prepareDatabase` ran: the durability is set on the writer once the pool is open, and read
    // back (FULL is 2, OFF 0). Only the writer's connection commits, so only its setting counts.
    let synchronous = arguments.durability == "full" ? (name: "FULL", value: 2) : (name: "OFF", value: 0)
    // A busy timeout, as GRDB's documentation advises: without one (`.immediateError`, the
    // default), a writer that meets a lock a reader holds for a moment (a reader opening the
    // WAL index while a checkpoint runs) fails at once with SQLITE_BUSY, as one run here did
    // on a loaded machine.
    var configuration = Configuration()
    configuration.busyMode = .timeout(10)
    let dbPool = try DatabasePool(path: path, configuration: configuration)
    let (mode, level) = try dbPool.writeWithoutTransaction { db in
        try db.execute(sql: "PRAGMA synchronous=\(synchronous.name)")
        return (try String.fetchOne(db, sql: "PRAGMA journal_mode"), try Int.fetchOne(db, sql: "PRAGMA synchronous"))
    }
    guard mode?.lowercased() == "wal" else { throw Failure("DatabasePool is not in WAL mode (\(mode ?? "?"))") }
    guard level == synchronous.value else { throw Failure("the pool's writer has synchronous=\(level ?? -1), not \(synchronous.name)") }

    let seconds = sizes.concurrencySeconds
    let scenarios = ConcurrencyRun.scenarios
    let outcomes = try runBlocking {
        var outcomes: [ConcurrencyRun.Outcome] = []
        for scenario in scenarios {
            outcomes.append(try await ConcurrencyRun.run(scenario, songs: songs, seconds: seconds, read: { first, length in
                try await dbPool.read { db in
                    if length == 1 {
                        guard let song = try Song.fetchOne(db, key: first), !song.title.isEmpty else { return 0 }
                        return 1
                    }
                    // Consecutive rowIDs: a range of the primary key (`id BETWEEN ? AND ?`).
                    let range = first ... first + Int64(length - 1)
                    return try Song.filter(range.contains(Column("id"))).fetchAll(db).filter { !$0.title.isEmpty }.count
                }
            }, write: { rowID, title in
                try await dbPool.write { db in
                    guard var song = try Song.fetchOne(db, key: rowID) else { throw Failure("no song \(rowID) to retitle") }
                    song.title = title
                    try song.update(db)
                }
            }, title: { rowID in
                try await dbPool.read { db in try Song.fetchOne(db, key: rowID)?.title }
            }))
        }
        return outcomes
    }
    // Checked after the clock: every song is still there.
    let stored = try dbPool.read { db in try Song.fetchCount(db) }
    guard stored == songs else { throw Failure("the pool holds \(stored) songs, not \(songs)") }
    try dbPool.close()
    for (scenario, outcome) in zip(scenarios, outcomes) {
        reporter.reportConcurrency(scenario, outcome, songs: stored, storePath: path)
    }
}
