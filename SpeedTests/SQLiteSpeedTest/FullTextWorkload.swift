// FullText on SQLite: the same million titles in song(id, title) with an FTS5 index using the
// trigram tokenizer (external content: the index does not copy the titles), inserted in one
// transaction; then each search through FTS5 MATCH and, for comparison, as a LIKE scan of the
// table. Each search reads every matching title. See SpeedSupport/FullTextCorpus.swift.

import CSQLite
import Foundation
import SpeedSupport

func fullText() {
    let path = (arguments.directory as NSString).appendingPathComponent("fulltext.sqlite")
    let corpus = FullTextCorpus()
    let titles = corpus.titles(count: sizes.fullTextTitles)
    do {
        let db = open(path, create: true)
        db.execute("""
            CREATE TABLE song(id INTEGER PRIMARY KEY, title TEXT NOT NULL);
            CREATE VIRTUAL TABLE song_fts USING fts5(title, content='song', content_rowid='id', tokenize='trigram');
            """)
        let insertSong = db.prepare("INSERT INTO song(title) VALUES (?)")
        let insertIndex = db.prepare("INSERT INTO song_fts(rowid, title) VALUES (?, ?)")
        let countSongs = db.prepare("SELECT count(*) FROM song")
        let timing = timed {
            db.execute("BEGIN")
            for title in titles {
                insertSong.bind(1, title)
                insertSong.run()
                insertSong.reset()
                insertIndex.bind(1, db.lastInsertRowID)
                insertIndex.bind(2, title)
                insertIndex.run()
                insertIndex.reset()
            }
            db.execute("COMMIT")
            guard countSongs.step() else { fail("no count") }
            let count = Int(countSongs.int64(0))
            countSongs.reset()
            return (count, titles[0])
        }
        for statement in [insertSong, insertIndex, countSongs] { statement.finalize() }
        db.close()
        reporter.report("insert", timing, path)
    }

    let db = open(path)
    let indexSize = db.prepare("SELECT coalesce(sum(pgsize), 0), count(DISTINCT name) FROM dbstat WHERE name LIKE 'song_fts%'")
    guard indexSize.step() else { fail("no dbstat row") }
    let indexBytes = Int(indexSize.int64(0))
    reporter.report(phase: "index_size", wall: 0, cpu: 0, sizeBytes: indexBytes, count: Int(indexSize.int64(1)),
                    check: "index_bytes_\(indexBytes)")
    indexSize.finalize()
    let match = db.prepare("SELECT rowid, title FROM song_fts WHERE song_fts MATCH ? ORDER BY rowid")
    for search in corpus.searches {
        let where_ = search.like.indices.map { _ in "title LIKE ?" }.joined(separator: " AND ")
        let like = db.prepare("SELECT id, title FROM song WHERE \(where_) ORDER BY id")
        for (phase, statement) in [(search.phase, match), (search.phase + "_like", like)] {
            let timing = timedMean {
                if statement === match {
                    statement.bind(1, search.fts5)
                } else {
                    for (index, pattern) in search.like.enumerated() { statement.bind(Int32(index + 1), pattern) }
                }
                var count = 0, titleBytes = 0
                while statement.step() {
                    count += 1
                    titleBytes += statement.text(1).utf8.count
                }
                statement.reset()
                return (count, "title_bytes_\(titleBytes)")
            }
            reporter.report(phase, timing, path)
        }
        like.finalize()
    }
    match.finalize()
    db.close()
}
