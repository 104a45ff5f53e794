// Queries on LarderDocuments: the Queries workload's songs as documents {title, seconds, album}
// (album: the album's number) in one collection with indexes on [seconds] and on [album],
// [title], inserted in one batch; then, in the store reopened with the document cache off, the
// same finds and counts as on objects (QueriesWorkload.swift), prepared outside their phases,
// each reading every found document's fields. Phases are named `documents_<phase>`, so the
// report puts them beside the objects' and SQLite's.

import Foundation
import Larder
import LarderDocuments
import SpeedSupport

func queriesOnDocuments(_ data: QuerySongs, _ songs: [QuerySongData]) throws {
    let path = (arguments.directory as NSString).appendingPathComponent("queries-documents.larder")
    let configuration = Store.Configuration(durability: arguments.durability == "full" ? .full : .noSync)
    if runsQueriesPhase("documents_insert") {
        try? FileManager.default.removeItem(atPath: path)
        let store = try DocumentStore(path: path, configuration: configuration)
        let collection = try store.collection("songs")
        try collection.addIndex("[seconds]")
        try collection.addIndex("[album], [title]")
        try reporter.measure(phase: "documents_insert", storePath: path) {
            let documents: [JSON] = songs.map { song in
                ["title": .string(song.title), "seconds": .int(Int64(song.seconds)), "album": .int(Int64(song.album))]
            }
            let rowIDs = try collection.insertBatch(documents)
            return (try collection.count(), "last_\(rowIDs.last ?? 0)")
        }
        try store.close()
    }

    let store = try DocumentStore(path: path, configuration: configuration)
    let collection = try store.collection("songs")
    try collection.setCacheSize(0)   // measure the store, not the cache
    let byLength = try collection.prepare(where: "[seconds] = ?")
    let byRange = try collection.prepare(where: "[seconds] BETWEEN ? AND ?")
    let byAlbum = try collection.prepare(where: "[album] = ?", orderBy: "[title]", limit: QuerySongs.pageSize)
    func add(_ documents: [JSON], to checksum: inout SongChecksum) {
        for document in documents {
            checksum.add(title: document["title"].stringValue ?? "", seconds: UInt32(document["seconds"].intValue ?? 0),
                         album: Int(document["album"].intValue ?? 0))
        }
    }
    func range(_ start: UInt32) -> [JSON] { [.int(Int64(start)), .int(Int64(data.rangeEnd(start)))] }
    /// Prints the plan to stderr; throws when it reads no index.
    func checkPlan(_ plan: String, phase: String) throws {
        FileHandle.standardError.write(Data("Queries \(phase): \(plan)\n".utf8))
        guard plan.hasPrefix("index") else { throw QueriesSetupError(phase: phase, problem: "not the plan measured: \(plan)") }
    }

    if runsQueriesPhase("documents_equal") {
        try checkPlan(byLength.explain(arguments: [.int(Int64(data.equalValues[0]))]), phase: "documents_equal")
        try reporter.measure(phase: "documents_equal", storePath: path) {
            var checksum = SongChecksum()
            for value in data.equalValues { add(try byLength.find(arguments: [.int(Int64(value))]), to: &checksum) }
            return checksum.result
        }
    }
    if runsQueriesPhase("documents_range1pct") {
        try checkPlan(byRange.explain(arguments: range(data.rangeStarts[0])), phase: "documents_range1pct")
        try reporter.measure(phase: "documents_range1pct", storePath: path) {
            var checksum = SongChecksum()
            for start in data.rangeStarts { add(try byRange.find(arguments: range(start)), to: &checksum) }
            return checksum.result
        }
    }
    if runsQueriesPhase("documents_albumFirst20") {
        try checkPlan(byAlbum.explain(arguments: [.int(Int64(data.pageAlbums[0]))]), phase: "documents_albumFirst20")
        try reporter.measure(phase: "documents_albumFirst20", storePath: path) {
            var checksum = SongChecksum(ordered: true)
            for album in data.pageAlbums { add(try byAlbum.find(arguments: [.int(Int64(album))]), to: &checksum) }
            return checksum.result
        }
    }
    if runsQueriesPhase("documents_count") {
        try checkPlan(byRange.explain(arguments: range(data.countStarts[0])), phase: "documents_count")
        try reporter.measure(phase: "documents_count", storePath: path) {
            var total = 0
            for start in data.countStarts { total += try byRange.count(arguments: range(start)) }
            return (total, "counts_\(data.countStarts.count)")
        }
    }
    try store.close()
}
