// Documents: the Documents workload on LarderDocuments (see UserDocuments in SpeedSupport):
// insertBatch, equality find, range find with orderBy + limit 20 (once, then from 100 starts),
// array-contains find, count, and update of 10% of the documents. As SQLite's statements,
// the queries are prepared outside the timed phases and run with their arguments in them.

import Foundation
import Larder
import LarderDocuments
import SpeedSupport

func documents() throws {
    let path = (arguments.directory as NSString).appendingPathComponent("documents.larder")
    let configuration = Store.Configuration(durability: arguments.durability == "full" ? .full : .noSync)
    let store = try DocumentStore(path: path, configuration: configuration)
    let users = try store.collection("users")
    try users.addIndex("[address.country]")
    try users.addIndex("[last_name], [first_name]")
    try users.addIndex("[tags]")
    let source = UserDocuments.generate(count: sizes.documents)
    try reporter.measure(phase: "insertBatch", storePath: path) {
        let documents: [JSON] = source.map { user in
            ["first_name": .string(user.firstName), "last_name": .string(user.lastName), "age": .int(Int64(user.age)),
             "address": ["country": .string(user.country), "city": .string(user.city)],
             "tags": .array(user.tags.map(JSON.string))]
        }
        let rowIDs = try users.insertBatch(documents)
        return (rowIDs.count, "last_\(rowIDs.last ?? 0)")
    }
    try users.setCacheSize(0)   // measure the store, not the cache
    let byCountry = try users.prepare(where: "[address.country] = ?")
    let byName = try users.prepare(where: "[last_name] >= ?", orderBy: "[last_name], [first_name]", limit: 20)
    let byTag = try users.prepare(where: "[tags] CONTAINS ?")
    let byRowID = try users.prepare(where: "[__rowid__] = ?")
    try reporter.measure(phase: "findEqual", storePath: path) {
        let found = try byCountry.find(arguments: [.string(UserDocuments.findCountry)])
        return (found.count, "first_id_\(found.first?["__rowid__"].intValue ?? 0)")
    }
    try reporter.measure(phase: "findRangeOrderLimit", storePath: path) {
        let found = try byName.find(arguments: [.string(UserDocuments.rangeStart)])
        return (found.count, "first_id_\(found.first?["__rowid__"].intValue ?? 0)")
    }
    try reporter.measure(phase: "findRange100", storePath: path) {
        var rows = 0, firstIDs: Int64 = 0
        for start in UserDocuments.rangeStarts {
            let found = try byName.find(arguments: [.string(start)])
            rows += found.count
            firstIDs += found.first?["__rowid__"].intValue ?? 0
        }
        return (rows, "first_ids_\(firstIDs)")
    }
    try reporter.measure(phase: "findTag", storePath: path) {
        let found = try byTag.find(arguments: [.string(UserDocuments.findTag)])
        return (found.count, "first_id_\(found.first?["__rowid__"].intValue ?? 0)")
    }
    try reporter.measure(phase: "count", storePath: path) {
        let count = try byCountry.count(arguments: [.string(UserDocuments.countCountry)])
        return (count, "count")
    }
    try reporter.measure(phase: "update10pct", storePath: path) {
        // Every tenth document gets a year older and moves country, in one atomic batch.
        var changed: [JSON] = []
        for rowID in stride(from: Int64(1), through: Int64(source.count), by: 10) {
            guard var user = try byRowID.findOne(arguments: [.int(rowID)]) else { continue }
            user["age"] = .int((user["age"].intValue ?? 0) + 1)
            user["address"]["country"] = .string(UserDocuments.countries[Int(rowID) % UserDocuments.countries.count])
            changed.append(user)
        }
        try users.updateBatch(changed)
        return (changed.count, "updated")
    }
    try measureCompaction(at: path, store.compact)
    try store.close()
}
