// Changes: what the change feed and history cost (issue 23's targets: an active subscriber under
// 5% on ComplexInsert and SimpleUpdate, keepsHistory under 1.5× on SimpleUpdate). Three stores
// get the same songs: a plain one, one with a subscriber reading `store.changes` on another
// thread, and one whose songs keep history. Insert rounds alternate between the stores, so that
// a slower machine at some moment weighs on all three alike; then each retitles every third
// song in one save, as SimpleUpdate does.

import Foundation
import Larder
import SpeedSupport

/// Song, keeping history (stored as "Song").
final class HistorySong: StoredObject {
    @Stored var title = ""
    @Stored var seconds: UInt32 = 0

    override class var storageName: String { "Song" }
    override class var keepsHistory: Bool { true }

    override func writeContent(to buffer: inout DataBuffer) {
        buffer.write(title)
        buffer.write(seconds)
    }

    override func readContent(from buffer: inout DataBuffer, in store: Store) throws {
        title = try buffer.readString()
        seconds = try buffer.readUInt32()
    }
}

/// What a subscriber read, counted on its own thread.
final class FeedCount: @unchecked Sendable {
    // @unchecked: every access holds the lock.
    private let lock = NSLock()
    private var rows = 0
    private let done = DispatchSemaphore(value: 0)

    func add(_ count: Int) { lock.withLock { rows += count } }
    func finish() { done.signal() }

    /// The rows counted, once the stream has finished.
    func waitForTotal() -> Int {
        done.wait()
        return lock.withLock { rows }
    }
}

/// The rounds of Changes: half of ComplexInsert's, so that the workload takes a few seconds.
private var changesRounds: Int { max(1, sizes.complexRounds / 2) }

func changes() throws {
    let paths = ["plain", "subscribed", "history"].map { (arguments.directory as NSString).appendingPathComponent("changes-\($0).larder") }
    let plain = try openStore(paths[0])
    let subscribed = try openStore(paths[1])
    var configuration = Store.Configuration()
    configuration.durability = arguments.durability == "full" ? .full : .noSync
    configuration.encryptionKey = ProcessInfo.processInfo.environment["LARDER_ENCRYPTION_KEY"]
    let history = try Store(path: paths[2], configuration: configuration)
    try history.register(HistorySong.self)

    // The subscriber: a task on the cooperative pool, reading every change until the store closes.
    let seen = FeedCount()
    let feed = subscribed.changes
    Task.detached {
        for await change in feed { seen.add(change.inserted(of: Song.self).count + change.updated(of: Song.self).count) }
        seen.finish()
    }

    var insertTimes = [Timing](repeating: Timing(wall: 0, cpu: 0, count: 0, check: ""), count: 3)
    for _ in 1 ... changesRounds {
        for (position, store) in [plain, subscribed].enumerated() {
            let round = try timed { try insertComplexRound(into: store) }
            insertTimes[position].wall += round.wall
            insertTimes[position].cpu += round.cpu
        }
        let round = try timed {
            for i in 1 ... sizes.complexSongs {
                let song = HistorySong()
                song.title = "Test Song \(i)"
                song.seconds = UInt32(i)
                try history.insert(song)
            }
            try history.saveChanges()
            return (sizes.complexSongs, "")
        }
        insertTimes[2].wall += round.wall
        insertTimes[2].cpu += round.cpu
    }
    let total = try plain.count(of: Song.self)
    for (position, phase) in ["insert", "insert_subscribed", "insert_history"].enumerated() {
        insertTimes[position].count = total
        insertTimes[position].check = "\(changesRounds)_rounds"
        reporter.report(phase, insertTimes[position], paths[position])
    }

    // Unmeasured: the songs an update reads, made once and freed, so that the heap has grown
    // before the first measured update (whichever came first was about 10% slower).
    do {
        let warm = try stride(from: 3, through: total, by: 3).compactMap { try plain.object(of: Song.self, rowID: UInt64($0)) }
        _ = warm.count
    }
    try reporter.measure(phase: "update", storePath: paths[0]) { try retitleEveryThirdSong(of: Song.self, in: plain) }
    try reporter.measure(phase: "update_subscribed", storePath: paths[1]) { try retitleEveryThirdSong(of: Song.self, in: subscribed) }
    try reporter.measure(phase: "update_history", storePath: paths[2]) {
        let result = try retitleEveryThirdSong(of: HistorySong.self, in: history)
        // Read back: the third song has its two versions.
        let versions = try history.history(of: HistorySong.self, rowID: 3).compactMap { $0.object?.title }
        return (result.count, result.check + "_versions_\(versions.count)")
    }
    try plain.close()
    try subscribed.close()
    try history.close()
    // Checked after the clock: the subscriber saw every song inserted and updated.
    let rows = seen.waitForTotal()
    reporter.report(phase: "subscriber_rows", wall: 0, cpu: 0, sizeBytes: 0, count: rows, check: "subscriber_read_\(rows)")
}

/// One ComplexInsert round: songs in playlists of 100, one save.
func insertComplexRound(into store: Store) throws -> (count: Int, check: String) {
    let songs = (1 ... sizes.complexSongs).map { i -> Song in
        let song = Song()
        song.title = "Test Song \(i)"
        song.seconds = UInt32(i)
        return song
    }
    for j in 0 ..< sizes.complexPlaylists {
        let playlist = Playlist()
        playlist.title = "Test Playlist \(j + 1)"
        let start = j * sizes.songsPerPlaylist
        playlist.songs = ReferenceList(songs[start ..< min(start + sizes.songsPerPlaylist, songs.count)])
        try store.insert(playlist)
    }
    try store.saveChanges()
    return (songs.count, songs[0].title)
}

/// SimpleUpdate's save: every third song of `type` retitled.
func retitleEveryThirdSong<S: StoredObject>(of type: S.Type, in store: Store) throws -> (count: Int, check: String) {
    let total = try store.count(of: type)
    var updated = 0
    for rowID in stride(from: 3, through: total, by: 3) {
        guard let song = try store.object(of: type, rowID: UInt64(rowID)) else { continue }
        if let song = song as? Song { song.title = "Updated Song \(rowID)" }
        if let song = song as? HistorySong { song.title = "Updated Song \(rowID)" }
        updated += 1
    }
    try store.saveChanges()
    return (updated, "Updated_Song_3")
}
