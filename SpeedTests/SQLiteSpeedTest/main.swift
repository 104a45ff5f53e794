// SQLiteSpeedTest: the speed-test workloads on SQLite's C API, one workload per run (see
// SpeedSupport/SpeedRun.swift for the command line and the RESULT line format).
//
// Prepared statements only, every return code checked; objects are materialized as Song and
// Playlist values, as an application would. Schema (the same for GRDBSpeedTest):
//   song(id INTEGER PRIMARY KEY, title TEXT NOT NULL, seconds INTEGER NOT NULL)
//   playlist(id INTEGER PRIMARY KEY, title TEXT NOT NULL)
//   playlist_song(playlist INTEGER NOT NULL, song INTEGER NOT NULL, position INTEGER NOT NULL)
//   index on playlist_song(playlist, position)
// Durability: WAL with synchronous=FULL ("full") or synchronous=OFF ("nosync").
//
// Timing: each phase is timed like SpeedReporter.measure (wall clock and process CPU), but its
// RESULT line is printed after the connection is closed, so that size_bytes is the database at
// rest (closing checkpoints the WAL into the database file and deletes it); closing is not
// timed. Fetch workloads open the database inside the timed phase (a cold fetch).

import CSQLite
import Foundation
import SpeedSupport

// MARK: - Model

struct Song {
    var id: Int64?
    var title: String
    var seconds: UInt32
}

struct Playlist {
    var id: Int64?
    var title: String
    /// Ordered; position in the array is `playlist_song.position`.
    var songs: [Song]
}

// MARK: - A thin checked wrapper over the C API

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("SQLiteSpeedTest: \(message)\n".utf8))
    exit(1)
}

/// SQLite copies bound text at bind time.
nonisolated var SQLITE_TRANSIENT: sqlite3_destructor_type { unsafeBitCast(-1, to: sqlite3_destructor_type.self) }

final class Connection {
    let handle: OpaquePointer
    let path: String

    /// Opens (creating it if `create`) the database at `path` and sets the durability pragmas.
    init(path: String, durability: String, create: Bool) {
        if !create && !FileManager.default.fileExists(atPath: path) { fail("no database at \(path)") }
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0)
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
            sqlite3_close(db)
            fail("cannot open \(path): \(message)")
        }
        handle = db
        self.path = path
        let mode = Statement(self, "PRAGMA journal_mode=WAL")
        guard mode.step(), mode.text(0).lowercased() == "wal" else { fail("cannot set journal_mode=WAL on \(path)") }
        mode.finalize()
        execute("PRAGMA synchronous=\(durability == "full" ? "FULL" : "OFF")")
    }

    var errorMessage: String { String(cString: sqlite3_errmsg(handle)) }

    func check(_ rc: Int32, _ what: @autoclosure () -> String) {
        if rc != SQLITE_OK { fail("\(what()): \(errorMessage) (\(rc))") }
    }

    /// Runs SQL that returns no rows we need.
    func execute(_ sql: String) {
        check(sqlite3_exec(handle, sql, nil, nil, nil), sql)
    }

    func prepare(_ sql: String) -> Statement { Statement(self, sql) }

    var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Closes the connection; all statements must have been finalized.
    func close() {
        check(sqlite3_close(handle), "close \(path)")
    }
}

final class Statement {
    private var handle: OpaquePointer?
    private let connection: Connection
    let sql: String

    init(_ connection: Connection, _ sql: String) {
        self.connection = connection
        self.sql = sql
        var statement: OpaquePointer?
        connection.check(sqlite3_prepare_v2(connection.handle, sql, -1, &statement, nil), "prepare \(sql)")
        guard let statement else { fail("prepare \(sql): no statement") }
        handle = statement
    }

    deinit { sqlite3_finalize(handle) }

    private var live: OpaquePointer {
        guard let handle else { fail("statement used after finalize: \(sql)") }
        return handle
    }

    func bind(_ index: Int32, _ value: Int64) {
        connection.check(sqlite3_bind_int64(live, index, value), "bind \(index) of \(sql)")
    }

    func bind(_ index: Int32, _ value: String) {
        connection.check(sqlite3_bind_text(live, index, value, -1, SQLITE_TRANSIENT), "bind \(index) of \(sql)")
    }

    /// Steps once: true for a row, false when done.
    func step() -> Bool {
        switch sqlite3_step(live) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let rc: fail("step \(sql): \(connection.errorMessage) (\(rc))")
        }
    }

    /// Steps a statement that returns no row.
    func run() {
        if step() { fail("\(sql) returned a row") }
    }

    func reset() {
        connection.check(sqlite3_reset(live), "reset \(sql)")
    }

    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(live, column) }

    func text(_ column: Int32) -> String {
        guard let text = sqlite3_column_text(live, column) else { fail("NULL text in column \(column) of \(sql)") }
        return String(cString: text)
    }

    /// Reads a Song from columns (id, title, seconds).
    func song() -> Song {
        let seconds = int64(2)
        guard let seconds32 = UInt32(exactly: seconds) else { fail("seconds out of range: \(seconds)") }
        return Song(id: int64(0), title: text(1), seconds: seconds32)
    }

    func finalize() {
        connection.check(sqlite3_finalize(live), "finalize \(sql)")
        handle = nil
    }
}

// MARK: - Workloads

let arguments = SpeedArguments.parse(engine: "SQLite")
let reporter = SpeedReporter(engine: "SQLite", arguments: arguments)
let sizes = arguments.sizes
let complexPath = (arguments.directory as NSString).appendingPathComponent("complex.sqlite")
let simplePath = (arguments.directory as NSString).appendingPathComponent("simple.sqlite")


func open(_ path: String, create: Bool = false) -> Connection {
    Connection(path: path, durability: arguments.durability, create: create)
}

func createSchema(_ db: Connection) {
    db.execute("""
        CREATE TABLE IF NOT EXISTS song(id INTEGER PRIMARY KEY, title TEXT NOT NULL, seconds INTEGER NOT NULL);
        CREATE TABLE IF NOT EXISTS playlist(id INTEGER PRIMARY KEY, title TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS playlist_song(playlist INTEGER NOT NULL, song INTEGER NOT NULL, position INTEGER NOT NULL);
        CREATE INDEX IF NOT EXISTS playlist_song_playlist_position ON playlist_song(playlist, position);
        """)
}

/// `SELECT count(*) FROM table`.
func count(_ db: Connection, _ table: String) -> Int {
    let statement = db.prepare("SELECT count(*) FROM \(table)")
    guard statement.step() else { fail("no count of \(table)") }
    return Int(statement.int64(0))
}

func complexInsert() {
    // Each round is opened, timed and closed separately, so each round's size is the store at rest.
    var totalWall = 0.0, totalCPU = 0.0
    for round in 1 ... sizes.complexRounds {
        let db = open(complexPath, create: true)
        createSchema(db)
        let insertSong = db.prepare("INSERT INTO song(title, seconds) VALUES (?, ?)")
        let insertPlaylist = db.prepare("INSERT INTO playlist(title) VALUES (?)")
        let insertEntry = db.prepare("INSERT INTO playlist_song(playlist, song, position) VALUES (?, ?, ?)")
        let readSong = db.prepare("SELECT id, title, seconds FROM song WHERE id = ?")
        let timing = timed {
            db.execute("BEGIN")
            var songs: [Song] = []
            songs.reserveCapacity(sizes.complexSongs)
            for i in 1 ... sizes.complexSongs {
                var song = Song(id: nil, title: "Test Song \(i)", seconds: UInt32(i))
                insertSong.bind(1, song.title)
                insertSong.bind(2, Int64(song.seconds))
                insertSong.run()
                insertSong.reset()
                song.id = db.lastInsertRowID
                songs.append(song)
            }
            for j in 0 ..< sizes.complexPlaylists {
                let first = j * sizes.songsPerPlaylist
                var playlist = Playlist(id: nil, title: "Test Playlist \(j + 1)",
                                        songs: Array(songs[first ..< min(first + sizes.songsPerPlaylist, songs.count)]))
                insertPlaylist.bind(1, playlist.title)
                insertPlaylist.run()
                insertPlaylist.reset()
                let playlistID = db.lastInsertRowID
                playlist.id = playlistID
                for (position, song) in playlist.songs.enumerated() {
                    guard let songID = song.id else { fail("song without id") }
                    insertEntry.bind(1, playlistID)
                    insertEntry.bind(2, songID)
                    insertEntry.bind(3, Int64(position))
                    insertEntry.run()
                    insertEntry.reset()
                }
            }
            db.execute("COMMIT")
            // Read back the round's first song.
            guard let firstID = songs.first?.id else { fail("no song inserted") }
            readSong.bind(1, firstID)
            guard readSong.step() else { fail("song \(firstID) not found") }
            let check = readSong.song().title
            readSong.reset()
            return (songs.count, check)
        }
        totalWall += timing.wall
        totalCPU += timing.cpu
        for statement in [insertSong, insertPlaylist, insertEntry, readSong] { statement.finalize() }
        db.close()
        reporter.report("round\(round)", timing, complexPath)
    }
    let db = open(complexPath)
    let songs = count(db, "song"), playlists = count(db, "playlist")
    db.close()
    reporter.report("total", Timing(wall: totalWall, cpu: totalCPU, count: songs, check: "\(playlists)_playlists"), complexPath)
}

func complexFetch() {
    var db: Connection?
    var statements: [Statement] = []
    let timing = timed {
        let connection = open(complexPath)
        db = connection
        let allPlaylists = connection.prepare("SELECT id, title FROM playlist ORDER BY id")
        let firstSong = connection.prepare("""
            SELECT song.id, song.title, song.seconds FROM playlist_song
            JOIN song ON song.id = playlist_song.song
            WHERE playlist_song.playlist = ? AND playlist_song.position = 0
            """)
        statements = [allPlaylists, firstSong]
        connection.execute("BEGIN")
        var playlists: [Playlist] = []
        while allPlaylists.step() {
            playlists.append(Playlist(id: allPlaylists.int64(0), title: allPlaylists.text(1), songs: []))
        }
        allPlaylists.reset()
        var firstTitle: String?
        for playlist in playlists {
            guard let id = playlist.id else { fail("playlist without id") }
            firstSong.bind(1, id)
            guard firstSong.step() else { fail("playlist \(id) has no song at position 0") }
            let song = firstSong.song()
            firstSong.reset()
            if firstTitle == nil { firstTitle = song.title }
        }
        connection.execute("COMMIT")
        return (playlists.count, firstTitle ?? "")
    }
    statements.forEach { $0.finalize() }
    db?.close()
    reporter.report("fetch", timing, complexPath)
}

func simpleInsert() {
    let db = open(simplePath, create: true)
    createSchema(db)
    let insertSong = db.prepare("INSERT INTO song(title, seconds) VALUES (?, ?)")
    let readSong = db.prepare("SELECT id, title, seconds FROM song WHERE id = ?")
    let countSongs = db.prepare("SELECT count(*) FROM song")
    let timing = timed {
        db.execute("BEGIN")
        var lastID: Int64 = 0
        for i in 1 ... sizes.simpleSongs {
            let song = Song(id: nil, title: "Test Song", seconds: UInt32(i))
            insertSong.bind(1, song.title)
            insertSong.bind(2, Int64(song.seconds))
            insertSong.run()
            insertSong.reset()
            lastID = db.lastInsertRowID
        }
        db.execute("COMMIT")
        guard countSongs.step() else { fail("no count") }
        let count = Int(countSongs.int64(0))
        countSongs.reset()
        readSong.bind(1, lastID)
        guard readSong.step() else { fail("song \(lastID) not found") }
        let title = readSong.song().title
        readSong.reset()
        return (count, title)
    }
    for statement in [insertSong, readSong, countSongs] { statement.finalize() }
    db.close()
    reporter.report("insert", timing, simplePath)
}

/// SimpleFetch (into an array) and SimpleFetchStreaming (one Song at a time).
func simpleFetch(streaming: Bool) {
    var db: Connection?
    var statements: [Statement] = []
    let timing = timed {
        let connection = open(simplePath)
        db = connection
        let allSongs = connection.prepare("SELECT id, title, seconds FROM song")
        statements = [allSongs]
        var seconds: UInt64 = 0
        var titles = 0
        if streaming {
            while allSongs.step() {
                let song = allSongs.song()
                seconds += UInt64(song.seconds)
                titles += song.title.isEmpty ? 0 : 1
            }
        } else {
            var songs: [Song] = []
            while allSongs.step() { songs.append(allSongs.song()) }
            for song in songs {
                seconds += UInt64(song.seconds)
                titles += song.title.isEmpty ? 0 : 1
            }
        }
        allSongs.reset()
        return (titles, "seconds_\(seconds)")
    }
    statements.forEach { $0.finalize() }
    db?.close()
    reporter.report("fetch", timing, simplePath)
}

func simpleUpdate() {
    let db = open(complexPath)
    let selectIDs = db.prepare("SELECT id FROM song WHERE id % 3 = 0 ORDER BY id")
    let update = db.prepare("UPDATE song SET title = ? WHERE id = ?")
    let readTitle = db.prepare("SELECT title FROM song WHERE id = ?")
    let timing = timed {
        db.execute("BEGIN")
        var ids: [Int64] = []
        while selectIDs.step() { ids.append(selectIDs.int64(0)) }
        selectIDs.reset()
        var updated = 0
        for id in ids {
            update.bind(1, "Updated Song \(id)")
            update.bind(2, id)
            update.run()
            update.reset()
            updated += Int(sqlite3_changes(db.handle))
        }
        db.execute("COMMIT")
        guard let first = ids.first else { return (updated, "") }
        readTitle.bind(1, first)
        guard readTitle.step() else { fail("song \(first) not found") }
        let title = readTitle.text(0)
        readTitle.reset()
        return (updated, title)
    }
    for statement in [selectIDs, update, readTitle] { statement.finalize() }
    db.close()
    reporter.report("update", timing, complexPath)
}

func pointRead() {
    let db = open(simplePath)
    let keys = pointReadKeys(count: sizes.pointReads, max: sizes.simpleSongs)
    let lookup = db.prepare("SELECT id, title, seconds FROM song WHERE id = ?")
    func lookups() -> (count: Int, check: String) {
        var found = 0
        var titleBytes = 0
        for key in keys {
            lookup.bind(1, key)
            if lookup.step() {
                let song = lookup.song()
                found += 1
                titleBytes += song.title.utf8.count
            }
            lookup.reset()
        }
        return (found, "title_bytes_\(titleBytes)")
    }
    // One implicit (autocommit) read transaction per lookup.
    let autocommit = timed { lookups() }
    // All lookups inside one read transaction.
    let transaction = timed {
        db.execute("BEGIN")
        let result = lookups()
        db.execute("COMMIT")
        return result
    }
    lookup.finalize()
    db.close()
    reporter.report("autocommit", autocommit, simplePath)
    reporter.report("transaction", transaction, simplePath)
}

do {
    try FileManager.default.createDirectory(atPath: arguments.directory, withIntermediateDirectories: true)
} catch {
    fail("cannot create \(arguments.directory): \(error)")
}
switch arguments.workload {
case .complexInsert: complexInsert()
case .complexFetch: complexFetch()
case .simpleInsert: simpleInsert()
case .simpleFetch: simpleFetch(streaming: false)
case .simpleFetchStreaming: simpleFetch(streaming: true)
case .simpleUpdate: simpleUpdate()
case .pointRead: pointRead()
case .fullText: fullText()
case .documents: documents()
case .queries: queries()
case .encryption: fail("Encryption measures Larder's own encryption: Larder only")
case .changes: fail("Changes measures Larder's change feed and history: Larder only")
case .concurrency: fail("Concurrency compares Larder's StorePool with GRDB's DatabasePool: Larder and GRDB only")
case .model: fail("Model measures Larder's @StoredModel against its hand-written classes: Larder only")
}
