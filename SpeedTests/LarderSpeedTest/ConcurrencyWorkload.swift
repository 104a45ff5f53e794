// Concurrency: Larder's StorePool under 1 and 2 reader tasks, with and without a writer task
// saving in a loop (ConcurrencyRun runs the scenarios; GRDBSpeedTest runs the same on a
// DatabasePool). The songs are inserted by a plain Store in one save, untimed; the pool opens
// the store after it is closed.

import Foundation
import Larder
import SpeedSupport

func concurrency() throws {
    let path = (arguments.directory as NSString).appendingPathComponent("concurrency.larder")
    let songs = sizes.concurrencySongs
    let store = try openStore(path)
    for i in 1 ... songs {
        let song = Song()
        song.title = "Test Song \(i)"
        song.seconds = UInt32(i)
        try store.insert(song)
    }
    try store.saveChanges()
    try store.close()

    var configuration = Store.Configuration(durability: arguments.durability == "full" ? .full : .noSync)
    configuration.encryptionKey = ProcessInfo.processInfo.environment["LARDER_ENCRYPTION_KEY"]
    let pool = try StorePool(path: path, configuration: configuration, classes: [Song.self])
    let seconds = sizes.concurrencySeconds
    let scenarios = ConcurrencyRun.scenarios
    let outcomes = try runBlocking {
        var outcomes: [ConcurrencyRun.Outcome] = []
        for scenario in scenarios {
            outcomes.append(try await ConcurrencyRun.run(scenario, songs: songs, seconds: seconds, read: { first, length in
                try await pool.read { store in
                    var found = 0
                    for rowID in UInt64(first) ..< UInt64(first) + UInt64(length) {
                        if let song = try store.object(of: Song.self, rowID: rowID), !song.title.isEmpty { found += 1 }
                    }
                    return found
                }
            }, write: { rowID, title in
                try await pool.write { store in
                    guard let song = try store.object(of: Song.self, rowID: UInt64(rowID)) else {
                        throw ConcurrencyFailure("no song \(rowID) to retitle")
                    }
                    song.title = title
                }
            }, title: { rowID in
                try await pool.read { store in try store.object(of: Song.self, rowID: UInt64(rowID))?.title }
            }))
        }
        return outcomes
    }
    // Checked after the clock: every song is still there.
    let stored = try runBlocking { try await pool.read { try $0.count(of: Song.self) } }
    guard stored == songs else { throw ConcurrencyFailure("the pool holds \(stored) songs, not \(songs)") }
    try runBlocking { try await pool.close() }
    for (scenario, outcome) in zip(scenarios, outcomes) {
        reporter.reportConcurrency(scenario, outcome, songs: stored, storePath: path)
    }
}
