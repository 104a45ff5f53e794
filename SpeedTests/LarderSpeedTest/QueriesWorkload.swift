// Queries on Larder: a million songs in 10,000 albums, with indexes declared on `seconds` and on
// (album, title), inserted in one save; then, in the store reopened, each find through its index
// making the songs as objects (100 equality finds of about 100 songs, 10 finds of a 1% range,
// 100 album pages of 20 in title order) and 100 counts of a 1% range, taken from the index.
// Then the same on LarderDocuments (QueriesDocuments.swift). See SpeedSupport/QuerySongs.swift
// for the data and the arguments; each query's plan is printed to stderr before its phase, and a
// plan without its index stops the run. QUERIES_PHASES=insert,albumFirst20,… runs only the phases
// named (the finds need the store their insert wrote: `insert` for the objects, `documents_insert`
// for the documents), so that callgrind counts one phase per process.

import Foundation
import Larder
import SpeedSupport

/// An album, referenced by its songs.
final class Album: StoredObject {
    @Stored var name = ""

    override func writeContent(to buffer: inout DataBuffer) { buffer.write(name) }
    override func readContent(from buffer: inout DataBuffer, in store: Store) throws { name = try buffer.readString() }
}

/// A song with an album, indexed on its length and on its album then title.
final class IndexedSong: StoredObject {
    @Stored var title = ""
    @Stored var seconds: UInt32 = 0
    @Stored var album: Album? = nil

    override class var indexes: [ObjectIndex] {
        [ObjectIndex(\IndexedSong.seconds), ObjectIndex(\IndexedSong.album, \IndexedSong.title)]
    }

    override func writeContent(to buffer: inout DataBuffer) {
        buffer.write(title)
        buffer.write(seconds)
        buffer.writeReference(album)
    }

    override func readContent(from buffer: inout DataBuffer, in store: Store) throws {
        title = try buffer.readString()
        seconds = try buffer.readUInt32()
        album = try buffer.readReference(to: Album.self, in: store)
    }
}

/// A run that would not measure what it claims: a plan that reads no index (or a count that
/// needs the objects), or an album that is not where the songs' album numbers say.
struct QueriesSetupError: Error, CustomStringConvertible {
    let phase: String
    let problem: String
    var description: String { "Queries \(phase): \(problem)" }
}

/// The phases QUERIES_PHASES names (documents' phases with their `documents_` prefix), nil for all.
let selectedQueriesPhases = ProcessInfo.processInfo.environment["QUERIES_PHASES"].map { Set($0.split(separator: ",").map(String.init)) }

/// Whether the phase `phase` runs.
func runsQueriesPhase(_ phase: String) -> Bool { selectedQueriesPhases?.contains(phase) ?? true }

func queries() throws {
    let data = QuerySongs(songCount: sizes.querySongs)
    let phases = ["insert", "equal", "range1pct", "albumFirst20", "count"]
    let songs = runsQueriesPhase("insert") || runsQueriesPhase("documents_insert") ? data.generate() : []
    if phases.contains(where: runsQueriesPhase) { try queriesOnObjects(data, songs) }
    if phases.contains(where: { runsQueriesPhase("documents_" + $0) }) { try queriesOnDocuments(data, songs) }
}

/// Prints the plan of a phase's queries to stderr; throws unless it reads an index (and, for
/// a count, counts from it alone).
func checkPlan(_ explanation: QueryExplanation, phase: String, counting: Bool = false) throws {
    FileHandle.standardError.write(Data("Queries \(phase): \(explanation)\n".utf8))
    guard explanation.index != nil, !counting || explanation.countsFromIndex else {
        throw QueriesSetupError(phase: phase, problem: "not the plan measured: \(explanation)")
    }
}

private func queriesOnObjects(_ data: QuerySongs, _ songs: [QuerySongData]) throws {
    let path = (arguments.directory as NSString).appendingPathComponent("queries.larder")
    func open() throws -> Store {
        let store = try Store(path: path, configuration: Store.Configuration(durability: arguments.durability == "full" ? .full : .noSync))
        try store.register(Album.self)
        try store.register(IndexedSong.self)
        return store
    }
    if runsQueriesPhase("insert") {
        try? FileManager.default.removeItem(atPath: path)
        let store = try open()
        try reporter.measure(phase: "insert", storePath: path) {
            let albums = (1 ... data.albumCount).map { number -> Album in
                let album = Album()
                album.name = QuerySongs.albumName(number)
                return album
            }
            for album in albums { try store.insert(album) }
            for source in songs {
                let song = IndexedSong()
                song.title = source.title
                song.seconds = source.seconds
                song.album = albums[source.album - 1]
                try store.insert(song)
            }
            try store.saveChanges()
            return (try store.count(of: IndexedSong.self), "albums_\(try store.count(of: Album.self))")
        }
        try store.close()
    }

    // The finds read the store reopened: no object is alive when a phase starts but the
    // albums the pages ask for.
    let store = try open()
    let pageAlbums = try data.pageAlbums.map { number -> Album in
        guard let album = try store.object(of: Album.self, rowID: UInt64(number)), album.name == QuerySongs.albumName(number) else {
            throw QueriesSetupError(phase: "albumFirst20", problem: "album \(number) is not at rowID \(number)")
        }
        return album
    }
    func add(_ songs: [IndexedSong], to checksum: inout SongChecksum) {
        for song in songs { checksum.add(title: song.title, seconds: song.seconds, album: Int(song.album?.rowID ?? 0)) }
    }

    if runsQueriesPhase("equal") {
        try checkPlan(store.explain(of: IndexedSong.self, where: \.seconds == data.equalValues[0]), phase: "equal")
        try reporter.measure(phase: "equal", storePath: path) {
            var checksum = SongChecksum()
            for value in data.equalValues {
                add(try store.objects(of: IndexedSong.self, where: \.seconds == value), to: &checksum)
            }
            return checksum.result
        }
    }

    if runsQueriesPhase("range1pct") {
        let first = data.rangeStarts[0]
        try checkPlan(store.explain(of: IndexedSong.self, where: .between(\.seconds, first, data.rangeEnd(first))), phase: "range1pct")
        try reporter.measure(phase: "range1pct", storePath: path) {
            var checksum = SongChecksum()
            for start in data.rangeStarts {
                add(try store.objects(of: IndexedSong.self, where: .between(\.seconds, start, data.rangeEnd(start))), to: &checksum)
            }
            return checksum.result
        }
    }

    if runsQueriesPhase("albumFirst20") {
        try checkPlan(store.explain(of: IndexedSong.self, where: \.album == pageAlbums[0], orderBy: [.ascending(\.title)],
                                    limit: QuerySongs.pageSize), phase: "albumFirst20")
        try reporter.measure(phase: "albumFirst20", storePath: path) {
            var checksum = SongChecksum(ordered: true)
            for album in pageAlbums {
                add(try store.objects(of: IndexedSong.self, where: \.album == album, orderBy: [.ascending(\.title)],
                                      limit: QuerySongs.pageSize), to: &checksum)
            }
            return checksum.result
        }
    }

    if runsQueriesPhase("count") {
        let firstCount = data.countStarts[0]
        try checkPlan(store.explain(of: IndexedSong.self, where: .between(\.seconds, firstCount, data.rangeEnd(firstCount))),
                      phase: "count", counting: true)
        try reporter.measure(phase: "count", storePath: path) {
            var total = 0
            for start in data.countStarts {
                total += try store.count(of: IndexedSong.self, where: .between(\.seconds, start, data.rangeEnd(start)))
            }
            return (total, "counts_\(data.countStarts.count)")
        }
    }
    try store.close()
}
