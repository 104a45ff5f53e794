// `larder find` on a document collection and `larder search` on a class's full-text index, whose
// answers must be the libraries' own.

import Foundation
import Testing
import Larder
import LarderDocuments

@Suite struct FindCommandTests {
    @Test func findsWithArgumentsOrderAndLimit() throws {
        let store = TestStore()
        try store.makePeople()
        let run = try Tool.run(["find", store.path, "people", "--where", "[age] > ?", "--arguments", "30",
                                "--order-by", "[age] DESC", "--limit", "2", "--json"])
        #expect(run.status == 0, "\(run.error)")
        let people = try run.jsonArray().compactMap { $0 as? [String: Any] }
        #expect(people.map { $0["name"] as? String } == ["Grace", "Alan"])
        #expect(people.map { $0["__rowid__"] as? Int } == [3, 2])

        // A text that is not JSON is a string: the alias country is [address.country].
        let british = try Tool.run(["find", store.path, "people", "--where", "country = ? AND [age] < ?",
                                    "--arguments", "UK", "40", "--json"])
        #expect(try british.jsonArray().compactMap { ($0 as? [String: Any])?["name"] as? String } == ["Ada"])

        let table = try Tool.run(["find", store.path, "people", "--where", "[email] = ?", "--arguments", "\"linus@example.com\""])
        #expect(table.status == 0)
        let lines = table.output.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.first?.split(separator: " ", omittingEmptySubsequences: true) == ["__rowid__", "address", "age", "email", "name"])
        #expect(lines.last?.split(separator: " ", omittingEmptySubsequences: true) == ["4", "{\"country\":\"FI\"}", "28", "linus@example.com", "Linus"])
    }

    @Test func countsAndExplains() throws {
        let store = TestStore()
        try store.makePeople()
        let count = try Tool.run(["find", store.path, "people", "--where", "[age] >= ?", "--arguments", "36", "--count"])
        #expect(count.output == "3\n")
        let explain = try Tool.run(["find", store.path, "people", "--where", "[age] > ?", "--arguments", "30", "--explain"])
        #expect(explain.status == 0)
        #expect(explain.output == "index [age]: range [age] > 30 (1 range, exact)\n")
        let scan = try Tool.run(["find", store.path, "people", "--where", "[name] = ?", "--arguments", "Ada", "--explain"])
        #expect(scan.output.contains("scan"), "\(scan.output)")
    }

    @Test func badQueriesAndUnknownCollectionsAreErrors() throws {
        let store = TestStore()
        try store.makePeople()
        let bad = try Tool.run(["find", store.path, "people", "--where", "[age] >"])
        #expect(bad.status == 64)
        #expect(bad.error.hasPrefix("larder: "))
        #expect(bad.output.isEmpty)
        let missingArgument = try Tool.run(["find", store.path, "people", "--where", "[age] > ?"])
        #expect(missingArgument.status == 64, "\(missingArgument.error)")

        let unknown = try Tool.run(["find", store.path, "animals"])
        #expect(unknown.status == 66)
        #expect(unknown.error == "larder: the store has no collection animals (collections: people)\n")
        // Asking created nothing.
        #expect(!FileManager.default.fileExists(atPath: store.file("animals.tch")))
    }
}

@Suite struct SearchCommandTests {
    @Test func findsWhatTheStoreFinds() throws {
        let store = TestStore()
        try store.makeTracks()
        let expected: [String: [UInt64]]
        do {
            let objects = try Store(path: store.path)
            try objects.register(Track.self)
            var answers: [String: [UInt64]] = [:]
            for query in ["[[blue*]]", "[[blue*]] !! bird", "\"so what\"", "[[*ird]] || [[green]]"] {
                answers[query] = try objects.objects(of: Track.self, matchingText: query, forAttribute: "title").map(\.rowID)
            }
            try objects.close()
            expected = answers
        }
        #expect(expected["[[blue*]]"] == [1, 2, 3])
        for (query, rowIDs) in expected {
            let run = try Tool.run(["search", store.path, "--class", "Track", "--attribute", "title", query, "--json"])
            #expect(run.status == 0, "\(run.error)")
            #expect((try run.json()["rowIDs"] as? [Int])?.map(UInt64.init) == rowIDs, "\(query)")
        }
        let byArtist = try Tool.run(["search", store.path, "--class", "Track", "--attribute", "artist", "[[miles]]"])
        #expect(byArtist.output == "rowID\n    1\n    4\n2 Track objects match\n")
    }

    @Test func deletedObjectsAreLeftOut() throws {
        let store = TestStore()
        try store.makeTracks()
        do {
            let objects = try Store(path: store.path)
            try objects.register(Track.self)
            try objects.delete(try #require(try objects.object(of: Track.self, rowID: 2)))
            try objects.saveChanges()
            try objects.close()
        }
        let run = try Tool.run(["search", store.path, "--class", "Track", "--attribute", "title", "[[blue*]]", "--json"])
        #expect(try run.json()["rowIDs"] as? [Int] == [1, 3])
    }

    @Test func errorsNameTheirCause() throws {
        let store = TestStore()
        try store.makeTracks()
        let bad = try Tool.run(["search", store.path, "--class", "Track", "--attribute", "title", "[[blue"])
        #expect(bad.status == 64)
        #expect(bad.error.contains("search query"), "\(bad.error)")

        let unknownAttribute = try Tool.run(["search", store.path, "--class", "Track", "--attribute", "album", "[[blue]]"])
        #expect(unknownAttribute.status == 0)
        #expect(unknownAttribute.error.contains("its attributes: artist, title"))

        let library = TestStore()
        try library.makeLibrary(songs: 3)
        let noIndex = try Tool.run(["search", library.path, "--class", "Song", "--attribute", "title", "[[song]]"])
        #expect(noIndex.status == 66)
        #expect(noIndex.error == "larder: the store keeps no full-text index of Song\n")
    }
}
