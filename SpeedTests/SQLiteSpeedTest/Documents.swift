// Documents: the Documents workload on SQLite 3's JSON functions, as a SQLite user would
// build it (see UserDocuments in SpeedSupport):
//   users(id INTEGER PRIMARY KEY, doc TEXT NOT NULL)   the documents as JSON text
//   expression indexes on json_extract(doc, '$.address.country') and on
//   (json_extract(doc, '$.last_name'), json_extract(doc, '$.first_name'))
//   user_tags(tag, user) WITHOUT ROWID                  the side table kept for tags
// Finds return (id, JSON text) pairs: what SQLite hands an application. The tag find is timed
// through the side table (findTag) and through json_each without it (findTagJSONEach).

import Foundation
import SpeedSupport

func documents() {
    let path = (arguments.directory as NSString).appendingPathComponent("documents.sqlite")
    let db = open(path, create: true)
    db.execute("""
        CREATE TABLE users(id INTEGER PRIMARY KEY, doc TEXT NOT NULL);
        CREATE INDEX users_country ON users(json_extract(doc, '$.address.country'));
        CREATE INDEX users_name ON users(json_extract(doc, '$.last_name'), json_extract(doc, '$.first_name'));
        CREATE TABLE user_tags(tag TEXT NOT NULL, user INTEGER NOT NULL, PRIMARY KEY (tag, user)) WITHOUT ROWID;
        """)
    let source = UserDocuments.generate(count: sizes.documents)
    var timings: [(String, Timing)] = []
    func fetch(_ statement: Statement) -> (count: Int, check: String) {
        var rows: [(Int64, String)] = []
        while statement.step() { rows.append((statement.int64(0), statement.text(1))) }
        statement.reset()
        return (rows.count, "first_id_\(rows.first?.0 ?? 0)")
    }

    let insertUser = db.prepare("INSERT INTO users(doc) VALUES (?)")
    let insertTag = db.prepare("INSERT INTO user_tags(tag, user) VALUES (?, ?)")
    timings.append(("insertBatch", timed {
        db.execute("BEGIN")
        for user in source {
            insertUser.bind(1, user.jsonText)
            insertUser.run()
            insertUser.reset()
            let id = db.lastInsertRowID
            for tag in user.tags {
                insertTag.bind(1, tag)
                insertTag.bind(2, id)
                insertTag.run()
                insertTag.reset()
            }
        }
        db.execute("COMMIT")
        return (source.count, "last_\(db.lastInsertRowID)")
    }))
    insertUser.finalize()
    insertTag.finalize()

    // The finds: each statement prepared outside its timed phase, run once with its argument.
    let finds: [(phase: String, sql: String, argument: String)] = [
        ("findEqual", "SELECT id, doc FROM users WHERE json_extract(doc, '$.address.country') = ?", UserDocuments.findCountry),
        ("findRangeOrderLimit", """
            SELECT id, doc FROM users WHERE json_extract(doc, '$.last_name') >= ?
            ORDER BY json_extract(doc, '$.last_name'), json_extract(doc, '$.first_name') LIMIT 20
            """, UserDocuments.rangeStart),
        ("findTag", "SELECT u.id, u.doc FROM user_tags t JOIN users u ON u.id = t.user WHERE t.tag = ?", UserDocuments.findTag),
        ("findTagJSONEach", "SELECT id, doc FROM users WHERE EXISTS (SELECT 1 FROM json_each(doc, '$.tags') WHERE value = ?)",
         UserDocuments.findTag),
    ]
    for find in finds {
        let statement = db.prepare(find.sql)
        timings.append((find.phase, timed {
            statement.bind(1, find.argument)
            return fetch(statement)
        }))
        statement.finalize()
    }
    // The range find again from 100 starts, one prepared statement.
    let range = db.prepare(finds[1].sql)
    timings.append(("findRange100", timed {
        var rows = 0
        var firstIDs: Int64 = 0
        for start in UserDocuments.rangeStarts {
            range.bind(1, start)
            var first: Int64?
            while range.step() {
                _ = range.text(1)
                first = first ?? range.int64(0)
                rows += 1
            }
            range.reset()
            firstIDs += first ?? 0
        }
        return (rows, "first_ids_\(firstIDs)")
    }))
    range.finalize()
    let count = db.prepare("SELECT count(*) FROM users WHERE json_extract(doc, '$.address.country') = ?")
    timings.append(("count", timed {
        count.bind(1, UserDocuments.countCountry)
        guard count.step() else { fail("no count") }
        let result = Int(count.int64(0))
        count.reset()
        return (result, "count")
    }))
    let update = db.prepare("""
        UPDATE users SET doc = json_set(doc, '$.age', json_extract(doc, '$.age') + 1, '$.address.country', ?) WHERE id = ?
        """)
    timings.append(("update10pct", timed {
        // Every tenth document gets a year older and moves country, in one transaction.
        db.execute("BEGIN")
        var updated = 0
        for rowID in stride(from: Int64(1), through: Int64(source.count), by: 10) {
            update.bind(1, UserDocuments.countries[Int(rowID) % UserDocuments.countries.count])
            update.bind(2, rowID)
            update.run()
            update.reset()
            updated += 1
        }
        db.execute("COMMIT")
        return (updated, "updated")
    }))
    for statement in [count, update] { statement.finalize() }
    db.close()
    for (phase, timing) in timings { reporter.report(phase, timing, path) }
}
