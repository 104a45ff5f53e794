// History versions on disk: sealed with the store's key in an encrypted store (no plaintext in
// the file, unreadable without the key, resealed by rekey and when encryption is turned on),
// checksummed in a plaintext one; damaged, truncated, moved or replayed versions are typed
// errors and verify() problems, never traps.

import Foundation
import LarderTestSupport
import Testing
@testable import Larder

@Suite struct HistorySealingTests {
    private let model: [StoredObject.Type] = [Song.self, Note.self]
    private let table = HistoryRecord.table(forClass: "Note")

    /// The history table's records, as stored.
    private func rawVersions(_ store: Store) throws -> [(key: [UInt8], value: [UInt8])] {
        var records: [(key: [UInt8], value: [UInt8])] = []
        try store.backend.forEachRecord(in: table, from: nil, through: nil, reverse: false) { key, value in
            records.append((Array(key), Array(value)))
            return true
        }
        return records
    }

    private func put(_ value: [UInt8], forKey key: [UInt8], in store: Store, table: String? = nil) throws {
        var batch = WriteBatch()
        batch.put(value, forKey: key, in: table ?? self.table)
        try store.backend.apply(batch)
    }

    /// A store with one note saved twice (texts "secret alpha", "secret beta").
    private func makeNotes(_ directory: TemporaryDirectory, key: String?) throws -> (Store, Note) {
        let store = try directory.openStore(model, configuration: .quickKey(key))
        let note = Note("secret alpha")
        try store.insert(note)
        try store.saveChanges()
        note.text = "secret beta"
        try store.saveChanges()
        return (store, note)
    }

    @Test func anEncryptedStoresVersionsAreSealedAndRekeyResealsThem() throws {
        let directory = TemporaryDirectory("history-encrypted")
        let (store, note) = try makeNotes(directory, key: "first key")
        let raw = try rawVersions(store)
        #expect(raw.count == 2 && raw.allSatisfy { $0.value.first == HistoryRecord.sealedFormat })
        // Without the key a version does not open.
        for record in raw {
            let opened = record.key.withUnsafeBytes { key in
                record.value.withUnsafeBytes { value in
                    Result { () throws(HistoryRecord.Damage) in try HistoryRecord(key: key, value: value, table: table, cipher: nil) }
                }
            }
            #expect(throws: HistoryRecord.Damage.sealedWithoutKey) { try opened.get() }
        }
        try store.rekey(to: "second key")
        #expect(try store.history(of: note).map { $0.object?.text } == ["secret alpha", "secret beta"])
        try store.close()
        let bytes = try #require(FileManager.default.contents(atPath: directory.file(table + ".tcb")))
        #expect(bytes.range(of: Data("secret".utf8)) == nil)
        #expect(throws: StoreError.encryptionKeyRequired) { try directory.openStore(model) }
        let reopened = try directory.openStore(model, configuration: .quickKey("second key"))
        #expect(try reopened.history(of: Note.self, rowID: note.rowID).map { $0.object?.text } == ["secret alpha", "secret beta"])
        // A checksummed version slipped into a store that seals everything is refused.
        let plain = try HistoryRecord(page: 0, sequence: 1, savedAt: 0, versions: [.init(rowID: note.rowID, version: 1, content: [0])])
            .encodedValue(table: table, cipher: nil)
        try put(plain, forKey: HistoryRecord.key(page: 0, sequence: 1), in: reopened)
        #expect(throws: StoreError.corruptHistory(class: "Note", rowID: note.rowID, sequence: 1, reason: "not sealed with the store's key")) {
            try reopened.history(of: note)
        }
        try reopened.close()
    }

    @Test func rekeyToPlaintextAndTurningEncryptionOnRewriteVersions() throws {
        let directory = TemporaryDirectory("history-rekey")
        let (store, note) = try makeNotes(directory, key: "key")
        try store.rekey(to: nil)
        #expect(try rawVersions(store).allSatisfy { $0.value.first == HistoryRecord.checkedFormat })
        try store.close()
        // A plaintext store given a key at open: its versions are sealed in the same batch.
        let encrypted = try directory.openStore(model, configuration: .quickKey("new key"))
        #expect(try rawVersions(encrypted).allSatisfy { $0.value.first == HistoryRecord.sealedFormat })
        #expect(try encrypted.history(of: Note.self, rowID: note.rowID).map { $0.object?.text } == ["secret alpha", "secret beta"])
        #expect(try encrypted.verify().isHealthy)
        try encrypted.compact()
        #expect(try encrypted.history(of: Note.self, rowID: note.rowID).count == 2)
    }

    @Test(arguments: BackendKind.allCases) func damagedVersionsAreTypedErrorsAndVerifyProblems(_ backend: BackendKind) throws {
        for key in [nil, "key"] as [String?] {
            let directory = TemporaryDirectory("history-damage", backend: backend)
            let (store, note) = try makeNotes(directory, key: key)
            let raw = try rawVersions(store)
            let rowID = note.rowID
            func expectCorrupt(sequence: UInt64, _ what: String) throws {
                do {
                    _ = try store.history(of: note)
                    Issue.record("\(what): read without error")
                } catch let StoreError.corruptHistory(name, badRowID, badSequence, _) {
                    #expect(name == "Note" && badRowID == rowID && badSequence == sequence, "\(what)")
                }
                let problems = try store.verify().problems
                #expect(problems.contains { if case .corruptHistory(_, rowID, sequence, _) = $0 { true } else { false } }, "\(what): \(problems)")
            }
            // Every bit of the first version's value flipped in turn (a sample of bits for speed).
            for offset in stride(from: 0, to: raw[0].value.count, by: 3) {
                var damaged = raw[0].value
                damaged[offset] ^= 0x10
                try put(damaged, forKey: raw[0].key, in: store)
                try expectCorrupt(sequence: 1, "byte \(offset) flipped")
            }
            for length in [0, 1, 5, 12] {
                try put(Array(raw[0].value.prefix(length)), forKey: raw[0].key, in: store)
                try expectCorrupt(sequence: 1, "truncated to \(length)")
            }
            try put(raw[0].value, forKey: raw[0].key, in: store)
            #expect(try store.verify().isHealthy)
            // The second version replayed under the first's key: its key is covered.
            try put(raw[1].value, forKey: raw[0].key, in: store)
            try expectCorrupt(sequence: 1, "replayed")
            try put(raw[0].value, forKey: raw[0].key, in: store)
            // A version under a save the store has not made.
            try put(raw[1].value, forKey: HistoryRecord.key(page: 0, sequence: 9), in: store)
            try expectCorrupt(sequence: 9, "from the future")
            var batch = WriteBatch()
            batch.removeValue(forKey: HistoryRecord.key(page: 0, sequence: 9), in: table)
            try store.backend.apply(batch)
            #expect(try store.verify().isHealthy)
            #expect(try store.history(of: note).count == 2)
            // A version removed: the registry's count of versions tells.
            batch = WriteBatch()
            batch.removeValue(forKey: raw[0].key, in: table)
            try store.backend.apply(batch)
            #expect(try store.verify().problems == [.missingRecords(table: table, expected: 2, found: 1)])
        }
    }

    @Test func aVersionMovedToAnotherClassesHistoryDoesNotOpen() throws {
        let directory = TemporaryDirectory("history-moved")
        let store = try directory.openStore([Song.self, Note.self, MemoV1.self], configuration: .quickKey("key"))
        let note = Note("x")
        let memo = MemoV1()
        memo.title = "x"
        try store.insert(note)
        try store.insert(memo)
        try store.saveChanges()
        let value = try #require(try rawVersions(store).first?.value)
        try put(value, forKey: HistoryRecord.key(page: 0, sequence: 1), in: store, table: HistoryRecord.table(forClass: "Memo"))
        #expect(throws: StoreError.corruptHistory(class: "Memo", rowID: memo.rowID, sequence: 1,
                                                  reason: HistoryRecord.Damage.checksumMismatch.reason)) {
            try store.history(of: memo)
        }
    }

    @Test func theDocumentedRecordIsTheOneLarderWrites() throws {
        // FORMAT.md section 20's example.
        let record = HistoryRecord(page: 0, sequence: 3, savedAt: 786_000_000.5,
                                   versions: [.init(rowID: 1, version: 1, content: [0x02, 0x68, 0x69, 0x00]),
                                              .init(rowID: 2, version: nil, content: [])])
        let value = try record.encodedValue(table: table, cipher: nil)
        #expect(value == Self.documentedValue)
        #expect(HistoryRecord.key(page: 0, sequence: 3) == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3])
        let decoded = HistoryRecord.key(page: 0, sequence: 3).withUnsafeBytes { key in
            value.withUnsafeBytes { try? HistoryRecord(key: key, value: $0, table: table, cipher: nil) }
        }
        #expect(decoded == record)
    }

    private static let documentedValue: [UInt8] = [0x02, 0x00, 0x00, 0x40, 0x40, 0xb4, 0x6c, 0xc7, 0x41, 0x02,
                                                   0x01, 0x00, 0x01, 0x04, 0x02, 0x68, 0x69, 0x00, 0x02, 0x01,
                                                   0xaa, 0x37, 0xa6, 0xa5]
}
