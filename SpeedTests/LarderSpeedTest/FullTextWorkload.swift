// FullText on Larder: a million song titles with an indexed title, inserted in one save, then
// searched with the full-text index; each search fetches its objects' titles (the faults are
// loaded), and is timed again as a count (countOfObjects, no objects). See SpeedSupport/FullTextCorpus.swift for the data and the searches.

import Foundation
import Larder
import SpeedSupport

/// A song whose title is indexed for full-text search.
final class TitledSong: StoredObject {
    @Stored var title = ""

    override func writeContent(to buffer: inout DataBuffer) { buffer.write(title) }
    override func readContent(from buffer: inout DataBuffer, in store: Store) throws { title = try buffer.readString() }
    override func indexedText() -> [String: String] { ["title": title] }
}

func fullText() throws {
    let path = (arguments.directory as NSString).appendingPathComponent("fulltext.larder")
    let corpus = FullTextCorpus()
    let titles = corpus.titles(count: sizes.fullTextTitles)
    func open() throws -> Store {
        var configuration = Store.Configuration()
        configuration.durability = arguments.durability == "full" ? .full : .noSync
        let store = try Store(path: path, configuration: configuration)
        try store.register(TitledSong.self)
        return store
    }
    do {
        let store = try open()
        try reporter.measure(phase: "insert", storePath: path) {
            for title in titles {
                let song = TitledSong()
                song.title = title
                try store.insert(song)
            }
            try store.saveChanges()
            return (try store.count(of: TitledSong.self), titles[0])
        }
        try store.close()
    }
    let indexFiles = ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).filter { $0.hasPrefix("_text") }
    let indexBytes = indexFiles.reduce(0) { $0 + SpeedReporter.size(of: (path as NSString).appendingPathComponent($1)) }
    reporter.report(phase: "index_size", wall: 0, cpu: 0, sizeBytes: indexBytes, count: indexFiles.count,
                    check: "index_bytes_\(indexBytes)")

    let store = try open()
    // The first search of a store reads the vocabulary into memory; the first wildcard search
    // indexes its trigrams.
    try reporter.measure(phase: "open_index", storePath: path) {
        (try store.countOfObjects(of: TitledSong.self, matchingText: "[[*qqqqqq*]]", forAttribute: "title"), "vocabulary")
    }
    for search in corpus.searches {
        let timing = try timedMean {
            let songs = try store.objects(of: TitledSong.self, matchingText: search.larder, forAttribute: "title")
            let titleBytes = songs.reduce(0) { $0 + $1.title.utf8.count }
            return (songs.count, "title_bytes_\(titleBytes)")
        }
        reporter.report(search.phase, timing, path)
        // The same search counted, without making or loading objects.
        let counting = try timedMean {
            (try store.countOfObjects(of: TitledSong.self, matchingText: search.larder, forAttribute: "title"), "count")
        }
        reporter.report(search.phase + "_count", counting, path)
    }
    try store.close()
}
