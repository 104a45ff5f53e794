// The README's documents example, as written (with a temporary path), and what it prints.

import Foundation
import Testing
import LarderDocuments

@Suite struct ReadmeExampleTests {
    @Test func theReadmeExampleRuns() async throws {
        let path = NSTemporaryDirectory() + "larder-readme-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try DocumentStore(path: path)
        let people = try store.collection("people")              // created on first use
        try await people.addUniqueIndex("[email]")
        try await people.addIndex("[last_name], [first_name]")
        try await people.addIndex("[tags]")                            // one entry per element
        try await people.setAliases(["country": "[address.country]"])

        let id = try await people.insert(["email": "ada@example.com", "first_name": "Ada", "last_name": "Lovelace",
                                          "address": ["country": "UK"], "tags": ["math", "poetry"], "age": 36])
        let britons = try await people.find(where: "country = ? AND [age] BETWEEN ? AND ?", arguments: ["UK", 30, 40],
                                            orderBy: "[last_name], [first_name]", limit: 20)
        let poets = try await people.count(where: "[tags] CONTAINS ?", arguments: ["poetry"])
        let plan = try await people.explain(where: "[last_name] = ?", arguments: ["Lovelace"])
        #expect(plan == #"index [last_name], [first_name]: [last_name] = "Lovelace" (1 range, exact)"#)

        var ada = try #require(try await people.document(id: id))
        ada["age"] = 37
        try await people.update(ada)                                   // needs "__rowid__"
        try await people.delete(where: "[age] < ?", arguments: [18])
        let later = try await people.find(where: "[email] LIKE ?", arguments: ["%@example.com"])   // async forms too

        // Prepared once, run with many arguments (as SQLite's prepared statements):
        let byName = try await people.prepare(where: "[last_name] >= ?", orderBy: "[last_name], [first_name]", limit: 20)
        let page = try await byName.find(arguments: ["L"])
        let howMany = try await byName.count(arguments: ["L"])               // limit and offset apply to finds only
        try store.close()
        #expect(britons.count == 1 && poets == 1 && later.first?["age"] == 37)
        #expect(page.map { $0["first_name"] } == ["Ada"] && howMany == 1)
    }
}
