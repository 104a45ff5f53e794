// Compaction of a document store: a rekey from plaintext leaves no byte of the old documents,
// index entries or metadata in any file, and compact() keeps every document and index entry
// while the files shrink.

import Foundation
import Larder
import Testing
@testable import LarderDocuments

@Suite struct DocumentCompactionTests {
    private static func configuration(_ key: String?) -> Store.Configuration {
        var configuration = Store.Configuration(encryptionKey: key)
        configuration.keyDerivationIterations = 1_000
        return configuration
    }

    /// A fresh directory path, removed when `body` ends.
    private func withDirectory(_ body: (String) throws -> Void) throws {
        let path = NSTemporaryDirectory() + "larder-documents-compact-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try body(path)
    }

    /// A plaintext store of 400 documents with distinctive strings in indexed and unindexed
    /// fields and a metadata value; half the documents updated and a quarter removed, so that
    /// old records and runs lie in freed space.
    private func fillPlaintext(_ path: String) throws {
        let store = try DocumentStore(path: path, configuration: Self.configuration(nil))
        let vault = try store.collection("vault")
        try vault.addIndex("[code]")
        let ids = try vault.insertBatch((0 ..< 400).map { i in
            ["code": .string("Zanzibar-\(1_000 + i)"), "note": .string("Unindexed-secret-note-\(i)"),
             "padding": .string(String(repeating: "p", count: 500))]
        })
        for (position, id) in ids.enumerated() where position % 2 == 0 {
            var document = try #require(try vault.document(id: id))
            document["note"] = .string("Updated-secret-note-\(position)")
            try vault.update(document)
        }
        _ = try vault.delete(where: "[code] < ?", arguments: ["Zanzibar-1100"])
        try store.setMetadata("Metadata-secret-value", forKey: "hint")
        try store.close()
    }

    /// The strings the scan looks for.
    private static let needles = ["Zanzibar-1", "Unindexed-secret-note-", "Updated-secret-note-", "Metadata-secret-value"]

    /// The needles found in some file of the directory.
    private func needlesFound(in path: String) throws -> [String] {
        // Bytes past ASCII read as U+FFFD: the needles are ASCII, and stay whole.
        let files = try FileManager.default.contentsOfDirectory(atPath: path).map { name in
            String(decoding: try Data(contentsOf: URL(fileURLWithPath: path + "/" + name)), as: Unicode.ASCII.self)
        }
        return Self.needles.filter { needle in files.contains { $0.contains(needle) } }
    }

    @Test func rekeyFromPlaintextLeavesNoOldByteInAnyFile() throws {
        try withDirectory { path in
            try fillPlaintext(path)
            #expect(try needlesFound(in: path) == Self.needles)
            let store = try DocumentStore(path: path, configuration: Self.configuration(nil))
            try store.rekey(to: "correct horse")
            try store.close()
            #expect(try needlesFound(in: path) == [])

            let reopened = try DocumentStore(path: path, configuration: Self.configuration("correct horse"))
            let vault = try reopened.collection("vault")
            #expect(try vault.count() == 300)
            #expect(try vault.findOne(where: "[code] = ?", arguments: ["Zanzibar-1102"])?["note"] == "Updated-secret-note-102")
            #expect(try vault.inconsistentIndexes().isEmpty)
            #expect(try reopened.metadata(forKey: "hint") == "Metadata-secret-value")
            try reopened.close()
        }
    }

    @Test func rekeyWithoutCompactionLeavesTheOldBytes() throws {
        try withDirectory { path in
            try fillPlaintext(path)
            let store = try DocumentStore(path: path, configuration: Self.configuration(nil))
            try store.rekey(to: "correct horse", compact: false)
            try store.close()
            #expect(try needlesFound(in: path) != [])
        }
    }

    @Test func compactKeepsEveryDocumentAndShrinksTheFiles() throws {
        try withDirectory { path in
            try fillPlaintext(path)
            let store = try DocumentStore(path: path, configuration: Self.configuration(nil))
            let vault = try store.collection("vault")
            _ = try vault.delete(where: "[code] >= ?", arguments: ["Zanzibar-1150"])
            let expected = try vault.find(where: "[code] >= ?", arguments: ["Zanzibar-1"])
            #expect(expected.count == 50)
            let before = try directorySize(path)
            try store.compact()
            let after = try directorySize(path)
            #expect(after < before, "\(before) bytes before, \(after) after")
            #expect(try vault.find(where: "[code] >= ?", arguments: ["Zanzibar-1"]) == expected)
            _ = try vault.insert(["code": "Zanzibar-9999"])
            try store.close()
            let reopened = try DocumentStore(path: path, configuration: Self.configuration(nil))
            let again = try reopened.collection("vault")
            #expect(try again.count() == 51)
            #expect(try again.inconsistentIndexes().isEmpty)
            #expect(try reopened.metadata(forKey: "hint") == "Metadata-secret-value")
            try reopened.close()
        }
    }

    private func directorySize(_ path: String) throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: path).reduce(0) { total, name in
            total + ((try FileManager.default.attributesOfItem(atPath: path + "/" + name)[.size] as? Int) ?? 0)
        }
    }
}
