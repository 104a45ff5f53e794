// Documents: the Documents workload on LarderDocuments (see UserDocuments in SpeedSupport):
// insertBatch, equality find, range find with orderBy + limit 20 (once, then from 100 starts),
// array-contains find, count, and update of 10% of the documents. As SQLite's statements,
// the queries are prepared outside the timed phases and run with their arguments in them.
// DOCUMENTS_PHASES=insertBatch,update10pct,… runs only the phases named (the others read the
// store insertBatch wrote, and update10pct changes it), so that callgrind counts one phase per
// process.

import Foundation
import Larder
import LarderDocuments
import SpeedSupport

/// The phases DOCUMENTS_PHASES names, nil for all.
private let selectedDocumentsPhases = ProcessInfo.processInfo.environment["DOCUMENTS_PHASES"].map {
    Set($0.split(separator: ",").map(String.init))
}

func documents() throws {
    let path = (arguments.directory as NSString).appendingPathComponent("documents.larder")
    func runs(_ phase: String) -> Bool { selectedDocumentsPhases?.contains(phase) ?? true }
    /// Measures the phase `phase` when it runs.
    func measure(_ phase: String, _ body: () throws -> (count: Int, check: String)) throws {
        if runs(phase) { try reporter.measure(phase: phase, storePath: path, body) }
    }
    // A run of insertBatch starts from an empty store; a run without it reads the store there.
    if runs("insertBatch") { try? FileManager.default.removeItem(atPath: path) }
    let configuration = Store.Configuration(durability: arguments.durability == "full" ? .full : .noSync)
    let store = try DocumentStore(path: path, configuration: configuration)
    let users = try store.collection("users")
    try users.addIndex("[address.country]")
    try users.addIndex("[last_name], [first_name]")
    try users.addIndex("[tags]")
    let source = UserDocuments.generate(count: sizes.documents)
    try measure("insertBatch") {
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
    try measure("findEqual") {
        let found = try byCountry.find(arguments: [.string(UserDocuments.findCountry)])
        return (found.count, "first_id_\(found.first?["__rowid__"].intValue ?? 0)")
    }
    try measure("findRangeOrderLimit") {
        let found = try byName.find(arguments: [.string(UserDocuments.rangeStart)])
        return (found.count, "first_id_\(found.first?["__rowid__"].intValue ?? 0)")
    }
    try measure("findRange100") {
        var rows = 0, firstIDs: Int64 = 0
        for start in UserDocuments.rangeStarts {
            let found = try byName.find(arguments: [.string(start)])
            rows += found.count
            firstIDs += found.first?["__rowid__"].intValue ?? 0
        }
        return (rows, "first_ids_\(firstIDs)")
    }
    try measure("findTag") {
        let found = try byTag.find(arguments: [.string(UserDocuments.findTag)])
        return (found.count, "first_id_\(found.first?["__rowid__"].intValue ?? 0)")
    }
    try measure("count") {
        let count = try byCountry.count(arguments: [.string(UserDocuments.countCountry)])
        return (count, "count")
    }
    try measure("update10pct") {
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
    if runs("compact") { try measureCompaction(at: path, store.compact) }
    try store.close()
}
