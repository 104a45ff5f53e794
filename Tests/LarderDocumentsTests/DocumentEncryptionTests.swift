// Encrypted document stores: no plaintext byte of a document or an index key in any file,
// wrong and missing keys, tampered and moved records, rekeying both ways, and queries that
// answer the same on an encrypted store as on a plaintext one.

import Foundation
import Glibc
import Larder
import Testing
@testable import LarderDocuments

@Suite struct DocumentEncryptionTests {
    /// Tests use few PBKDF2 iterations.
    static func configuration(_ key: String?) -> Store.Configuration {
        var configuration = Store.Configuration(durability: .noSync, encryptionKey: key)
        configuration.keyDerivationIterations = 1_000
        return configuration
    }

    /// A fresh directory path, removed when `body` ends.
    private func withDirectory(_ body: (String) throws -> Void) throws {
        let path = NSTemporaryDirectory() + "larder-documents-crypt-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try body(path)
    }

    private func open(_ path: String, key: String?) throws -> DocumentStore {
        try DocumentStore(path: path, configuration: Self.configuration(key))
    }

    /// Every byte of every file in the directory.
    private func allBytes(_ path: String) throws -> Data {
        var bytes = Data()
        for name in try FileManager.default.contentsOfDirectory(atPath: path) {
            bytes.append(try Data(contentsOf: URL(fileURLWithPath: path + "/" + name)))
        }
        return bytes
    }

    /// Whether `needle` occurs in `haystack` (memchr for its first byte, then memcmp:
    /// Data.range(of:) takes seconds here).
    private func contains(_ haystack: Data, _ needle: Data) -> Bool {
        haystack.withUnsafeBytes { haystack in
            needle.withUnsafeBytes { needle in
                guard let first = needle.first, let base = haystack.baseAddress, let wanted = needle.baseAddress else { return true }
                var offset = 0
                while offset + needle.count <= haystack.count {
                    guard let found = memchr(base + offset, Int32(first), haystack.count - offset - needle.count + 1) else { return false }
                    if memcmp(found, wanted, needle.count) == 0 { return true }
                    offset = base.distance(to: UnsafeRawPointer(found)) + 1
                }
                return false
            }
        }
    }

    /// Documents with distinctive strings and numbers in indexed (`code`, `amount`, `tags`)
    /// and unindexed (`note`, `serial`) fields.
    private static func secretDocuments(_ count: Int) -> [JSON] {
        (0 ..< count).map { i in
            ["code": .string("Zanzibar-\(1_000 + i)"), "amount": .int(Int64(987_654_321_000 + i)),
             "tags": .array([.string("Quetzal-\(i % 7)"), .string("Vermilion-\(i % 5)")]),
             "note": .string("Unindexed-secret-note-\(i)"), "serial": .int(Int64(555_444_333_000 + i))]
        }
    }

    private func fillWithSecrets(_ store: DocumentStore, count: Int = 300) throws {
        let c = try store.collection("vault")
        try c.addIndex("[code]")
        try c.addIndex("[amount] DESC")
        try c.addIndex("[tags]")
        _ = try c.insertBatch(Self.secretDocuments(count))
        try store.setMetadata("Metadata-secret-value", forKey: "hint")
    }

    /// The byte strings no file of an encrypted store may hold: each document's stored
    /// content, its strings and numbers as stored, and every index entry (read from a
    /// plaintext store with the same documents).
    private func plaintextNeedles(count: Int = 300) throws -> [Data] {
        var needles: [Data] = [Data(JSONBinary.encode("Metadata-secret-value"))]
        for document in Self.secretDocuments(count) {
            needles.append(Data(JSONBinary.encode(document)))
            for field in ["code", "amount", "note", "serial"] { needles.append(Data(JSONBinary.encode(document[field]))) }
            needles.append(Data(document["note"].stringValue!.utf8))
            needles.append(Data(document["code"].stringValue!.utf8))
        }
        try withDirectory { path in
            let store = try open(path, key: nil)
            try fillWithSecrets(store, count: count)
            try store.collection("vault").withState { state in
                for index in state.definition.indexes {
                    try state.table(of: index).forEachEntry(from: nil, through: nil, reverse: false) { entry in
                        needles.append(Data(entry))
                        return true
                    }
                }
            }
            try store.close()
            // The scan finds them in a plaintext store: it can fail.
            let bytes = try allBytes(path)
            #expect(needles.filter { contains(bytes, $0) }.count > needles.count / 2)
        }
        return needles
    }

    @Test func noPlaintextByteOfADocumentOrAnIndexKeyReachesTheFiles() throws {
        let needles = try plaintextNeedles()
        #expect(needles.count > 3_000)
        try withDirectory { path in
            let store = try open(path, key: "correct horse")
            try fillWithSecrets(store)
            // Updates and removals rewrite pages and runs.
            let c = try store.collection("vault")
            var first = try #require(try c.findOne(where: "[code] = ?", arguments: ["Zanzibar-1000"]))
            first["note"] = "Unindexed-secret-note-0"
            try c.update(first)
            try store.close()
            let bytes = try allBytes(path)
            let found = needles.filter { contains(bytes, $0) }
            #expect(found.isEmpty, "\(found.count) plaintext byte strings found, as \(found.prefix(3).map { Array($0) })")

            let reopened = try open(path, key: "correct horse")
            let vault = try reopened.collection("vault")
            #expect(try vault.count() == 300)
            #expect(try vault.findOne(where: "[code] = ?", arguments: ["Zanzibar-1042"])?["serial"] == .int(555_444_333_042))
            #expect(try reopened.metadata(forKey: "hint") == "Metadata-secret-value")
            #expect(try vault.inconsistentIndexes().isEmpty)
            try reopened.close()
        }
    }

    @Test func aWrongKeyOrNoKeyIsATypedError() throws {
        try withDirectory { path in
            let store = try open(path, key: "right")
            try fillWithSecrets(store, count: 20)
            try store.close()
            #expect(throws: StoreError.wrongEncryptionKey) { _ = try open(path, key: "wrong") }
            #expect(throws: StoreError.encryptionKeyRequired) { _ = try open(path, key: nil) }
            let reopened = try open(path, key: "right")
            #expect(try reopened.collection("vault").count(where: "[tags] CONTAINS ?", arguments: ["Quetzal-3"]) == 3)
            try reopened.close()
        }
    }

    @Test func aKeyForAPlaintextStoreWithDataIsRefusedNotAdopted() throws {
        try withDirectory { path in
            let store = try open(path, key: nil)
            try fillWithSecrets(store, count: 5)
            try store.close()
            #expect(throws: DocumentError.storeNotEncrypted) { _ = try open(path, key: "late") }
            let plain = try open(path, key: nil)
            #expect(try plain.collection("vault").count() == 5)
            try plain.close()
        }
    }

    @Test func aFlippedByteIsReportedAsDamage() throws {
        try withDirectory { path in
            let store = try open(path, key: "k")
            try fillWithSecrets(store, count: 40)
            let c = try store.collection("vault")
            let original = try c.withState { try $0.rawRecord(7) }
            #expect(original.first == DocumentRecord.encryptedFormat)
            var flipped = original
            flipped[flipped.count / 2] ^= 0x01
            try c.withState { try $0.replaceRawRecord(7, with: flipped) }
            #expect(throws: DocumentError.corruptDocument(collection: "vault", rowID: 7, reason: "authentication failed")) {
                _ = try c.findOne(where: "[__rowid__] = ?", arguments: [7])
            }
            try c.withState { try $0.replaceRawRecord(7, with: original) }
            // A flipped byte in a sealed index run.
            let table = try c.withState { state in try state.table(of: state.definition.indexes[0]) }
            try flipByte(inEveryValueOf: table.name, in: store)
            try store.close()
            let reopened = try open(path, key: "k")
            #expect(throws: DocumentError.corruptIndex(collection: "vault", index: "[code]",
                                                       reason: "sealed index record fails authentication")) {
                _ = try reopened.collection("vault").find(where: "[code] >= ?", arguments: ["Z"])
            }
            // The cure: dropping the index (its damaged directory too) and adding it again.
            let vault = try reopened.collection("vault")
            #expect(try vault.dropIndex("[code]"))
            try vault.addIndex("[code]")
            #expect(try vault.count(where: "[code] >= ?", arguments: ["Z"]) == 40)
            #expect(try vault.inconsistentIndexes().isEmpty)
            try reopened.close()
        }
    }

    @Test func aRunCopiedUnderAnotherNumberOrIndexIsRefused() throws {
        try withDirectory { path in
            let store = try open(path, key: "k")
            let c = try store.collection("vault")
            try c.addIndex("[code]")
            try c.addIndex("[note]")
            _ = try c.insertBatch(Self.secretDocuments(600))
            let (backend, tables) = try c.withState { state in
                (state.backend, try state.definition.indexes.map { try state.table(of: $0).name })
            }
            var runs: [[UInt8]: [UInt8]] = [:]
            try backend.forEachRecord(in: tables[0]) { key, value in
                runs[Array(key)] = Array(value)
                return true
            }
            let first = RunDirectory.key(ofRun: 1), second = RunDirectory.key(ofRun: 2)
            #expect(runs[first] != nil && runs[second] != nil)
            // Run 1 of [code] put in place of run 1 of [note]: another index.
            var batch = WriteBatch()
            batch.put(try #require(runs[first]), forKey: first, in: tables[1])
            try backend.apply(batch)
            #expect(throws: DocumentError.corruptIndex(collection: "vault", index: "[note]",
                                                       reason: "sealed index record fails authentication")) {
                _ = try c.find(where: "[note] >= ?", arguments: [""])
            }
            // Run 1 of [code] put in place of its run 2: another number.
            batch = WriteBatch()
            batch.put(try #require(runs[first]), forKey: second, in: tables[0])
            try backend.apply(batch)
            #expect(throws: DocumentError.corruptIndex(collection: "vault", index: "[code]",
                                                       reason: "sealed index record fails authentication")) {
                _ = try c.count(where: "[code] >= ?", arguments: [""])
            }
            try store.close()
        }
    }

    @Test func aPlaintextStoreForgedInPlaceOfAnEncryptedOneIsRefusedWithTheKey() throws {
        try withDirectory { path in
            let store = try open(path, key: "k")
            try fillWithSecrets(store, count: 10)
            try store.close()
            // Without the key, an attacker removes the encryption record and writes a plaintext
            // definition (documents could follow).
            let backend = try TokyoCabinetBackend(path: path, configuration: Self.configuration(nil).backend)
            var batch = WriteBatch()
            batch.removeValue(forKey: EncryptionRecord.key, in: DocumentStore.metadataTable)
            let key = CollectionDefinition.metadataKey(for: "vault")
            batch.put(DocumentRecord.seal(CollectionDefinition().json, key: key), forKey: key, in: DocumentStore.metadataTable)
            try backend.apply(batch)
            try backend.close()
            #expect(throws: DocumentError.storeNotEncrypted) { _ = try open(path, key: "k") }
        }
    }

    @Test func collectionsOfAnEncryptedStoreWorkInParallel() throws {
        try withDirectory { path in
            let store = try open(path, key: "k")
            let names = ["a", "b", "c", "d"]
            for name in names { try store.collection(name).addIndex("[amount]") }
            let failures = Failures()
            DispatchQueue.concurrentPerform(iterations: names.count) { position in
                do {
                    let c = try store.collection(names[position])
                    for round in 0 ..< 20 {
                        _ = try c.insertBatch(Self.secretDocuments(20))
                        let found = try c.find(where: "[amount] >= ?", arguments: [.int(987_654_321_010)])
                        guard found.count == 10 * (round + 1) else { throw DocumentError.missingRowID }
                    }
                } catch {
                    failures.add("\(names[position]): \(error)")
                }
            }
            #expect(failures.all.isEmpty)
            for name in names { #expect(try store.collection(name).count() == 400) }
            try store.close()
        }
    }

    /// Flips a byte in the middle of every record of `table`.
    private func flipByte(inEveryValueOf table: String, in store: DocumentStore) throws {
        let backend = try store.collection("vault").withState { $0.backend }
        var batch = WriteBatch()
        try backend.forEachRecord(in: table) { key, value in
            var bytes = Array(value)
            bytes[bytes.count / 2] ^= 0x01
            batch.put(bytes, forKey: Array(key), in: table)
            return true
        }
        try backend.apply(batch)
    }

    @Test func aRecordCopiedUnderAnotherRowIDOrCollectionIsRefused() throws {
        try withDirectory { path in
            let store = try open(path, key: "k")
            let a = try store.collection("a"), b = try store.collection("b")
            _ = try a.insertBatch(Self.secretDocuments(3))
            _ = try b.insertBatch(Self.secretDocuments(3))
            let sealed = try a.withState { try $0.rawRecord(1) }
            try a.withState { try $0.replaceRawRecord(2, with: sealed) }
            #expect(throws: DocumentError.corruptDocument(collection: "a", rowID: 2, reason: "authentication failed")) {
                _ = try a.findOne(where: "[__rowid__] = ?", arguments: [2])
            }
            try b.withState { try $0.replaceRawRecord(1, with: sealed) }
            #expect(throws: DocumentError.corruptDocument(collection: "b", rowID: 1, reason: "authentication failed")) {
                _ = try b.findOne(where: "[__rowid__] = ?", arguments: [1])
            }
            // A plaintext record slipped into an encrypted collection is refused too.
            let plaintext = DocumentRecord.seal(["forged": true], key: DocumentTable.recordKey(3), isDocument: true)
            try a.withState { try $0.replaceRawRecord(3, with: plaintext) }
            #expect(throws: DocumentError.self) { _ = try a.findOne(where: "[__rowid__] = ?", arguments: [3]) }
            try store.close()
        }
    }

    /// Queries over every kind of index read: equality, ranges both ways, orderBy with limits,
    /// counts, a multi-valued index, a unique index, and a full scan.
    static let queries: [(query: String?, arguments: [JSON], orderBy: String?, limit: Int?)] = [
        ("[code] = ?", ["Zanzibar-1100"], nil, nil),
        ("[code] >= ? AND [code] < ?", ["Zanzibar-1050", "Zanzibar-1400"], nil, nil),
        ("[amount] > ?", [.int(987_654_321_900)], "[amount] DESC", 25),
        ("[amount] <= ?", [.int(987_654_321_100)], "[amount]", nil),
        (nil, [], "[code] DESC", 40),
        ("[tags] CONTAINS ?", ["Quetzal-4"], nil, nil),
        ("[tags] CONTAINS ? AND [amount] < ?", ["Vermilion-2", .int(987_654_321_500)], "[code]", nil),
        ("[serial] >= ?", [.int(555_444_333_700)], nil, nil),
        ("[email] = ?", ["user17@example.com"], nil, nil),
        (nil, [], nil, nil),
    ]

    /// Every query's documents and count.
    private func answers(_ c: DocumentCollection) throws -> [String] {
        try Self.queries.map { q in
            let found = try c.find(where: q.query, arguments: q.arguments, orderBy: q.orderBy, limit: q.limit)
            let count = try c.count(where: q.query, arguments: q.arguments)
            return "\(count) \(found)"
        }
    }

    /// Inserts, updates and removes at random (seeded) the same way in `c`: enough entries to
    /// split the index runs many times.
    private func churn(_ c: DocumentCollection, seed: UInt64) throws {
        try c.addIndex("[code]")
        try c.addIndex("[amount] DESC")
        try c.addIndex("[tags]")
        try c.addUniqueIndex("[email]")
        var generator = SeededGenerator(seed: seed)
        var documents = Self.secretDocuments(1_500)
        for i in documents.indices { documents[i]["email"] = .string("user\(i)@example.com") }
        _ = try c.insertBatch(Array(documents[..<1_000]))
        for document in documents[1_000...] { _ = try c.insert(document) }
        for _ in 0 ..< 200 {
            let rowID = Int64.random(in: 1 ... 1_500, using: &generator)
            guard var document = try c.findOne(where: "[__rowid__] = ?", arguments: [.int(rowID)]) else { continue }
            if Bool.random(using: &generator) {
                _ = try c.delete(where: "[__rowid__] = ?", arguments: [.int(rowID)])
            } else {
                document["amount"] = .int(Int64.random(in: 987_654_321_000 ... 987_654_322_000, using: &generator))
                document["code"] = .string("Zanzibar-\(Int.random(in: 1_000 ... 2_000, using: &generator))")
                try c.update(document)
            }
        }
    }

    @Test(arguments: [UInt64(19), 2_026])
    func queriesAnswerTheSameOnAnEncryptedStore(seed: UInt64) throws {
        var plaintextAnswers: [String] = []
        try withDirectory { path in
            let store = try open(path, key: nil)
            try churn(try store.collection("vault"), seed: seed)
            plaintextAnswers = try answers(try store.collection("vault"))
            try store.close()
        }
        try withDirectory { path in
            let store = try open(path, key: "k")
            try churn(try store.collection("vault"), seed: seed)
            let encrypted = try answers(try store.collection("vault"))
            #expect(encrypted == plaintextAnswers, "seed \(seed)")
            #expect(try store.collection("vault").inconsistentIndexes().isEmpty, "seed \(seed)")
            try store.close()
            let reopened = try open(path, key: "k")
            #expect(try answers(try reopened.collection("vault")) == plaintextAnswers, "seed \(seed)")
            // A duplicate in the unique index is still caught.
            #expect(throws: DocumentError.self) { _ = try reopened.collection("vault").insert(["email": "user3@example.com"]) }
            try reopened.close()
        }
    }

    @Test func rekeyKeepsEveryDocumentAndAnswer() throws {
        try withDirectory { path in
            var store = try open(path, key: nil)
            try churn(try store.collection("vault"), seed: 7)
            try store.setMetadata("Metadata-secret-value", forKey: "hint")
            _ = try store.collection("empty")
            let expected = try answers(try store.collection("vault"))
            var current: String?
            for next in ["first key", "second key", nil] as [String?] {
                let step = "\(current ?? "plaintext") -> \(next ?? "plaintext")"
                try store.rekey(to: next)
                #expect(try answers(try store.collection("vault")) == expected, "\(step)")
                try store.close()
                #expect(throws: (any Error).self, "\(step)") { _ = try open(path, key: current) }
                store = try open(path, key: next)
                #expect(try answers(try store.collection("vault")) == expected, "\(step)")
                #expect(try store.collection("vault").inconsistentIndexes().isEmpty, "\(step)")
                #expect(try store.metadata(forKey: "hint") == "Metadata-secret-value", "\(step)")
                #expect(try store.collection("empty").count() == 0, "\(step)")
                current = next
            }
            try store.close()
        }
    }
}

/// Errors gathered from several threads.
private final class Failures: @unchecked Sendable {
    // @unchecked: `list` is used only under `lock`.
    private let lock = NSLock()
    private var list: [String] = []

    func add(_ failure: String) {
        lock.lock()
        defer { lock.unlock() }
        list.append(failure)
    }

    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return list
    }
}

/// A seeded SplitMix64, so that a failing run can be replayed.
private struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
