// GRDBSpeedTest: the speed-test workloads on GRDB (a DatabaseQueue and Codable records, the code
// a GRDB user would write), one workload per run (see SpeedSupport/SpeedRun.swift for the
// command line and the RESULT line format).
//
// Same schema and durability settings as SQLiteSpeedTest:
//   song(id INTEGER PRIMARY KEY, title TEXT NOT NULL, seconds INTEGER NOT NULL)
//   playlist(id INTEGER PRIMARY KEY, title TEXT NOT NULL)
//   playlist_song(playlist INTEGER NOT NULL, song INTEGER NOT NULL, position INTEGER NOT NULL)
//   index on playlist_song(playlist, position)
// WAL with synchronous=FULL ("full") or OFF ("nosync"), set in Configuration.prepareDatabase.
//
// Timing: each phase is timed like SpeedReporter.measure (wall clock and process CPU), but its
// RESULT line is printed after the database is closed, so that size_bytes is the database at
// rest (closing checkpoints the WAL into the database file); closing is not timed. Fetch
// workloads open the database inside the timed phase (a cold fetch).

import Foundation
import GRDB
import SpeedSupport

// MARK: - Records

struct Song: Codable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "song"
    var id: Int64?
    var title: String
    var seconds: UInt32

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

struct Playlist: Codable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "playlist"
    var id: Int64?
    var title: String
    /// Ordered; stored in playlist_song, not in the playlist row.
    var songs: [Song] = []

    enum CodingKeys: String, CodingKey { case id, title }

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    /// The playlist's entries in the join table (the schema declares no foreign keys).
    static let entries = hasMany(PlaylistSong.self, using: ForeignKey(["playlist"]))
    /// The entry at position 0, and the song it refers to.
    static let firstEntry = hasOne(PlaylistSong.self, key: "firstEntry", using: ForeignKey(["playlist"]))
        .filter(PlaylistSong.Columns.position == 0)
    static let firstSong = hasOne(Song.self, through: firstEntry, using: PlaylistSong.song)
}

/// A row of the join table.
struct PlaylistSong: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "playlist_song"
    var playlist: Int64
    var song: Int64
    var position: Int

    enum Columns {
        static let position = Column(CodingKeys.position)
    }

    static let song = belongsTo(Song.self, using: ForeignKey(["song"]))
}

// MARK: - Running

struct Failure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

let arguments = SpeedArguments.parse(engine: "GRDB")
let reporter = SpeedReporter(engine: "GRDB", arguments: arguments)
let sizes = arguments.sizes
let complexPath = (arguments.directory as NSString).appendingPathComponent("complex.sqlite")
let simplePath = (arguments.directory as NSString).appendingPathComponent("simple.sqlite")


func openQueue(_ path: String, create: Bool = false) throws -> DatabaseQueue {
    if !create && !FileManager.default.fileExists(atPath: path) { throw Failure("no database at \(path)") }
    let synchronous = arguments.durability == "full" ? "FULL" : "OFF"
    var configuration = Configuration()
    configuration.prepareDatabase { db in
        let mode = try String.fetchOne(db, sql: "PRAGMA journal_mode=WAL")
        guard mode?.lowercased() == "wal" else { throw Failure("cannot set journal_mode=WAL") }
        try db.execute(sql: "PRAGMA synchronous=\(synchronous)")
    }
    return try DatabaseQueue(path: path, configuration: configuration)
}

func createSchema(_ dbQueue: DatabaseQueue) throws {
    try dbQueue.write { db in
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS song(id INTEGER PRIMARY KEY, title TEXT NOT NULL, seconds INTEGER NOT NULL);
            CREATE TABLE IF NOT EXISTS playlist(id INTEGER PRIMARY KEY, title TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS playlist_song(playlist INTEGER NOT NULL, song INTEGER NOT NULL, position INTEGER NOT NULL);
            CREATE INDEX IF NOT EXISTS playlist_song_playlist_position ON playlist_song(playlist, position);
            """)
    }
}

func complexInsert() throws {
    // Each round is opened, timed and closed separately, so each round's size is the store at rest.
    var totalWall = 0.0, totalCPU = 0.0
    for round in 1 ... sizes.complexRounds {
        let dbQueue = try openQueue(complexPath, create: true)
        try createSchema(dbQueue)
        let timing = try timed {
            let songs = try dbQueue.write { db -> [Song] in
                var songs: [Song] = []
                songs.reserveCapacity(sizes.complexSongs)
                for i in 1 ... sizes.complexSongs {
                    var song = Song(id: nil, title: "Test Song \(i)", seconds: UInt32(i))
                    try song.insert(db)
                    songs.append(song)
                }
                for j in 0 ..< sizes.complexPlaylists {
                    let first = j * sizes.songsPerPlaylist
                    var playlist = Playlist(id: nil, title: "Test Playlist \(j + 1)",
                                            songs: Array(songs[first ..< min(first + sizes.songsPerPlaylist, songs.count)]))
                    try playlist.insert(db)
                    guard let playlistID = playlist.id else { throw Failure("playlist without id") }
                    for (position, song) in playlist.songs.enumerated() {
                        guard let songID = song.id else { throw Failure("song without id") }
                        try PlaylistSong(playlist: playlistID, song: songID, position: position).insert(db)
                    }
                }
                return songs
            }
            // Read back the round's first song.
            guard let firstID = songs.first?.id else { throw Failure("no song inserted") }
            guard let song = try dbQueue.read({ db in try Song.fetchOne(db, key: firstID) }) else {
                throw Failure("song \(firstID) not found")
            }
            return (songs.count, song.title)
        }
        totalWall += timing.wall
        totalCPU += timing.cpu
        try dbQueue.close()
        reporter.report("round\(round)", timing, complexPath)
    }
    let dbQueue = try openQueue(complexPath)
    let (songs, playlists) = try dbQueue.read { db in (try Song.fetchCount(db), try Playlist.fetchCount(db)) }
    try dbQueue.close()
    reporter.report("total", Timing(wall: totalWall, cpu: totalCPU, count: songs, check: "\(playlists)_playlists"), complexPath)
}

func complexFetch() throws {
    var queue: DatabaseQueue?
    let timing = try timed {
        let dbQueue = try openQueue(complexPath)
        queue = dbQueue
        return try dbQueue.read { db in
            let playlists = try Playlist.order(Column("id")).fetchAll(db)
            var firstTitle: String?
            for playlist in playlists {
                guard let song = try playlist.request(for: Playlist.firstSong).fetchOne(db) else {
                    throw Failure("playlist \(playlist.id ?? 0) has no song at position 0")
                }
                if firstTitle == nil { firstTitle = song.title }
            }
            return (playlists.count, firstTitle ?? "")
        }
    }
    try queue?.close()
    reporter.report("fetch", timing, complexPath)
}

func simpleInsert() throws {
    let dbQueue = try openQueue(simplePath, create: true)
    try createSchema(dbQueue)
    let timing = try timed {
        let lastID = try dbQueue.write { db -> Int64 in
            var lastID: Int64 = 0
            for i in 1 ... sizes.simpleSongs {
                var song = Song(id: nil, title: "Test Song", seconds: UInt32(i))
                try song.insert(db)
                lastID = song.id ?? 0
            }
            return lastID
        }
        return try dbQueue.read { db in
            guard let song = try Song.fetchOne(db, key: lastID) else { throw Failure("song \(lastID) not found") }
            return (try Song.fetchCount(db), song.title)
        }
    }
    try dbQueue.close()
    reporter.report("insert", timing, simplePath)
}

/// SimpleFetch (fetchAll into an array) and SimpleFetchStreaming (fetchCursor).
func simpleFetch(streaming: Bool) throws {
    var queue: DatabaseQueue?
    let timing = try timed {
        let dbQueue = try openQueue(simplePath)
        queue = dbQueue
        return try dbQueue.read { db in
            var seconds: UInt64 = 0
            var titles = 0
            if streaming {
                let cursor = try Song.fetchCursor(db)
                while let song = try cursor.next() {
                    seconds += UInt64(song.seconds)
                    titles += song.title.isEmpty ? 0 : 1
                }
            } else {
                let songs = try Song.fetchAll(db)
                for song in songs {
                    seconds += UInt64(song.seconds)
                    titles += song.title.isEmpty ? 0 : 1
                }
            }
            return (titles, "seconds_\(seconds)")
        }
    }
    try queue?.close()
    reporter.report("fetch", timing, simplePath)
}

func simpleUpdate() throws {
    let dbQueue = try openQueue(complexPath)
    let timing = try timed {
        let firstID = try dbQueue.write { db -> (count: Int, first: Int64?) in
            let songs = try Song.filter(sql: "id % 3 = 0").order(Column("id")).fetchAll(db)
            for var song in songs {
                guard let id = song.id else { throw Failure("song without id") }
                song.title = "Updated Song \(id)"
                try song.update(db)
            }
            return (songs.count, songs.first?.id)
        }
        guard let first = firstID.first else { return (firstID.count, "") }
        guard let song = try dbQueue.read({ db in try Song.fetchOne(db, key: first) }) else {
            throw Failure("song \(first) not found")
        }
        return (firstID.count, song.title)
    }
    try dbQueue.close()
    reporter.report("update", timing, complexPath)
}

func pointRead() throws {
    let dbQueue = try openQueue(simplePath)
    let keys = pointReadKeys(count: sizes.pointReads, max: sizes.simpleSongs)
    // One read (one read transaction) per lookup, as a user fetching one object writes it.
    let autocommit = try timed {
        var found = 0
        var titleBytes = 0
        for key in keys {
            if let song = try dbQueue.read({ db in try Song.fetchOne(db, key: key) }) {
                found += 1
                titleBytes += song.title.utf8.count
            }
        }
        return (found, "title_bytes_\(titleBytes)")
    }
    // All lookups in one read.
    let transaction = try timed {
        try dbQueue.read { db in
            var found = 0
            var titleBytes = 0
            for key in keys {
                if let song = try Song.fetchOne(db, key: key) {
                    found += 1
                    titleBytes += song.title.utf8.count
                }
            }
            return (found, "title_bytes_\(titleBytes)")
        }
    }
    try dbQueue.close()
    reporter.report("autocommit", autocommit, simplePath)
    reporter.report("transaction", transaction, simplePath)
}

do {
    try FileManager.default.createDirectory(atPath: arguments.directory, withIntermediateDirectories: true)
    switch arguments.workload {
    case .complexInsert: try complexInsert()
    case .complexFetch: try complexFetch()
    case .simpleInsert: try simpleInsert()
    case .simpleFetch: try simpleFetch(streaming: false)
    case .simpleFetchStreaming: try simpleFetch(streaming: true)
    case .simpleUpdate: try simpleUpdate()
    case .pointRead: try pointRead()
    case .fullText: throw Failure("FullText runs on Larder and SQLite (FTS5) only")
    case .documents: throw Failure("Documents runs on LarderDocuments and SQLite's JSON functions only")
    case .queries: throw Failure("Queries runs on Larder (objects and documents) and SQLite only")
    case .encryption: throw Failure("Encryption measures Larder's own encryption: Larder only")
    case .changes: throw Failure("Changes measures Larder's change feed and history: Larder only")
    case .concurrency: try concurrency()
    case .model: throw Failure("Model measures Larder's @StoredModel against its hand-written classes: Larder only")
    }
} catch {
    FileHandle.standardError.write(Data("GRDBSpeedTest: \(error)\n".utf8))
    exit(1)
}
