// LarderSpeedTest: the speed-test workloads on Larder, one per run (see SpeedSupport).

import Foundation
import Larder
import SpeedSupport

let arguments = SpeedArguments.parse(engine: "Larder")
let reporter = SpeedReporter(engine: "Larder", arguments: arguments)
let sizes = arguments.sizes
let complexPath = (arguments.directory as NSString).appendingPathComponent("complex.larder")
let simplePath = (arguments.directory as NSString).appendingPathComponent("simple.larder")

func openStore(_ path: String, playlists: StoredObject.Type = Playlist.self,
               encryptionKey: String? = ProcessInfo.processInfo.environment["LARDER_ENCRYPTION_KEY"]) throws -> Store {
    var configuration = Store.Configuration()
    configuration.durability = arguments.durability == "full" ? .full : .noSync
    // LARDER_ENCRYPTION_KEY measures the cost of per-record encryption on every workload.
    configuration.encryptionKey = encryptionKey
    let store = try Store(path: path, configuration: configuration)
    try store.register(Song.self)
    try store.register(playlists)
    return store
}

func complexInsert() throws {
    let store = try openStore(complexPath)
    var totalWall = 0.0, totalCPU = 0.0
    for round in 1 ... sizes.complexRounds {
        let start = Date(), startCPU = SpeedReporter.cpuSeconds()
        try reporter.measure(phase: "round\(round)", storePath: complexPath) { try insertComplexRound(into: store) }
        totalWall += Date().timeIntervalSince(start)
        totalCPU += SpeedReporter.cpuSeconds() - startCPU
    }
    let playlists = try store.count(of: Playlist.self)
    reporter.report(phase: "total", wall: totalWall, cpu: totalCPU, storePath: complexPath,
                    count: try store.count(of: Song.self), check: "\(playlists)_playlists")
    try store.close()
}

func complexFetch() throws {
    try fetchPlaylists(phase: "fetch", as: Playlist.self) { $0.songs.first }
    // The same playlists with their songs as `[Song]`: a fault per reference.
    try fetchPlaylists(phase: "fetchArray", as: ArrayPlaylist.self) { $0.songs.first }
}

/// Reads every playlist of the complex store as `type` and the title of each one's first song
/// (`firstSong`), in a store opened (and closed) for the phase.
func fetchPlaylists<P: StoredObject>(phase: String, as type: P.Type, firstSong: (P) -> Song?) throws {
    var store: Store?
    try reporter.measure(phase: phase, storePath: complexPath) {
        let opened = try openStore(complexPath, playlists: type)
        store = opened
        let playlists = try opened.allObjects(of: type)
        var firstTitle = ""
        for playlist in playlists {
            let title = firstSong(playlist)?.title ?? ""
            if firstTitle.isEmpty { firstTitle = title }
        }
        return (playlists.count, firstTitle)
    }
    try store?.close()
}

/// The same songs inserted into, then fetched from, a plaintext and an encrypted store; each
/// store is opened (and the key derived) before its phase's clock starts.
func encryption() throws {
    for (name, key) in [("plain", nil), ("encrypted", "speed test passphrase")] as [(String, String?)] {
        let path = (arguments.directory as NSString).appendingPathComponent("\(name).larder")
        let store = try openStore(path, encryptionKey: key)
        try reporter.measure(phase: "insert_\(name)", storePath: path) {
            try insertSongs(sizes.encryptionSongs, into: store)
        }
        try store.close()
        let reader = try openStore(path, encryptionKey: key)
        try reporter.measure(phase: "fetch_\(name)", storePath: path) {
            let songs = try reader.allObjects(of: Song.self)
            var seconds: UInt64 = 0
            for song in songs { seconds += UInt64(song.seconds) }
            return (songs.count, "seconds_\(seconds)")
        }
        try reader.close()
    }
}

/// Inserts `count` songs titled "Test Song" (seconds 1, 2, ...) into `store` in one save.
func insertSongs(_ count: Int, into store: Store) throws -> (count: Int, check: String) {
    for i in 1 ... count {
        let song = Song()
        song.title = "Test Song"
        song.seconds = UInt32(i)
        try store.insert(song)
    }
    try store.saveChanges()
    return (try store.count(of: Song.self), "Test Song")
}

func simpleInsert() throws {
    let store = try openStore(simplePath)
    try reporter.measure(phase: "insert", storePath: simplePath) {
        try insertSongs(sizes.simpleSongs, into: store)
    }
    try store.close()
}

func simpleFetch() throws {
    try reporter.measure(phase: "fetch", storePath: simplePath) {
        let store = try openStore(simplePath)
        let songs = try store.allObjects(of: Song.self)
        var seconds: UInt64 = 0
        var titles = 0
        for song in songs {
            seconds += UInt64(song.seconds)
            titles += song.title.isEmpty ? 0 : 1
        }
        return (titles, "seconds_\(seconds)")
    }
}

func simpleFetchStreaming() throws {
    try reporter.measure(phase: "fetch", storePath: simplePath) {
        let store = try openStore(simplePath)
        var seconds: UInt64 = 0
        var titles = 0
        try store.forEachObject(of: Song.self) { song in
            seconds += UInt64(song.seconds)
            titles += song.title.isEmpty ? 0 : 1
        }
        return (titles, "seconds_\(seconds)")
    }
}

func simpleUpdate() throws {
    let store = try openStore(complexPath)
    try reporter.measure(phase: "update", storePath: complexPath) {
        let total = try store.count(of: Song.self)
        var updated = 0
        for rowID in stride(from: 3, through: total, by: 3) {
            guard let song = try store.object(of: Song.self, rowID: UInt64(rowID)) else { continue }
            song.title = "Updated Song \(rowID)"
            updated += 1
        }
        try store.saveChanges()
        return (updated, "Updated_Song_3")
    }
    try measureCompaction(at: complexPath, store.compact)
    try store.close()
}

/// Compacts the store at `path` after the last phase of its chain of workloads (every
/// update and delete done): a "compact" phase whose size is the store's size after, and
/// whose check is its size before.
func measureCompaction(at path: String, _ compact: () throws -> Void) throws {
    let before = SpeedReporter.size(of: path)
    try reporter.measure(phase: "compact", storePath: path) {
        try compact()
        return (before, "before_bytes_\(before)")
    }
}

func pointRead() throws {
    let store = try openStore(simplePath)
    let keys = pointReadKeys(count: sizes.pointReads, max: sizes.simpleSongs)
    // Larder has no read transactions: both phases run the same lookups, so they line up with
    // SQLite's "autocommit" and "transaction" phases.
    for phase in ["autocommit", "transaction"] {
        try reporter.measure(phase: phase, storePath: simplePath) {
            var found = 0
            var titleBytes = 0
            for key in keys {
                if let song = try store.object(of: Song.self, rowID: UInt64(key)) {
                    found += 1
                    titleBytes += song.title.utf8.count
                }
            }
            return (found, "title_bytes_\(titleBytes)")
        }
    }
    try measureCompaction(at: simplePath, store.compact)
    try store.close()
}

do {
    try FileManager.default.createDirectory(atPath: arguments.directory, withIntermediateDirectories: true)
    switch arguments.workload {
    case .complexInsert: try complexInsert()
    case .complexFetch: try complexFetch()
    case .simpleInsert: try simpleInsert()
    case .simpleFetch: try simpleFetch()
    case .simpleFetchStreaming: try simpleFetchStreaming()
    case .simpleUpdate: try simpleUpdate()
    case .pointRead: try pointRead()
    case .fullText: try fullText()
    case .documents: try documents()
    case .queries: try queries()
    case .encryption: try encryption()
    case .changes: try changes()
    case .concurrency: try concurrency()
    case .model: try model()
    }
} catch {
    FileHandle.standardError.write(Data("LarderSpeedTest: \(error)\n".utf8))
    exit(1)
}
