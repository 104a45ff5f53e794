// Queries on SQLite: the Queries workload's songs (SpeedSupport/QuerySongs.swift) in
//   album(id INTEGER PRIMARY KEY, name TEXT NOT NULL)
//   song(id INTEGER PRIMARY KEY, title TEXT NOT NULL, seconds INTEGER NOT NULL, album INTEGER REFERENCES album(id))
//   indexes on song(seconds) and on song(album, title), the same as Larder's
// inserted in one transaction (the indexes kept as the rows go in, as Larder's are); then, on a
// new connection, each find made into AlbumSong values through its prepared statement, and each
// count with `SELECT count(*)`. Each statement's plan (EXPLAIN QUERY PLAN) is printed to stderr
// before its phase; a plan without its index stops the run.

import Foundation
import SpeedSupport

/// A song of the Queries workload, as an application makes it from a row; its album is the
/// album's id (Larder's song holds an unloaded album object).
struct AlbumSong {
    var id: Int64
    var title: String
    var seconds: UInt32
    var album: Int64?
}

extension Statement {
    /// Reads an AlbumSong from columns (id, title, seconds, album).
    func albumSong() -> AlbumSong {
        let seconds = int64(2)
        guard let seconds32 = UInt32(exactly: seconds) else { fail("seconds out of range: \(seconds)") }
        let album = int64(3)
        return AlbumSong(id: int64(0), title: text(1), seconds: seconds32, album: album == 0 ? nil : album)
    }
}

func queries() {
    let path = (arguments.directory as NSString).appendingPathComponent("queries.sqlite")
    let data = QuerySongs(songCount: sizes.querySongs)
    let songs = data.generate()
    do {
        let db = open(path, create: true)
        db.execute("""
            CREATE TABLE album(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
            CREATE TABLE song(id INTEGER PRIMARY KEY, title TEXT NOT NULL, seconds INTEGER NOT NULL,
                              album INTEGER REFERENCES album(id));
            CREATE INDEX song_seconds ON song(seconds);
            CREATE INDEX song_album_title ON song(album, title);
            """)
        let insertAlbum = db.prepare("INSERT INTO album(id, name) VALUES (?, ?)")
        let insertSong = db.prepare("INSERT INTO song(title, seconds, album) VALUES (?, ?, ?)")
        let timing = timed {
            db.execute("BEGIN")
            for number in 1 ... data.albumCount {
                insertAlbum.bind(1, Int64(number))
                insertAlbum.bind(2, QuerySongs.albumName(number))
                insertAlbum.run()
                insertAlbum.reset()
            }
            for song in songs {
                insertSong.bind(1, song.title)
                insertSong.bind(2, Int64(song.seconds))
                insertSong.bind(3, Int64(song.album))
                insertSong.run()
                insertSong.reset()
            }
            db.execute("COMMIT")
            return (count(db, "song"), "albums_\(count(db, "album"))")
        }
        insertAlbum.finalize()
        insertSong.finalize()
        db.close()
        reporter.report("insert", timing, path)
    }

    let db = open(path)
    let byLength = db.prepare("SELECT id, title, seconds, album FROM song WHERE seconds = ?")
    let byRange = db.prepare("SELECT id, title, seconds, album FROM song WHERE seconds BETWEEN ? AND ?")
    let byAlbum = db.prepare("SELECT id, title, seconds, album FROM song WHERE album = ? ORDER BY title LIMIT \(QuerySongs.pageSize)")
    let countRange = db.prepare("SELECT count(*) FROM song WHERE seconds BETWEEN ? AND ?")
    /// Prints the statement's plan to stderr; stops unless it searches `index`.
    func checkPlan(_ statement: Statement, uses index: String, phase: String) {
        let explain = db.prepare("EXPLAIN QUERY PLAN " + statement.sql)
        var details: [String] = []
        while explain.step() { details.append(explain.text(3)) }
        explain.finalize()
        let plan = details.joined(separator: "; ")
        FileHandle.standardError.write(Data("Queries \(phase): \(plan)\n".utf8))
        if !plan.contains("INDEX \(index)") || plan.contains("TEMP B-TREE") { fail("Queries \(phase): not the plan measured: \(plan)") }
    }
    /// Makes the statement's rows into songs, added to `checksum`.
    func find(_ statement: Statement, _ checksum: inout SongChecksum) {
        var found: [AlbumSong] = []
        while statement.step() { found.append(statement.albumSong()) }
        statement.reset()
        for song in found { checksum.add(title: song.title, seconds: song.seconds, album: Int(song.album ?? 0)) }
    }
    func bindRange(_ statement: Statement, _ start: UInt32) {
        statement.bind(1, Int64(start))
        statement.bind(2, Int64(data.rangeEnd(start)))
    }

    var timings: [(String, Timing)] = []
    checkPlan(byLength, uses: "song_seconds", phase: "equal")
    timings.append(("equal", timed {
        var checksum = SongChecksum()
        for value in data.equalValues {
            byLength.bind(1, Int64(value))
            find(byLength, &checksum)
        }
        return checksum.result
    }))
    checkPlan(byRange, uses: "song_seconds", phase: "range1pct")
    timings.append(("range1pct", timed {
        var checksum = SongChecksum()
        for start in data.rangeStarts {
            bindRange(byRange, start)
            find(byRange, &checksum)
        }
        return checksum.result
    }))
    checkPlan(byAlbum, uses: "song_album_title", phase: "albumFirst20")
    timings.append(("albumFirst20", timed {
        var checksum = SongChecksum(ordered: true)
        for album in data.pageAlbums {
            byAlbum.bind(1, Int64(album))
            find(byAlbum, &checksum)
        }
        return checksum.result
    }))
    checkPlan(countRange, uses: "song_seconds", phase: "count")
    timings.append(("count", timed {
        var total = 0
        for start in data.countStarts {
            bindRange(countRange, start)
            guard countRange.step() else { fail("no count") }
            total += Int(countRange.int64(0))
            countRange.reset()
        }
        return (total, "counts_\(data.countStarts.count)")
    }))
    for statement in [byLength, byRange, byAlbum, countRange] { statement.finalize() }
    db.close()
    for (phase, timing) in timings { reporter.report(phase, timing, path) }
}
