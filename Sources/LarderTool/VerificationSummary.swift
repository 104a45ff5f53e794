// VerificationSummary: what `larder verify` found: per class or collection what was checked,
// and every problem, each a sentence naming where it is. Objects are checked by Store.verify()
// (checksums, decoding of the registry and logs, references, counts, indexes); documents by
// reading every document and recomputing every index's entries.

import Larder
import LarderDocuments

struct VerificationSummary: Encodable {
    struct Class: Encodable {
        var name: String
        var records: Int
        var bytes: Int
    }

    struct Collection: Encodable {
        var name: String
        var documents: Int
        var indexes: Int
    }

    var path: String
    var healthy: Bool { problems.isEmpty }
    var classes: [Class] = []
    var namedBuffers = 0
    var changeRecords = 0
    var historyVersions = 0
    var referencesToDeletedRows = 0
    var collections: [Collection] = []
    var problems: [String] = []

    enum CodingKeys: String, CodingKey {
        case path, healthy, classes, namedBuffers, changeRecords, historyVersions, referencesToDeletedRows, collections, problems
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(path, forKey: .path)
        try container.encode(healthy, forKey: .healthy)
        try container.encode(classes, forKey: .classes)
        try container.encode(namedBuffers, forKey: .namedBuffers)
        try container.encode(changeRecords, forKey: .changeRecords)
        try container.encode(historyVersions, forKey: .historyVersions)
        try container.encode(referencesToDeletedRows, forKey: .referencesToDeletedRows)
        try container.encode(collections, forKey: .collections)
        try container.encode(problems, forKey: .problems)
    }

    /// Verifies the store `opener` opens, showing `progress` on the way.
    init(opening opener: StoreOpener, progress: ProgressBar?) throws {
        path = opener.path
        let kind = try opener.kind()
        if kind.holdsObjects {
            let store = try opener.openObjects()
            defer { try? store.close() }
            let report = try store.verify { checked, expected in progress?.update(checked, of: expected) }
            classes = report.classes.map { Class(name: $0.name, records: $0.recordCount, bytes: $0.byteCount) }
            namedBuffers = report.namedBufferCount
            changeRecords = report.changeRecordCount
            historyVersions = report.historyVersionCount
            referencesToDeletedRows = report.referencesToDeletedRows
            problems = report.problems.map(\.description)
        }
        if kind.holdsDocuments {
            let store = try opener.openDocuments()
            defer { try? store.close() }
            for name in try store.storedCollectionNames() {
                let collection = try store.collection(name)
                let expected = (try? collection.count()) ?? 0
                var checked = 0
                do {
                    try collection.forEachStoredDocument { _, _ in
                        checked += 1
                        progress?.update(checked, of: expected)
                        return true
                    }
                } catch {
                    problems.append("collection \(name): \(error) (the documents after it were not read)")
                }
                do {
                    for index in try collection.inconsistentIndexes() {
                        problems.append("collection \(name): index \(index) disagrees with the documents (drop and add it to rebuild it)")
                    }
                } catch {
                    problems.append("collection \(name): \(error)")
                }
                collections.append(Collection(name: name, documents: checked, indexes: (try? collection.indexes.count) ?? 0))
            }
        }
        progress?.finish()
    }

    /// The summary as text: what was checked, then "healthy" or the problems.
    var rendered: String {
        var text = ""
        if !classes.isEmpty {
            var table = TextTable(["class", "records", "bytes"], numeric: [1, 2])
            for info in classes { table.append([info.name, "\(info.records)", "\(info.bytes)"]) }
            text += table.rendered
            text += "named buffers: \(namedBuffers), change records: \(changeRecords), history versions: \(historyVersions)\n"
            if referencesToDeletedRows > 0 {
                text += "references to deleted rows (read as nil, not damage): \(referencesToDeletedRows)\n"
            }
        }
        if !collections.isEmpty {
            var table = TextTable(["collection", "documents", "indexes"], numeric: [1, 2])
            for info in collections { table.append([info.name, "\(info.documents)", "\(info.indexes)"]) }
            text += table.rendered
        }
        if healthy {
            text += "\(path): healthy\n"
        } else {
            text += "\(path): \(problems.count) problem\(problems.count == 1 ? "" : "s")\n"
            for problem in problems { text += "  \(problem)\n" }
        }
        return text
    }
}
