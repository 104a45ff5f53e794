// How documents and index entries lie in their tables: index runs (split, merged, emptied,
// read across their boundaries forwards and backwards, counted from their headers, refused
// when damaged) and document pages (kept, emptied, counted), checked against a model of the
// collection kept in memory.

import Foundation
import Larder
import LarderTestSupport
import Testing
@testable import LarderDocuments

@Suite struct StorageLayoutTests {
    /// Long keys: a run of about 4 KB holds a dozen entries, so a few hundred documents spread
    /// an index over many runs.
    private static func label(_ number: Int) -> JSON {
        .string(String(format: "%05d", number) + String(repeating: "x", count: 300))
    }

    /// The format byte of every run of the collection's first index.
    private func runFormats(_ collection: DocumentCollection) throws -> Set<UInt8> {
        try collection.withState { state in
            var formats: Set<UInt8> = []
            try state.backend.forEachRecord(in: state.definition.indexes[0].table(in: state.name)) { _, value in
                formats.insert(value[0])
                return true
            }
            return formats
        }
    }

    private func runCount(_ collection: DocumentCollection, index position: Int = 0) throws -> Int {
        try collection.withState { state in
            try state.backend.recordCount(in: state.definition.indexes[position].table(in: state.name))
        }
    }

    /// The runs of `entries` built whole (each full but the last) or with `budget`.
    private func runs(_ entries: [[UInt8]], budget: Int = IndexRun.targetSize,
                      restartPoints: Bool = true) -> [(key: [UInt8], value: [UInt8])] {
        var builder = IndexRunBuilder(budget: budget, restartPoints: restartPoints)
        for entry in entries { builder.append(entry) }
        return builder.finish()
    }

    private func decode(_ run: (key: [UInt8], value: [UInt8])) throws -> [[UInt8]] {
        try run.key.withUnsafeBytes { key in try run.value.withUnsafeBytes { try IndexRun.entries(key: key, value: $0) } }
    }

    /// The entries of `run` that `IndexRun.forEachEntry` visits from `start` (nil: all).
    private func entriesVisited(in run: (key: [UInt8], value: [UInt8]), from start: [UInt8]?) throws -> [[UInt8]] {
        var read: [[UInt8]] = []
        _ = try run.key.withUnsafeBytes { key in
            try run.value.withUnsafeBytes { value in
                try IndexRun.forEachEntry(key: key, value: value, from: start) { entry in
                    read.append(Array(entry))
                    return true
                }
            }
        }
        return read
    }

    @Test(arguments: [true, false])
    func aRunRoundTripsAndSplitsByItsSize(restartPoints: Bool) throws {
        func runs(_ entries: [[UInt8]], budget: Int = IndexRun.targetSize) -> [(key: [UInt8], value: [UInt8])] {
            self.runs(entries, budget: budget, restartPoints: restartPoints)
        }
        let entries = (0 ..< 500).map { Array("key \(1_000 + $0)".utf8) + RowIDKey.bytes(UInt64($0)) }
        let one = runs(entries, budget: 1 << 20)
        #expect(one[0].value[0] == (restartPoints ? IndexRun.indexedFormat : IndexRun.format))
        #expect(one.count == 1 && one[0].key == entries[0])
        #expect(one[0].value.count < entries.reduce(0) { $0 + $1.count } * 3 / 4)   // shared prefixes are not repeated
        #expect(try decode(one[0]) == entries)
        #expect(try one[0].key.withUnsafeBytes { key in try one[0].value.withUnsafeBytes { try IndexRun.count(key: key, value: $0) } } == 500)

        // Entries that differ early: each takes about 210 bytes in a run.
        let big = (0 ..< 100).map { Array(String(format: "%03d", $0).utf8) + Array(repeating: UInt8(0x41), count: 200) + RowIDKey.bytes(1) }
        let filled = runs(big)
        let even = runs(big, budget: IndexRunBuilder.evenBudget(forBytes: big.reduce(0) { $0 + $1.count }))
        #expect(filled.count > 1 && even.count >= filled.count)
        #expect(filled.dropLast().allSatisfy { $0.value.count >= IndexRun.targetSize })
        #expect(even.allSatisfy { $0.value.count < IndexRun.targetSize + 300 })
        let sizes = even.map { try? decode($0).count }
        #expect(Set(sizes).count <= 2)
        #expect(try filled.flatMap(decode) == big && even.flatMap(decode) == big)
        #expect(filled.allSatisfy { run in (try? decode(run).first) == run.key })
    }

    @Test(arguments: [true, false])
    func everyDamagedByteOfARunIsRefused(restartPoints: Bool) throws {
        let entries = (0 ..< 20).map { Array("k\($0 % 3)".utf8) + RowIDKey.bytes(UInt64($0)) }.sorted(by: ByteOrder.less)
        let value = runs(entries, restartPoints: restartPoints)[0].value
        for position in value.indices {
            var damaged = value
            damaged[position] ^= 0x04
            #expect(throws: IndexRun.Damage.self) {
                try entries[0].withUnsafeBytes { key in try damaged.withUnsafeBytes { try IndexRun.entries(key: key, value: $0) } }
            }
        }
        // A run put under another key is refused too: the checksum covers the key.
        #expect(throws: IndexRun.Damage.self) {
            try entries[1].withUnsafeBytes { key in try value.withUnsafeBytes { try IndexRun.entries(key: key, value: $0) } }
        }
    }

    /// A run's restart points, damaged and sealed again with a checksum that matches: a read
    /// from a start refuses them rather than read from the wrong place.
    @Test func restartPointsThatDoNotPointAtARestartAreRefused() throws {
        let entries = (0 ..< 40).map { Array("k\($0)".utf8) + RowIDKey.bytes(UInt64($0)) }.sorted(by: ByteOrder.less)
        let run = runs(entries)[0]
        let restarts = Int(run.value[run.value.count - 4])
        #expect(restarts == 2)
        func resealed(_ change: (inout [UInt8]) -> Void) -> [UInt8] {
            var value = run.value
            change(&value)
            let crc = run.key.withUnsafeBytes { key in value.withUnsafeBytes { Checksum.crc32(key, UnsafeRawBufferPointer(rebasing: $0[5...])) } }
            for index in 0 ..< 4 { value[1 + index] = UInt8(truncatingIfNeeded: crc >> (8 * UInt32(index))) }
            return value
        }
        let firstOffset = run.value.count - 4 - 4 * restarts
        let damaged = [
            resealed { $0[firstOffset] += 3 },                            // inside an entry that shares bytes
            resealed { $0[firstOffset + 1] = 0xFF },                      // past the entries
            resealed { $0[firstOffset] = 2 },                             // inside the header
            resealed { $0[$0.count - 4] = 1 },                            // one restart for 40 entries
            resealed { $0[$0.count - 1] = 0x7F },                         // more restarts than bytes
        ]
        for (number, value) in damaged.enumerated() {
            #expect(throws: IndexRun.Damage.self, "damage \(number)") {
                try run.key.withUnsafeBytes { key in
                    try value.withUnsafeBytes { value in
                        // Starts whose search reads the first restart point, then the second.
                        for start in [entries[17], entries[39]] {
                            try IndexRun.forEachEntry(key: key, value: value, from: start) { _ in true }
                        }
                        _ = try IndexRun.entries(key: key, value: value)
                    }
                }
            }
        }
    }

    @Test(arguments: [true, false])
    func aRunReadFromAStartSkipsExactlyTheEntriesBeforeIt(restartPoints: Bool) throws {
        var generator = SplitMix(seed: 11)
        // Short keys over a small alphabet: many shared prefixes, and keys that are prefixes
        // of others.
        func randomKey() -> [UInt8] {
            (0 ..< Int.random(in: 0 ... 6, using: &generator)).map { _ in UInt8.random(in: 0x61 ... 0x63, using: &generator) }
        }
        for round in 0 ..< 40 {
            let entries = Set((0 ..< Int.random(in: 1 ... 120, using: &generator)).map { _ in randomKey() })
                .sorted(by: ByteOrder.less)
            let run = runs(entries, budget: 1 << 20, restartPoints: restartPoints)[0]
            var starts = (0 ..< 30).map { _ in randomKey() } + entries.prefix(5) + entries.suffix(20)
            if let last = entries.last { starts.append(last + [0x00]) }
            for start in starts {
                let read = try entriesVisited(in: run, from: start)
                let expected = entries.filter { !ByteOrder.less($0, start) }
                #expect(read == expected, "round \(round), start \(start)")
            }
        }
    }

    /// Entries are put together in a kilobyte on the stack, moved to the heap when one is
    /// longer: runs whose key, or an entry after it, is longer read back whole, from their
    /// start and from each entry.
    @Test(arguments: [true, false])
    func entriesLongerThanAKilobyteReadBackWhole(restartPoints: Bool) throws {
        func entry(_ number: Int, length: Int) -> [UInt8] {
            Array(String(format: "%03d", number).utf8) + Array(repeating: UInt8(0x61 + number % 26), count: length)
        }
        let layouts: [[Int]] = [
            [2_000, 10, 10, 1_500, 10],                     // the key is long
            [10, 10, 1_200, 3_000, 10, 10],                 // later entries, each longer
            (0 ..< 40).map { $0 == 33 ? 1_100 : 20 },       // past the restart points
        ]
        for lengths in layouts {
            let entries = lengths.enumerated().map { entry($0.offset, length: $0.element) }
            let run = runs(entries, budget: 1 << 20, restartPoints: restartPoints)[0]
            for start in [nil] + entries.map(Optional.some) {
                let read = try entriesVisited(in: run, from: start)
                let expected = start.map { start in entries.filter { !ByteOrder.less($0, start) } } ?? entries
                #expect(read == expected, "lengths \(lengths), start \(start?.count ?? 0) bytes")
            }
        }
    }

    @Test func indexesSpreadOverManyRunsAgreeWithTheDocumentsThroughRandomWrites() throws {
        let temporary = try TemporaryStore()
        var c = try temporary.store.collection("things")
        try c.addIndex("[label]")
        try c.addIndex("[group], [label] DESC")
        var model: [RowID: JSON] = [:]
        var generator = SplitMix(seed: 7)
        func document(_ number: Int) -> JSON {
            ["label": Self.label(number), "group": .int(Int64(number % 4))]
        }
        for (rowID, number) in zip(try c.insertBatch((0 ..< 400).map { document($0 * 10) }), 0...) {
            model[rowID] = document(number * 10)
        }
        #expect(try runCount(c) > 20)
        for round in 0 ..< 12 {
            var updates: [JSON] = []
            for rowID in model.keys.shuffled(using: &generator).prefix(40) {
                var changed = document(Int(generator.next() % 4_000))
                model[rowID] = changed
                changed["__rowid__"] = .rowID(rowID)
                updates.append(changed)
            }
            try c.updateBatch(updates)
            let removed = Array(model.keys.shuffled(using: &generator).prefix(25))
            for rowID in removed {
                try c.delete(["__rowid__": .rowID(rowID)])
                model[rowID] = nil
            }
            let added = (0 ..< 30).map { _ in document(Int(generator.next() % 4_000)) }
            for (rowID, added) in zip(try c.insertBatch(added), added) { model[rowID] = added }
            if round == 6 { c = try temporary.reopen().collection("things") }

            #expect(try c.inconsistentIndexes().isEmpty)
            #expect(try c.count() == model.count)
            // Ranges that start and end inside runs, read forwards and backwards.
            let low = Self.label(Int(generator.next() % 2_000)), high = Self.label(2_000 + Int(generator.next() % 2_000))
            let inRange = model.filter { JSON.compare($0.value["label"], low) >= 0 && JSON.compare($0.value["label"], high) <= 0 }
            #expect(try c.count(where: "[label] BETWEEN ? AND ?", arguments: [low, high]) == inRange.count)
            #expect(try c.explain(where: "[label] BETWEEN ? AND ?", arguments: [low, high]).contains("exact"))
            let ascending = inRange.sorted { ($0.value["label"].stringValue ?? "", $0.key) < ($1.value["label"].stringValue ?? "", $1.key) }
            #expect(try rowIDs(c.find(where: "[label] >= ?", arguments: [low], orderBy: "[label]", limit: 50))
                    == Array(model.filter { JSON.compare($0.value["label"], low) >= 0 }
                        .sorted { ($0.value["label"].stringValue ?? "", $0.key) < ($1.value["label"].stringValue ?? "", $1.key) }
                        .map(\.key).prefix(50)))
            #expect(try rowIDs(c.find(where: "[label] BETWEEN ? AND ?", arguments: [low, high])) == ascending.map(\.key).sorted())
            let group = Int64(round % 4)
            let inGroup = model.filter { $0.value["group"] == .int(group) }
            let descending = inGroup.sorted { ($1.value["label"].stringValue ?? "", $0.key) < ($0.value["label"].stringValue ?? "", $1.key) }
            #expect(try rowIDs(c.find(where: "[group] = ?", arguments: [.int(group)], orderBy: "[label] DESC", limit: 30))
                    == Array(descending.map(\.key).prefix(30)))
            #expect(try c.count(where: "[group] = ?", arguments: [.int(group)]) == inGroup.count)
        }
        // Every document removed: every run goes, and the pages with them.
        #expect(try c.delete(where: "[group] >= 0") == model.count)
        #expect(try runCount(c) == 0 && runCount(c, index: 1) == 0)
        #expect(try c.count() == 0)
        #expect(try c.withState { try $0.backend.recordCount(in: $0.name) } == 0)
    }

    @Test func anOrderedLimitReadsOnPastDocumentsItsIndexNamesButThatAreGone() throws {
        let temporary = try TemporaryStore()
        let c = try temporary.store.collection("things")
        try c.addIndex("[n]")
        try c.insertBatch((1 ... 300).map { ["n": .int(Int64($0))] })
        try c.setCacheSize(0)
        let orderedLimit = { try c.find(where: "[n] >= ?", arguments: [125], orderBy: "[n]", limit: 5).map { $0["n"].intValue ?? 0 } }
        #expect(try orderedLimit() == [125, 126, 127, 128, 129])
        // Page 1 (rowIDs 128 to 255) goes behind the index's back, as damage would take it.
        try c.withState { state in
            var batch = WriteBatch()
            batch.removeValue(forKey: RecordPage.key(forPage: 1), in: state.name)
            try state.backend.apply(batch)
        }
        #expect(try orderedLimit() == [125, 126, 127, 256, 257])
        #expect(try c.find(where: "[n] >= ?", arguments: [125], orderBy: "[n]", limit: 2, offset: 2).map { $0["n"].intValue ?? 0 } == [127, 256])
        #expect(try c.find(where: "[n] >= ?", arguments: [128], orderBy: "[n]", limit: 1).map { $0["n"].intValue ?? 0 } == [256])
    }

    @Test func aDamagedRunIsATypedErrorAndNothingIsWrittenOverIt() throws {
        let temporary = try TemporaryStore()
        let c = try temporary.store.collection("things")
        try c.addIndex("[label]")
        try c.insertBatch((0 ..< 100).map { ["label": Self.label($0)] })
        let table = try c.withState { $0.definition.indexes[0].table(in: $0.name) }
        try c.withState { state in
            var first: (key: [UInt8], value: [UInt8])?
            try state.backend.forEachRecord(in: table, from: nil, through: nil, reverse: false) { key, value in
                first = (Array(key), Array(value))
                return false
            }
            guard var (key, value) = first else { Issue.record("no run"); return }
            value[value.count - 1] ^= 0x01
            var batch = WriteBatch()
            batch.put(value, forKey: key, in: table)
            try state.backend.apply(batch)
            key = []
        }
        let failure = DocumentError.corruptIndex(collection: "things", index: "[label]", reason: "index run checksum mismatch")
        #expect(throws: failure) { try c.find(where: "[label] = ?", arguments: [Self.label(0)]) }
        #expect(throws: failure) { try c.count(where: "[label] <= ?", arguments: [Self.label(50)]) }
        #expect(throws: failure) { try c.insert(["label": Self.label(0)]) }
        #expect(try c.count() == 100)
        #expect(try c.find(where: "[__rowid__] = 1").count == 1)
        // Dropping the index and adding it again rebuilds it.
        #expect(try c.dropIndex("[label]"))
        #expect(try c.dropIndex("[label]") == false)
        #expect(try c.withState { try $0.backend.recordCount(in: table) } == 0)
        try c.addIndex("[label]")
        #expect(try c.inconsistentIndexes().isEmpty)
        #expect(try c.count(where: "[label] <= ?", arguments: [Self.label(50)]) == 51)
        try c.insert(["label": Self.label(0)])
        #expect(try c.count(where: "[label] = ?", arguments: [Self.label(0)]) == 2)
    }

    @Test func documentsAreReadOnceEachInRowIDOrderWhateverOrderTheyAreAskedIn() throws {
        let temporary = try TemporaryStore()
        let c = try temporary.store.collection("things")
        // 40 pages: a few rowIDs are read page by page (a bitmap of wanted rowIDs would hide repeats).
        try c.insertBatch((1 ... 5_000).map { ["n": .int(Int64($0))] })
        try c.setCacheSize(0)
        try c.withState { state in
            let found = try state.documents([4_900, 5, 130, 5, 1, 4_900, 77, 9_000])
            #expect(found.map(\.rowID) == [1, 5, 77, 130, 4_900])
            #expect(found.allSatisfy { $0.document["n"] == .int($0.rowID) })
            #expect(try state.documents([3, 2, 2]).map(\.rowID) == [2, 3])
        }
    }

    @Test func aBigFindDecodesOnEveryCoreAndReportsADamagedDocument() throws {
        let temporary = try TemporaryStore()
        let c = try temporary.store.collection("things")
        try c.addIndex("[kind]")
        let count = CopiedRecords.parallelThreshold * 2
        try c.insertBatch((0 ..< count).map { ["kind": .int(Int64($0 % 2)), "n": .int(Int64($0))] })
        try c.setCacheSize(0)
        let even = try c.find(where: "[kind] = 0")
        #expect(even.count == count / 2)
        #expect(even.enumerated().allSatisfy { $1["n"] == .int(Int64(2 * $0)) && $1["__rowid__"] == .int(Int64(2 * $0 + 1)) })
        #expect(try c.find(where: "[kind] >= 0").count == count)
        // One damaged document among thousands decoded in parallel: a typed error, no result.
        try c.withState { try $0.replaceRawRecord(3_001, with: [DocumentRecord.format, 0, 0, 0, 0, 99]) }
        #expect(throws: DocumentError.corruptDocument(collection: "things", rowID: 3_001, reason: "checksum mismatch")) {
            try c.find(where: "[kind] >= 0")
        }
        #expect(try c.find(where: "[kind] = 1").count == count / 2)
    }

    @Test func arraysUnderAnIndexCountEachDocumentOnce() throws {
        let temporary = try TemporaryStore()
        let c = try temporary.store.collection("things")
        try c.addIndex("[group], [tags]")
        try c.addIndex("[tags]")
        let documents: [JSON] = (0 ..< 300).map { number in
            ["group": .int(Int64(number % 3)), "tags": .array((0 ... number % 4).map { .string("t\($0)") })]
        }
        try c.insertBatch(documents)
        func expected(_ keep: (JSON) -> Bool) -> Int { documents.filter(keep).count }
        // One range over an array key that the range does not fix: a document has several
        // entries in it, and is found and counted once.
        #expect(try c.explain(where: "[group] = 1").hasPrefix("index [group], [tags]"))
        #expect(try c.count(where: "[group] = 1") == expected { $0["group"] == 1 })
        #expect(try c.find(where: "[group] = 1").count == expected { $0["group"] == 1 })
        // One value of the array key: one entry per document. Several values: deduplicated.
        let hasT2: (JSON) -> Bool = { $0["tags"].arrayValue?.contains("t2") ?? false }
        #expect(try c.count(where: "[tags] CONTAINS 't2'") == expected(hasT2))
        #expect(try c.count(where: "[group] = 2 AND [tags] CONTAINS 't2'") == expected { $0["group"] == 2 && hasT2($0) })
        // Several ranges of one document's entries: the same answers as without indexes.
        let plain = try temporary.store.collection("plain")
        try plain.insertBatch(documents)
        for query in ["[tags] CONTAINS 't1' OR [tags] CONTAINS 't3'", "[group] IN (0, 2)", "[group] IN (0, 2) AND [tags] CONTAINS 't3'"] {
            #expect(try c.count(where: query) == plain.count(where: query), "\(query)")
            #expect(try c.find(where: query) == plain.find(where: query), "\(query)")
        }
    }

    @Test func documentsShareAndLeavePages() throws {
        let temporary = try TemporaryStore()
        let c = try temporary.store.collection("things")
        try c.insertBatch((0 ..< 300).map { ["n": .int(Int64($0))] })
        // 128 rowIDs a page: rowIDs 1 ... 300 lie in pages 0 ... 2.
        let pages = { try c.withState { try $0.backend.recordCount(in: $0.name) } }
        #expect(try c.withState { $0.definition.format } == 5)
        #expect(try pages() == 3)
        #expect(try c.delete(where: "[n] < ?", arguments: [127]) == 127)   // rowIDs 1 ... 127: page 0
        #expect(try pages() == 2)
        #expect(try c.count() == 173)
        let next = try c.insert(["n": 300])
        #expect(next == 301)
        #expect(try temporary.reopen().collection("things").count() == 174)
        #expect(try temporary.store.collection("things").find(where: "[n] >= ?", arguments: [299]).map { $0["n"] } == [299, 300])
    }

    /// Writes collection `name` as an older `format` did: `documents` documents `{"n": rowID}`
    /// in pages of `layout`, and its definition.
    private func writeOldCollection(_ name: String, format: Int, layout: PageLayout, documents: Int,
                                    in temporary: TemporaryStore) throws {
        let key = CollectionDefinition.metadataKey(for: name)
        let definition: JSON = ["format": .int(Int64(format)), "nextRowID": .int(Int64(documents + 1)), "nextIndexID": 1,
                                "indexes": [], "queryable": [], "aliases": [:], "defaults": [:]]
        try temporary.store.collection("empty").withState { state in
            var records = PendingRecords(layout: layout)
            for rowID in 1 ... documents {
                let record = DocumentRecord.seal(["n": .int(Int64(rowID))], key: DocumentTable.recordKey(Int64(rowID)), isDocument: true)
                record.withUnsafeBytes { records.add(envelope: $0, rowID: UInt64(rowID)) }
            }
            var batch = WriteBatch()
            _ = try state.backend.writePages(records, of: name, into: &batch) { _ in false }
            batch.put(DocumentRecord.seal(definition, key: key), forKey: key, in: DocumentStore.metadataTable)
            try state.backend.apply(batch)
        }
    }

    @Test func aCollectionInFormatTwoKeepsPagesOf32() throws {
        let temporary = try TemporaryStore()
        // A collection as format 2 wrote it: 100 documents in pages of 32 rowIDs.
        try writeOldCollection("old", format: 2, layout: .objects, documents: 100, in: temporary)
        let store = try temporary.reopen()
        let old = try store.collection("old")
        let pages = { try old.withState { try $0.backend.recordCount(in: $0.name) } }
        #expect(try old.withState { $0.definition.format } == 2)
        #expect(try pages() == 4)
        #expect(try old.count() == 100)
        #expect(try old.findOne(where: "[__rowid__] = ?", arguments: [64]) == ["n": 64, "__rowid__": 64])
        #expect(try old.find(where: "[n] >= ?", arguments: [98]).map { $0["n"] } == [98, 99, 100])
        // Written in its own layout: page 4 starts at rowID 128.
        #expect(try old.insertBatch((0 ..< 30).map { ["n": .int(Int64(1_000 + $0))] }) == Array(101 ... 130))
        #expect(try pages() == 5)
        try old.addIndex("[n]")
        #expect(try old.delete(where: "[n] <= ?", arguments: [31]) == 31)   // rowIDs 1 ... 31: page 0
        #expect(try pages() == 4)
        try old.update(["__rowid__": 40, "n": 4_000])
        let reopened = try temporary.reopen().collection("old")
        #expect(try reopened.withState { $0.definition.format } == 2)
        #expect(try reopened.count() == 99)
        #expect(try reopened.find(where: "[n] > ?", arguments: [1_028]).map { $0["__rowid__"] } == [40, 130])
        #expect(try reopened.inconsistentIndexes().isEmpty)
    }
}

extension StorageLayoutTests {
    @Test func aCollectionInFormatThreeKeepsPagesWithoutDirectory() throws {
        let temporary = try TemporaryStore()
        // A collection as format 3 wrote it: 300 documents in pages of 128 rowIDs, no directory.
        try writeOldCollection("old", format: 3, layout: .documents, documents: 300, in: temporary)
        let pageFormats = { (collection: DocumentCollection) in
            try collection.withState { state in
                var formats: [UInt8] = []
                try state.backend.forEachRecord(in: state.name) { _, page in
                    formats.append(page[0])
                    return true
                }
                return formats
            }
        }
        let old = try temporary.reopen().collection("old")
        #expect(try old.withState { $0.definition.format } == 3)
        #expect(try pageFormats(old) == [RecordPage.format, RecordPage.format, RecordPage.format])
        #expect(try old.findOne(where: "[__rowid__] = ?", arguments: [200]) == ["n": 200, "__rowid__": 200])
        // Written in its own layout: the pages it changes stay without directory.
        try old.update(["__rowid__": 200, "n": 2_000])
        #expect(try old.insert(["n": 301]) == 301)
        try old.addIndex("[n]")
        #expect(try pageFormats(old) == [RecordPage.format, RecordPage.format, RecordPage.format])
        // Its index runs are those of format 3 too: without restart points.
        #expect(try runFormats(old) == [IndexRun.format])
        let found = try old.find(where: "[n] >= ?", arguments: [300], orderBy: "[n]")
        #expect(found.map { $0["__rowid__"] } == [300, 301, 200])
        // A new collection in the same store takes format 5: pages with a directory.
        let new = try temporary.store.collection("new")
        try new.insertBatch((1 ... 200).map { ["n": .int(Int64($0))] })
        #expect(try new.withState { $0.definition.format } == 5)
        #expect(try pageFormats(new) == [RecordPage.indexedFormat, RecordPage.indexedFormat])
        try new.addIndex("[n]")
        #expect(try runFormats(new) == [IndexRun.indexedFormat])
        #expect(try new.find(where: "[n] >= ?", arguments: [190], orderBy: "[n]", limit: 3).map { $0["n"] } == [190, 191, 192])
        #expect(try new.findOne(where: "[__rowid__] = ?", arguments: [130]) == ["n": 130, "__rowid__": 130])
        let reopened = try temporary.reopen().collection("old")
        #expect(try reopened.withState { $0.definition.format } == 3)
        #expect(try reopened.count() == 301)
        #expect(try reopened.inconsistentIndexes().isEmpty)
    }

    @Test func findsOfAFewOrManyDocumentsOfEveryPageAgreeWithAScan() throws {
        let temporary = try TemporaryStore()
        let c = try temporary.store.collection("spread")
        try c.addIndex("[k]")
        // 2,000 documents in 16 pages; k = rowID % 40 puts 3 or 4 in every page (read through
        // the directory), k < 30 about 96 (read by walking the page).
        let documents: [JSON] = (1 ... 2_000).map { (rowID: Int) -> JSON in .object(["k": .int(Int64(rowID % 40)), "n": .int(Int64(rowID))]) }
        try c.insertBatch(documents)
        #expect(try c.delete(where: "[n] = ? OR [n] = ?", arguments: [80, 1_200]) == 2)
        try c.update(["__rowid__": 441, "k": 0, "n": -441])
        let all = try c.find()
        let sparse: [JSON] = all.filter { (document: JSON) in document["k"] == .int(0) }
        #expect(sparse.count == 49)
        #expect(try c.explain(where: "[k] = ?", arguments: [0]).hasPrefix("index [k]"))
        #expect(try c.find(where: "[k] = ?", arguments: [0]) == sparse)
        let dense: [JSON] = all.filter { (document: JSON) in JSON.compare(document["k"], .int(30)) < 0 }
        #expect(try c.find(where: "[k] < ?", arguments: [30]) == dense)
        #expect(try temporary.reopen().collection("spread").find(where: "[k] = ?", arguments: [0]) == sparse)
    }

    @Test func aCollectionInTheFirstFormatIsRefusedUntouched() throws {
        let temporary = try TemporaryStore()
        _ = try temporary.store.collection("empty")
        // A definition as format 1 wrote it: no "format", documents already handed out.
        let key = CollectionDefinition.metadataKey(for: "old")
        let old: JSON = ["nextRowID": 3, "nextIndexID": 1, "indexes": [], "queryable": [], "aliases": [:], "defaults": [:]]
        try temporary.store.collection("empty").withState { state in
            var batch = WriteBatch()
            batch.put(DocumentRecord.seal(old, key: key), forKey: key, in: DocumentStore.metadataTable)
            try state.backend.apply(batch)
        }
        let store = try temporary.reopen()
        #expect(throws: DocumentError.unsupportedFormat(collection: "old", format: 1)) { try store.collection("old") }
        #expect(try store.collection("empty").count() == 0)
        #expect(throws: DocumentError.unsupportedFormat(collection: "old", format: 1)) { try store.collection("old") }
    }
}
