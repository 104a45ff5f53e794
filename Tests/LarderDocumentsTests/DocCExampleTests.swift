// The central examples of the LarderDocuments DocC articles (QueryLanguage, IndexesAndExplain,
// ConcurrencyAndAsync, Codable), run as the articles write them, with what the articles say
// they give, so that the articles cannot drift from the API or the engine's behaviour.

import Foundation
import Larder
import LarderTestSupport
import Testing
@testable import LarderDocuments

@Suite struct DocCExampleTests {
    // MARK: QueryLanguage.md

    /// The collection the query-language article starts with.
    private func queryArticlePeople(_ temporary: TemporaryStore) throws -> DocumentCollection {
        let people = try temporary.store.collection("people")
        try people.insertBatch([
            ["name": "Ada", "last_name": "Lovelace", "first_name": "Ada", "age": 36,
             "address": ["country": "UK", "city": "London"], "tags": ["math", "poetry"],
             "items": [["sku": "A-1"], ["sku": "B-2"]]],
            ["name": "Grace", "last_name": "Hopper", "first_name": "Grace", "age": 45,
             "address": ["country": "US"], "tags": ["navy"]],
            ["name": "Byron", "last_name": "Lovelace", "first_name": "Byron", "age": 12,
             "address": ["country": "FR"]],
        ])
        return people
    }

    private func names(_ documents: [JSON]) -> [String] {
        documents.map { $0["name"].stringValue ?? "?" }
    }

    @Test(arguments: BackendKind.withEtcd) func theQueryLanguageOperationsAndValues(_ backend: BackendKind) throws {
        let temporary = try TemporaryStore(backend: backend)
        let people = try queryArticlePeople(temporary)
        let adults = try people.find(where: "[age] >= ? AND [address.country] IN (?, ?)", arguments: [18, "UK", "US"],
                                     orderBy: "[last_name], [first_name] DESC", limit: 20)
        #expect(names(adults) == ["Grace", "Ada"])
        #expect(try people.count(where: "[tags] CONTAINS ?", arguments: ["poetry"]) == 1)
        #expect(try people.count(where: "[age] < ?", arguments: [18]) == 1)
        #expect(names(try people.find()) == ["Ada", "Grace", "Byron"])
        // Paths.
        #expect(names(try people.find(where: "[items.0.sku] = 'A-1'")) == ["Ada"])
        #expect(try people.count(where: "[items.sku] = 'A-1'") == 0)
        #expect(try people.count(where: "[items.sku] IS NULL") == 3)
        #expect(names(try people.find(where: "[__rowid__] >= ?", arguments: [.rowID(2)])) == ["Grace", "Byron"])
        #expect(throws: QueryError.self) { try people.count(where: "[a..b] = 1") }
        // Values: arrays and objects as arguments, literals of every kind.
        #expect(names(try people.find(where: "[tags] = ?", arguments: [["math", "poetry"]])) == ["Ada"])
        #expect(names(try people.find(where: "[address] = ?", arguments: [["country": "US"]])) == ["Grace"])
        #expect(try people.count(where: "[age] = 36.0") == 1)
        #expect(try people.count(where: "[age] = 3.6e1") == 1)
        #expect(try people.count(where: "[age] > -1e3 AND [age] < 99999999999999999999") == 3)
        #expect(try people.count(where: "[name] = \"Ada\" and [age] = 36") == 1)
        #expect(try people.count(where: "[name] = 'it''s'") == 0)
        #expect(try people.count(where: "? <= [age]", arguments: [40]) == 1)
        #expect(try people.count(where: "[first_name] = [name]") == 3)
        // Operators.
        #expect(try people.count(where: "[name] LIKE 'a%'") == 1)
        #expect(try people.count(where: "[name] LIKE 'A_A'") == 1)
        #expect(try people.count(where: "[age] NOT LIKE '%'") == 0)
        #expect(try people.count(where: "[tags] CONTAINS 'navy' OR [tags] CONTAINS 'math'") == 2)
        #expect(try people.count(where: "[address.country] NOT IN ('UK')") == 2)
        #expect(try people.count(where: "[age] NOT BETWEEN 30 AND 40") == 2)
        #expect(try people.count(where: "NOT [age] = 36 OR [age] = 45 AND [name] = 'Nobody'") == 2)
    }

    @Test(arguments: BackendKind.withEtcd) func theQueryLanguageOrderAndNulls(_ backend: BackendKind) throws {
        let temporary = try TemporaryStore(backend: backend)
        let people = try queryArticlePeople(temporary)
        // One order across types.
        #expect(JSON.compare(.int(9_007_199_254_740_993), .double(9_007_199_254_740_992)) == 1)
        #expect(JSON.compare("Z", "a") == -1 && JSON.compare("é", "z") == 1)
        try people.insert(["name": "Forty", "age": "forty"])
        #expect(names(try people.find(where: "[age] > 40")) == ["Grace", "Forty"])
        #expect(names(try people.find(where: "[age] > 40 AND [age] < 'a'")) == ["Grace"])
        #expect(try people.delete(where: "[name] = 'Forty'") == 1)
        // Nulls and missing fields.
        try people.setDefaultJSON(["active": true])
        #expect(try people.count(where: "[active] = TRUE") == 3)
        #expect(try people.find().allSatisfy { $0["active"] == .null })
        #expect(try people.count(where: "[nickname] IS NULL") == 3)
        #expect(try people.count(where: "[nickname] = NULL") == 3)
        #expect(try people.count(where: "[nickname] > 'a'") == 0)
        #expect(try people.count(where: "NOT [nickname] > 'a'") == 3)
        try people.insert(["name": "Nobody", "tags": ["x", nil]])
        #expect(try people.count(where: "[age] != 36") == 3)
        #expect(try people.count(where: "[age] <= 40") == 2)
        #expect(try people.count(where: "NOT [age] > 40") == 3)
        #expect(names(try people.find(where: "[tags] CONTAINS NULL")) == ["Nobody"])
        #expect(names(try people.find(orderBy: "[age]")) == ["Nobody", "Byron", "Ada", "Grace"])
        #expect(names(try people.find(orderBy: "[age] DESC", limit: 2, offset: 1)) == ["Ada", "Byron"])
    }

    @Test(arguments: BackendKind.withEtcd) func theQueryLanguageAliasesPreparedQueriesAndErrors(_ backend: BackendKind) throws {
        let temporary = try TemporaryStore(backend: backend)
        let people = try queryArticlePeople(temporary)
        try people.setAliases(["country": "[address.country]", "adult": "[age] >= 18",
                               "byName": "[last_name], [first_name]"])
        let britons = try people.find(where: "country = ? AND adult", arguments: ["UK"], orderBy: "byName")
        #expect(names(britons) == ["Ada"])
        #expect(names(try people.find(orderBy: "byName")) == ["Grace", "Ada", "Byron"])
        #expect(throws: DocumentError.invalidAlias("AND")) { try people.setAliases(["AND": "[x]"]) }
        #expect(throws: QueryError.self) { try people.setAliases(["x": "[x"]) }
        // Prepared queries.
        let byAge = try people.prepare(where: "[age] >= ?", orderBy: "[age]", limit: 10)
        #expect(names(try byAge.find(arguments: [18])) == ["Ada", "Grace"])
        #expect(try byAge.count(arguments: [18]) == 2)
        #expect(try byAge.findOne(arguments: [40])?["name"] == "Grace")
        #expect(try byAge.explain(arguments: [18]) == "full scan; then sort")
        try people.addIndex("[age]")
        #expect(try byAge.explain(arguments: [18]) == "index [age]: range [age] >= 18 (1 range, exact); order from the index")
        // Errors, with the positions and messages of the article's table.
        func failure(_ query: String, _ arguments: [JSON] = []) -> QueryError? {
            do {
                _ = try people.find(where: query, arguments: arguments)
                return nil
            } catch {
                return error as? QueryError
            }
        }
        let error = failure("[age] >> ?", [30])
        #expect(error?.position == 7 && error?.message == "expected a value after '>'")
        #expect(error?.description == #"query error at 7: expected a value after '>' in "[age] >> ?""#)
        #expect(failure("[name] = Ada").map { "\($0.position) \($0.message)" } == "9 unknown word 'Ada': fields are written [name]")
        #expect(failure("[age] = ?").map { "\($0.position) \($0.message)" } == "8 placeholder 1 has no argument (0 given)")
        #expect(failure("[age] = ?", [1, 2]).map { "\($0.position) \($0.message)" }
                == "9 the query has 1 placeholders but 2 arguments were given")
        #expect(failure("[age] IS 5").map { "\($0.position) \($0.message)" } == "9 expected NULL after IS")
        #expect(failure("[age] BETWEEN 1 5").map { "\($0.position) \($0.message)" } == "16 expected AND in BETWEEN")
        #expect(failure("[na").map { "\($0.position) \($0.message)" } == "0 unterminated field: expected ']'")
        #expect(failure("[age] = 1 ;").map { "\($0.position) \($0.message)" } == "10 unexpected character ';'")
        try people.setAliases(["broken": "[age] >> 1"])
        #expect(failure("[name] = 'Ada' AND broken")?.position == 19)
        #expect(throws: QueryError.self) { try people.find(limit: -1) }
        let deep = String(repeating: "(", count: 101) + "[a] = 1" + String(repeating: ")", count: 101)
        #expect(failure(deep)?.message == "nested more than 100 deep")
        var nested: JSON = 1
        for _ in 0 ..< 101 { nested = [nested] }
        #expect(throws: DocumentError.nestedTooDeeply) { try people.insert(["deep": nested]) }
        #expect(try people.count() == 3)
    }

    // MARK: IndexesAndExplain.md

    @Test(arguments: BackendKind.withEtcd) func theIndexesArticle(_ backend: BackendKind) throws {
        let temporary = try TemporaryStore(backend: backend)
        let people = try temporary.store.collection("people")
        try people.insertBatch([
            ["last_name": "Lovelace", "first_name": "Ada", "email": "ada@example.com", "age": 36,
             "address": ["country": "UK"], "tags": ["math", "poetry"]],
            ["last_name": "Hopper", "first_name": "Grace", "email": "grace@example.com", "age": 45,
             "address": ["country": "US"], "tags": ["navy"]],
            ["last_name": "Lovelace", "first_name": "Byron", "age": 12],
        ])
        try people.addIndex("[age]")
        try people.addIndex("[last_name], [first_name] DESC")
        try people.addIndex("[address.country]")
        try people.addIndex("[tags]")
        try people.addUniqueIndex("[email]")
        try people.addIndex("[age]")
        #expect(try people.indexes.map(\.description)
                == ["[age]", "[last_name], [first_name] DESC", "[address.country]", "[tags]", "UNIQUE [email]"])
        #expect(try people.indexes[1].definition == "[last_name], [first_name] DESC")
        #expect(try people.indexes[1].keys.map(\.isDescending) == [false, true])
        #expect(try people.dropIndex("[address.country]"))
        #expect(try !people.dropIndex("[address.country]"))
        // Unique indexes: the call stores nothing; nulls and repeats within a document are allowed.
        do {
            try people.insert(["email": "ada@example.com", "first_name": "Augusta"])
            Issue.record("a duplicate email was stored")
        } catch DocumentError.uniqueConstraint(let index, let value) {
            #expect(index == "[email]" && value == "ada@example.com")
        }
        #expect(throws: DocumentError.self) { try people.insertBatch([["email": "new@example.com"], ["email": "grace@example.com"]]) }
        #expect(try people.count() == 3)
        try people.insertBatch([["first_name": "NoEmail"], ["first_name": "NoEmail either"]])
        try people.addUniqueIndex("[aliases]")
        try people.insert(["aliases": ["x", "x"]])
        #expect(throws: DocumentError.uniqueConstraint(index: "[aliases]", value: "x")) { try people.insert(["aliases": ["y", "x"]]) }
        #expect(throws: DocumentError.uniqueConstraint(index: "[last_name]", value: "Lovelace")) {
            try people.addUniqueIndex("[last_name]")
        }
        #expect(try !people.indexes.map(\.definition).contains("[last_name]"))
        #expect(try people.inconsistentIndexes().isEmpty)
        // The rebuild loop of "Check and rebuild" keeps each index as it was.
        let before = try people.indexes
        for index in try people.indexes where ["[email]", "[age]"].contains(index.definition) {
            try people.dropIndex(index.definition)
            try index.isUnique ? people.addUniqueIndex(index.definition) : people.addIndex(index.definition)
        }
        #expect(Set(try people.indexes.map(\.description)) == Set(before.map(\.description)))
    }

    @Test(arguments: BackendKind.withEtcd) func theExplainLinesOfTheArticle(_ backend: BackendKind) throws {
        let temporary = try TemporaryStore(backend: backend)
        let people = try temporary.store.collection("people")
        try people.insertBatch([
            ["last_name": "Lovelace", "first_name": "Ada", "email": "ada@example.com", "age": 36, "tags": ["math", "poetry"]],
            ["last_name": "Hopper", "first_name": "Grace", "email": "grace@example.com", "age": 45, "tags": ["navy"]],
            ["last_name": "Lovelace", "first_name": "Byron", "age": 12],
        ])
        try people.addIndex("[age]")
        try people.addIndex("[last_name], [first_name] DESC")
        try people.addIndex("[tags]")
        try people.addUniqueIndex("[email]")
        #expect(try people.explain(where: "[last_name] = ? AND [first_name] >= ?", arguments: ["Lovelace", "A"])
                == #"index [last_name], [first_name] DESC: [last_name] = "Lovelace", range [first_name] >= "A" (1 range, exact)"#)
        #expect(try people.explain(where: "[age] > ?", arguments: [30], orderBy: "[age]")
                == "index [age]: range [age] > 30 (1 range, exact); order from the index")
        #expect(try people.explain(where: "[age] > 30 OR [tags] CONTAINS 'math'") == "full scan")
        #expect(try people.explain(where: "[age] = 1 OR [age] = 2") == "full scan")
        #expect(try people.explain(where: "[age] IN (1, 2)") == "index [age]: [age] IN (1, 2) (2 ranges, exact)")
        // The table.
        #expect(try people.explain(where: "[age] BETWEEN 30 AND 40") == "index [age]: range [age] >= 30 AND [age] <= 40 (1 range, exact)")
        #expect(try people.explain(where: "[last_name] IN (?, ?)", arguments: ["Lovelace", "Hopper"])
                == #"index [last_name], [first_name] DESC: [last_name] IN ("Lovelace", "Hopper") (2 ranges, exact)"#)
        #expect(try people.explain(where: "[last_name] = ? AND [age] > 3", arguments: ["Lovelace"])
                == #"index [last_name], [first_name] DESC: [last_name] = "Lovelace" (1 range)"#)
        #expect(try people.explain(where: "[tags] CONTAINS 'math'") == #"index [tags]: [tags] = "math" (1 range, exact)"#)
        #expect(try people.explain(where: "[tags] = 'math'") == #"index [tags]: [tags] = "math" (1 range)"#)
        #expect(try people.explain(where: "[tags] > 'm'") == "full scan")
        #expect(try people.explain(where: "[__rowid__] IN (3, 1)") == "rowid lookup: 3, 1")
        #expect(try people.explain(orderBy: "[age] DESC", limit: 10)
                == "index [age]: every entry (1 range, backwards, exact); order from the index")
        #expect(try people.explain(orderBy: "[age]") == "full scan; then sort")
        #expect(try people.explain(where: "[age] >= 30", orderBy: "[email]") == "index [age]: range [age] >= 30 (1 range, exact); then sort")
        #expect(try people.explain(where: "[last_name] = 'Lovelace'", orderBy: "[first_name] DESC")
                == #"index [last_name], [first_name] DESC: [last_name] = "Lovelace" (1 range, exact); order from the index"#)
        // Whatever the plan, the same documents.
        #expect(try people.find(where: "[last_name] = ? AND [age] > 3", arguments: ["Lovelace"]).map { $0["first_name"] } == ["Ada", "Byron"])
        #expect(try people.find(where: "[last_name] = 'Lovelace'", orderBy: "[first_name] DESC").map { $0["first_name"] } == ["Byron", "Ada"])
        #expect(try people.count(where: "[tags] = 'math'") == 0)
        #expect(try people.count(where: "[tags] CONTAINS 'math'") == 1)
        let prepared = try people.prepare(where: "[email] = ?")
        #expect(try prepared.explain(arguments: ["ada@example.com"]) == #"index [email]: [email] = "ada@example.com" (1 range, exact)"#)
    }

    // MARK: ConcurrencyAndAsync.md

    @Test(arguments: BackendKind.withEtcd) func theConcurrencyArticle(_ backend: BackendKind) async throws {
        let temporary = try TemporaryStore(backend: backend)
        let store = temporary.store
        let users = try store.collection("users"), logs = try store.collection("logs")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0 ..< 8 {
                group.addTask {
                    for i in 0 ..< 25 {
                        try await users.insert(["email": .string("\(task)-\(i)"), "group": .int(Int64(task % 4))])
                        try await logs.insert(["task": .int(Int64(task))])
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await users.count() == 200)
        #expect(Set(try await users.find().compactMap(\.rowID)).count == 200)
        #expect(try await logs.count() == 200)

        let people = try store.collection("people")
        try await people.addIndex("[age]")
        let id = try await people.insert(["name": "Ada", "age": 36])
        #expect(try await people.document(id: id)?["name"] == "Ada")
        #expect(try await people.find(where: "[age] >= ?", arguments: [18]).count == 1)
        let byAge = try await people.prepare(where: "[age] >= ?")
        #expect(try await byAge.count(arguments: [30]) == 1)
        // Calls one task makes in turn run in that order.
        try await people.insert(["name": "Grace", "age": 45])
        #expect(try await people.count() == 2)
        // Two objects of one name share the collection.
        #expect(try await store.collection("people").count() == 2)
    }

    @Test func cancellingTheTaskDoesNotInterruptAnOperation() async throws {
        let temporary = try TemporaryStore(backend: .memory)
        let people = try temporary.store.collection("people")
        let task = Task { try await people.insert(["name": "Ada"]) }
        task.cancel()
        #expect(try await task.value == 1)
        #expect(try await people.count() == 1)
        // The article's loop stops between calls.
        let chunks: [[JSON]] = [[["n": 1]], [["n": 2]]]
        let loop = Task {
            withUnsafeCurrentTask { $0?.cancel() }   // cancelled before its first call, whatever the scheduling
            for chunk in chunks {
                try Task.checkCancellation()
                try await people.insertBatch(chunk)
            }
        }
        await #expect(throws: CancellationError.self) { try await loop.value }
        #expect(try await people.count() == 1)
    }

    @Test func closingAndProcessesAsTheArticleSays() throws {
        let temporary = try TemporaryStore()
        let people = try temporary.store.collection("people")
        try people.insert(["name": "Ada"])
        let query = try people.prepare(where: "[name] = ?")
        #expect(throws: BackendError.self) { _ = try DocumentStore(path: temporary.path) }
        try temporary.store.close()
        try temporary.store.close()
        #expect(throws: StoreError.closed) { try people.count() }
        #expect(throws: StoreError.closed) { try people.indexes }
        #expect(throws: StoreError.closed) { try query.find(arguments: ["Ada"]) }
        let reader = try DocumentStore(path: temporary.path, configuration: .init(readOnly: true, lockTimeout: 2))
        #expect(try reader.collection("people").count() == 1)
        #expect(throws: StoreError.readOnly) { try reader.collection("people").insert(["name": "Grace"]) }
        try reader.close()
    }

    // MARK: Codable.md

    private struct Address: Codable, Sendable, Equatable {
        var city: String
        var postcode: String?
    }

    private struct User: Codable, Sendable, Equatable {
        var name: String
        var age: Int
        var tags: [String] = []
        var address: Address?
    }

    private struct Event: Codable, Sendable, Equatable {
        var title: String
        var start: Date
    }

    private struct Note: Codable, Sendable {
        var __rowid__: RowID?
        var text: String
    }

    private enum Role: String, Codable { case admin }

    private struct Kinds: Codable {
        var whole = 2.0, half = 2.5, big = UInt64.max, photo = Data([1, 2, 3]), role = Role.admin
        var id: UUID
        var site: URL
        var nothing: Int?
    }

    @Test(arguments: BackendKind.withEtcd) func theCodableArticle(_ backend: BackendKind) throws {
        let temporary = try TemporaryStore(backend: backend)
        let store = temporary.store
        let users = try store.collection("users")
        try users.addIndex("[age]")
        let id = try users.insert(User(name: "Ada", age: 36, tags: ["math"], address: Address(city: "London")))
        try users.insertBatch([User(name: "Grace", age: 45), User(name: "Alan", age: 41, tags: ["math", "logic"])])
        #expect(try users.document(id: id, as: User.self) == User(name: "Ada", age: 36, tags: ["math"], address: Address(city: "London")))
        #expect(try users.document(id: id)?["address"] == ["city": "London"])
        let adults = try users.find(where: "[age] >= ?", arguments: [18], orderBy: "[age]", as: User.self)
        #expect(adults.map(\.name) == ["Ada", "Alan", "Grace"])
        #expect(try users.findOne(where: "[address.city] = ?", arguments: ["London"], as: User.self)?.name == "Ada")
        #expect(try users.count(where: "[address] IS NULL") == 2)
        let mathematicians = try users.prepare(where: "[tags] CONTAINS ?", orderBy: "[name]")
        #expect(try mathematicians.find(arguments: ["math"], as: User.self).map(\.name) == ["Ada", "Alan"])

        // What Swift values become.
        let kinds = try JSON(encoding: Kinds(id: try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")),
                                             site: try #require(URL(string: "https://example.com/a"))))
        #expect(kinds == ["whole": 2, "half": 2.5, "big": .double(Double(UInt64.max)), "photo": "AQID", "role": "admin",
                          "id": "E621E1F8-C36C-495A-93FC-0C247A3E6E5F", "site": "https://example.com/a"])
        #expect(try JSON(encoding: ["score": 2.0] as JSON) == ["score": .double(2)])

        // Dates.
        let events = try store.collection("events")
        let launch = Date(timeIntervalSinceReferenceDate: 800_000_000)
        try events.insertBatch([Event(title: "Launch", start: launch),
                                Event(title: "Review", start: launch.addingTimeInterval(86_400))])
        #expect(try events.findOne(where: "[title] = 'Launch'")?["start"] == 800_000_000)
        let before = try events.find(where: "[start] < ?",
                                     arguments: [.double(launch.addingTimeInterval(3_600).timeIntervalSinceReferenceDate)],
                                     as: Event.self)
        #expect(before == [Event(title: "Launch", start: launch)])

        // Other encodings.
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let document = try JSONDecoder().decode(JSON.self, from: encoder.encode(Event(title: "Launch", start: launch)))
        let eventID = try events.insert(document)
        #expect(try events.document(id: eventID)?["start"] == "2026-05-09T06:13:20Z")
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let stored = try #require(try events.document(id: eventID))
        #expect(try decoder.decode(Event.self, from: JSONEncoder().encode(stored)) == Event(title: "Launch", start: launch))

        // The rowID property.
        let notes = try store.collection("notes")
        let noteID = try notes.insert(Note(text: "draft"))
        var note = try #require(try notes.document(id: noteID, as: Note.self))
        #expect(note.__rowid__ == noteID)
        note.text = "final"
        try notes.update(JSON(encoding: note))
        #expect(try notes.document(id: noteID)?["text"] == "final")
        #expect(try notes.count() == 1)

        // Errors.
        #expect(throws: DocumentError.notAnObject(5)) { try users.insert(5) }
        #expect(throws: DocumentError.notAnObject(5)) { try users.insert(5 as Int) }
        #expect(throws: EncodingError.self) { try users.insert(["score": Double.nan] as [String: Double]) }
        do {
            _ = try users.find(where: "[name] = 'Ada'", as: Event.self)
            Issue.record("a user decoded as an event")
        } catch DecodingError.keyNotFound(let key, _) {
            #expect(key.stringValue == "title")
        }
        do {
            _ = try users.find(where: "[name] = 'Ada'", as: [String: Int].self)
            Issue.record("a user decoded as [String: Int]")
        } catch DecodingError.typeMismatch(_, let context) {
            #expect(!context.codingPath.isEmpty)
        }
        try users.setDefaultJSON(["tags": []])
        #expect(throws: DecodingError.self) { try users.findOne(where: "[name] = 'Grace'", as: [String: [String]].self) }
    }

    @Test(arguments: BackendKind.withEtcd) func theCodableArticlesAsyncForms(_ backend: BackendKind) async throws {
        let temporary = try TemporaryStore(backend: backend)
        let users = try temporary.store.collection("users")
        let id = try await users.insert(User(name: "Ada", age: 36, tags: ["math"]))
        try await users.insert(User(name: "Grace", age: 45))
        #expect(try await users.find(where: "[age] > ?", arguments: [40], as: User.self) == [User(name: "Grace", age: 45)])
        let mathematicians = try await users.prepare(where: "[tags] CONTAINS ?", orderBy: "[name]")
        #expect(try await mathematicians.find(arguments: ["math"], as: User.self).map(\.name) == ["Ada"])
        #expect(try await users.document(id: id)?["name"] == "Ada")
    }
}
