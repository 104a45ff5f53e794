// Queries as long and as deeply nested as the two query languages allow, run on a thread with
// a 512 KiB stack (the size of a Dispatch or Swift concurrency worker's): each answers right or
// throws its typed error, and none overflows the stack (issue 19, defect 10).

import Foundation
import Larder
import LarderDocuments
import Testing

/// A song whose title is indexed for full-text search.
final class DeepQuerySong: StoredObject {
    @Stored var title = ""

    convenience init(title: String) {
        self.init()
        self.title = title
    }

    override func writeContent(to buffer: inout DataBuffer) { buffer.write(title) }
    override func readContent(from buffer: inout DataBuffer, in store: Store) throws { title = try buffer.readString() }
    override func indexedText() -> [String: String] { ["title": title] }
}

/// What a thread of ``DeepQueryTests/onSmallStack(_:)`` returned or threw: written by that
/// thread before it signals, read after the wait.
final class SmallStackOutcome<Value>: @unchecked Sendable {
    var result: Result<Value, any Error>?
}

@Suite struct DeepQueryTests {
    /// The stack of a Dispatch or Swift concurrency worker thread.
    static let stackSize = 512 * 1024

    /// What `body` returns or throws, run on a new thread with a stack of ``stackSize`` bytes.
    static func onSmallStack<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) throws -> Value {
        let outcome = SmallStackOutcome<Value>()
        let finished = DispatchSemaphore(value: 0)
        let thread = Thread {
            outcome.result = Result(catching: body)
            finished.signal()
        }
        thread.stackSize = stackSize
        thread.start()
        finished.wait()
        return try #require(outcome.result).get()
    }

    /// `count` copies of `term` joined by `separator`.
    static func repeated(_ term: String, _ count: Int, separator: String) -> String {
        Array(repeating: term, count: count).joined(separator: separator)
    }

    /// The rowIDs of the songs whose title matches each query, searched on a small stack.
    static func titleMatches(_ queries: [String]) throws -> [[UInt64]] {
        try onSmallStack {
            let path = NSTemporaryDirectory() + "larder-deep-\(UUID().uuidString)"
            defer { try? FileManager.default.removeItem(atPath: path) }
            let store = try Store(path: path)
            defer { try? store.close() }
            try store.register(DeepQuerySong.self)
            for title in ["Kind of Blue", "Blue in Green", "So What", "All Blues"] {
                try store.insert(DeepQuerySong(title: title))
            }
            try store.saveChanges()
            return try queries.map { query in
                try store.objects(of: DeepQuerySong.self, matchingText: query, forAttribute: "title").map(\.rowID)
            }
        }
    }

    @Test func fullTextQueriesOfAThousandTermsAnswerOnASmallStack() throws {
        let queries = [
            Self.repeated("blue", 1_000, separator: " "),                       // AND by spaces
            Self.repeated("blue", 500, separator: " && "),
            Self.repeated("nothing", 499, separator: " || ") + " || green",     // every OR evaluated
            "blue !! " + Self.repeated("nothing", 499, separator: " !! "),
            Self.repeated("[[blue*]] !! what", 250, separator: " && "),
            Self.repeated("what || [[blue]]", 250, separator: " !! "),
        ]
        let matches = try Self.titleMatches(queries)
        #expect(matches == [[1, 2, 4], [1, 2, 4], [2], [1, 2, 4], [1, 2, 4], []])
    }

    @Test func aFullTextQueryOfMoreThanAThousandItemsThrows() throws {
        #expect(throws: SearchQueryError(position: 5_000, message: "more than 1000 terms and operators")) {
            _ = try Self.titleMatches([Self.repeated("blue", 1_001, separator: " ")])
        }
    }

    /// How many documents match each query, counted on a small stack.
    static func documentCounts(_ queries: [String]) throws -> [Int] {
        try onSmallStack {
            let path = NSTemporaryDirectory() + "larder-deep-documents-\(UUID().uuidString)"
            defer { try? FileManager.default.removeItem(atPath: path) }
            let store = try DocumentStore(path: path)
            defer { try? store.close() }
            let collection = try store.collection("items")
            try collection.addIndex("[a]")
            _ = try collection.insertBatch((1 ... 10 as ClosedRange<Int64>).map { a -> JSON in ["a": .int(a), "b": .int(a % 2)] })
            return try queries.map { try collection.count(where: $0) }
        }
    }

    @Test func documentQueriesNestedToTheLimitAnswerOnASmallStack() throws {
        let limit = 100
        let queries = [
            String(repeating: "(", count: limit) + "[a] = 3" + String(repeating: ")", count: limit),
            String(repeating: "NOT ", count: limit) + "[a] = 3",
            String(repeating: "NOT (", count: limit / 2) + "[a] = 3" + String(repeating: ")", count: limit / 2),
            Self.repeated("[a] > 2", 1_000, separator: " AND "),
            Self.repeated("[a] = 99", 999, separator: " OR ") + " OR [b] = 1",
            Self.repeated("([a] >= 2 AND NOT ([b] = 1 OR [a] = 4))", 200, separator: " AND "),
        ]
        let counts = try Self.documentCounts(queries)
        #expect(counts == [1, 1, 1, 8, 5, 4])
    }

    @Test func aDocumentQueryNestedPastTheLimitThrows() throws {
        let tooDeep = String(repeating: "(", count: 101) + "[a] = 3" + String(repeating: ")", count: 101)
        #expect(throws: QueryError.self) { _ = try Self.documentCounts([tooDeep]) }
        #expect(throws: QueryError.self) { _ = try Self.documentCounts([String(repeating: "NOT ", count: 101) + "[a] = 3"]) }
    }
}
