// Reading a hash database's records in place (MappedRecordLookup) must give exactly what
// tchdbget copies, for every record, through overwrites that move records, removals and
// transactions; and must give nothing, never a wrong value, where it cannot vouch for the
// bytes: records past the mapped region, records waiting in the delayed pool, damaged trees.

import Foundation
import Testing
@testable import Larder
import LarderTestSupport

@Suite struct MappedRecordLookupTests {
    /// A hash database with few buckets, so that records share buckets and form trees.
    private func openDatabase(_ directory: TemporaryDirectory, mappedSize: Int64 = 8 << 20) throws -> HashDatabase {
        try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true)
        return try HashDatabase(path: directory.file("records.tch"),
                                tuning: .init(bucketCount: 7, mappedSize: mappedSize), readOnly: false)
    }

    private func bytes(_ count: Int, using generator: inout SplitMix) -> [UInt8] {
        (0 ..< count).map { _ in UInt8.random(in: 0 ... 255, using: &generator) }
    }

    private func put(_ value: [UInt8], _ key: [UInt8], in database: HashDatabase) throws {
        try value.withUnsafeBytes { value in try key.withUnsafeBytes { try database.put(value, forKey: $0) } }
    }

    private func copied(_ key: [UInt8], in database: HashDatabase) throws -> [UInt8]? {
        var result: [UInt8]?
        try database.copiedValue(forKey: key) { result = $0.map(Array.init) }
        return result
    }

    private func read(_ key: [UInt8], in database: HashDatabase) throws -> [UInt8]? {
        var result: [UInt8]?
        try database.readValue(forKey: key) { result = $0.map(Array.init) }
        return result
    }

    /// Every stored record is found in place with tchdbget's bytes; other keys are not found.
    private func expectInPlace(_ model: [[UInt8]: [UInt8]], absent: [[UInt8]], in database: HashDatabase) throws {
        for (key, value) in model {
            let mapped = try database.mappedValue(forKey: key).map(Array.init)
            #expect(mapped == value, "key \(key)")
            #expect(try copied(key, in: database) == value)
        }
        for key in absent {
            #expect(try database.mappedValue(forKey: key) == nil)
            #expect(try read(key, in: database) == nil)
        }
    }

    @Test func readsEveryRecordInPlaceAsTokyoCabinetDoes() throws {
        let directory = TemporaryDirectory("mapped")
        let database = try openDatabase(directory)
        var generator = SplitMix(seed: 11)
        var model: [[UInt8]: [UInt8]] = [:]
        // Keys of 1-40 bytes, many sharing a length (so that trees compare bytes), values
        // from empty to larger than Tokyo Cabinet's first read of a record.
        while model.count < 1_500 {
            let key = bytes(Int.random(in: 1 ... 40, using: &generator), using: &generator)
            model[key] = bytes(Int.random(in: 0 ... 3_000, using: &generator), using: &generator)
        }
        for (key, value) in model { try put(value, key, in: database) }
        let absent = (0 ..< 200).map { _ in bytes(Int.random(in: 1 ... 41, using: &generator), using: &generator) }
            .filter { model[$0] == nil }
        try expectInPlace(model, absent: absent, in: database)
        try expectAllAtOnce(model, absent: absent, in: database)

        // Overwrites with larger values move records; smaller ones stay; removals free space
        // that later records reuse.
        var removed: [[UInt8]] = []
        for (index, key) in model.keys.sorted(by: { $0.lexicographicallyPrecedes($1) }).enumerated() {
            switch index % 4 {
            case 0: model[key] = bytes(Int.random(in: 3_000 ... 6_000, using: &generator), using: &generator)
            case 1: model[key] = bytes(Int.random(in: 0 ... 20, using: &generator), using: &generator)
            case 2: removed.append(key)
            default: continue
            }
        }
        for key in removed {
            model[key] = nil
            try key.withUnsafeBytes { try database.delete($0) }
        }
        for (key, value) in model { try put(value, key, in: database) }
        for _ in 0 ..< 300 {
            let key = bytes(Int.random(in: 1 ... 40, using: &generator), using: &generator)
            model[key] = bytes(Int.random(in: 0 ... 2_000, using: &generator), using: &generator)
            try put(model[key] ?? [], key, in: database)
        }
        try expectInPlace(model, absent: removed.filter { model[$0] == nil } + absent.filter { model[$0] == nil },
                          in: database)
        // The file now has free blocks between records: a walk in place meets every record,
        // in the order tchdbforeach does.
        let walked = try records(in: database, mapped: true)
        #expect(walked.count == model.count)
        #expect(walked.elementsEqual(try records(in: database, mapped: false), by: ==))
        let all = try #require(try database.recordsInPlace())
        #expect(all.map { (Array($0.key), Array($0.value)) }.elementsEqual(walked, by: ==))
        for (key, value) in walked { #expect(model[key] == value) }
        // Stopping early.
        var visited = 0
        #expect(try database.mappedRecords { _, _ in visited += 1; return visited < 10 })
        #expect(visited == 10)
    }

    /// Reads every key of `model` in one call (windows of walks side by side: many keys share
    /// a bucket's tree), in a shuffled order: the values in that order; and none at all when
    /// one key of a window is absent.
    private func expectAllAtOnce(_ model: [[UInt8]: [UInt8]], absent: [[UInt8]], in database: HashDatabase) throws {
        var generator = SplitMix(seed: 29)
        let keys = model.keys.sorted { $0.lexicographicallyPrecedes($1) }.shuffled(using: &generator)
        var values = [UnsafeRawBufferPointer](repeating: UnsafeRawBufferPointer(start: nil, count: 0), count: keys.count)
        let inPlace = try values.withUnsafeMutableBufferPointer { try database.valuesInPlace(forKeys: PackedKeys(keys), into: $0) }
        #expect(inPlace)
        #expect(values.map(Array.init).elementsEqual(keys.map { model[$0] ?? [] }))
        for missing in absent.prefix(20) {
            // In the middle of a window, after keys that are found.
            var withMissing = Array(keys.prefix(40))
            withMissing.insert(missing, at: 21)
            var none = [UnsafeRawBufferPointer](repeating: UnsafeRawBufferPointer(start: nil, count: 0), count: withMissing.count)
            #expect(try !none.withUnsafeMutableBufferPointer { try database.valuesInPlace(forKeys: PackedKeys(withMissing), into: $0) })
        }
    }

    /// Every record as a walk in place (`mapped`) or tchdbforeach gives them, in order.
    private func records(in database: HashDatabase, mapped: Bool) throws -> [([UInt8], [UInt8])] {
        var records: [([UInt8], [UInt8])] = []
        let body = { (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) -> Bool in
            records.append((Array(key), Array(value)))
            return true
        }
        if mapped {
            #expect(try database.mappedRecords(body))
        } else {
            try database.copiedRecords(body)
        }
        return records
    }

    @Test func aTransactionsWritesAreReadInPlaceAndItsAbortRestoresTheOldValues() throws {
        let directory = TemporaryDirectory("mapped-transaction")
        let database = try openDatabase(directory)
        var generator = SplitMix(seed: 12)
        let keys = (0 ..< 100).map { Array("key \($0)".utf8) }
        var before: [[UInt8]: [UInt8]] = [:]
        for key in keys { before[key] = bytes(Int.random(in: 10 ... 500, using: &generator), using: &generator) }
        for (key, value) in before { try put(value, key, in: database) }

        try database.beginTransaction()
        var during = before
        for key in keys.prefix(50) { during[key] = bytes(Int.random(in: 600 ... 900, using: &generator), using: &generator) }
        for key in keys.prefix(50) { try put(during[key] ?? [], key, in: database) }
        try expectInPlace(during, absent: [], in: database)
        database.abort()
        try expectInPlace(before, absent: [], in: database)
    }

    /// The walk ``HashDatabase/recordsInPlace()`` keeps is forgotten by every write: after
    /// each kind, a walk in place gives what tchdbforeach gives.
    @Test func aKeptWalkInPlaceIsForgottenByEveryWrite() throws {
        let directory = TemporaryDirectory("mapped-kept-walk")
        let database = try openDatabase(directory)
        var generator = SplitMix(seed: 13)
        let keys = (0 ..< 200).map { Array("key \($0)".utf8) }
        for key in keys { try put(bytes(Int.random(in: 10 ... 300, using: &generator), using: &generator), key, in: database) }
        let writes: [(String, () throws -> Void)] = [
            ("a larger value, moved", { try self.put(self.bytes(2_000, using: &generator), keys[3], in: database) }),
            ("a smaller value, in place", { try self.put([1, 2, 3], keys[4], in: database) }),
            ("a removal", { try keys[5].withUnsafeBytes { try database.delete($0) } }),
            ("a new record", { try self.put([9], Array("new".utf8), in: database) }),
            ("a delayed new record", {
                try [UInt8]([8]).withUnsafeBytes { value in
                    try Array("delayed".utf8).withUnsafeBytes { try database.putNew(value, forKey: $0) }
                }
                _ = try self.read(keys[0], in: database)   // writes the delayed pool to the file
            }),
            ("a committed transaction", {
                try database.beginTransaction()
                try self.put(self.bytes(3_000, using: &generator), keys[6], in: database)
                try database.commit()
            }),
            ("an aborted transaction", {
                try database.beginTransaction()
                try self.put(self.bytes(3_000, using: &generator), keys[7], in: database)
                #expect(try database.recordsInPlace() != nil)   // kept inside the transaction
                database.abort()
            }),
        ]
        for (write, apply) in writes {
            #expect(try database.recordsInPlace() != nil)
            #expect(database.readsThroughKeptIndex)
            try apply()
            #expect(!database.readsThroughKeptIndex, "after \(write)")
            let kept = try #require(try database.recordsInPlace(), "after \(write)")
            let copiedRecords = try records(in: database, mapped: false)
            #expect(kept.map { (Array($0.key), Array($0.value)) }.elementsEqual(copiedRecords, by: ==), "after \(write)")
            // Reads by key, through the new walk's index, give the file's values.
            let stored = copiedRecords.map(\.0) + [Array("never stored".utf8)]
            for key in stored { #expect(try database.mappedValue(forKey: key).map(Array.init) == copied(key, in: database)) }
            var values = [UnsafeRawBufferPointer](repeating: UnsafeRawBufferPointer(start: nil, count: 0), count: copiedRecords.count)
            let inPlace = try values.withUnsafeMutableBufferPointer { try database.valuesInPlace(forKeys: PackedKeys(copiedRecords.map(\.0)), into: $0) }
            #expect(inPlace)
            #expect(values.map(Array.init).elementsEqual(copiedRecords.map(\.1)), "after \(write)")
        }
    }

    @Test func recordsPastTheMappedRegionAreReadThroughTokyoCabinet() throws {
        let directory = TemporaryDirectory("mapped-small")
        let database = try openDatabase(directory, mappedSize: 64 << 10)
        var model: [[UInt8]: [UInt8]] = [:]
        for number in 0 ..< 300 {
            model[Array("record \(number)".utf8)] = Array(repeating: UInt8(number % 251), count: 1_000)
        }
        for (key, value) in model { try put(value, key, in: database) }
        var inPlace = 0
        for (key, value) in model {
            if let mapped = try database.mappedValue(forKey: key) {
                #expect(Array(mapped) == value)
                inPlace += 1
            }
            #expect(try read(key, in: database) == value)
        }
        // 300 KB of records, 64 KB mapped: some are read in place, most are not.
        #expect(inPlace > 10)
        #expect(inPlace < 100)
        // A walk in place would miss records: Tokyo Cabinet walks them.
        #expect(try !database.mappedRecords { _, _ in Issue.record("walked in place"); return true })
        #expect(try database.recordsInPlace() == nil)
        var walked: [[UInt8]: [UInt8]] = [:]
        try database.forEachRecord { key, value in
            walked[Array(key)] = Array(value)
            return true
        }
        #expect(walked == model)
    }

    @Test func recordsWaitingInTheDelayedPoolAreReadThroughTokyoCabinet() throws {
        let directory = TemporaryDirectory("mapped-async")
        let database = try openDatabase(directory)
        let keys = (0 ..< 20).map { Array("new \($0)".utf8) }
        for key in keys {
            try key.withUnsafeBytes { key in try Array(key).withUnsafeBytes { try database.putNew($0, forKey: key) } }
        }
        #expect(try database.mappedValue(forKey: keys[0]) == nil)
        #expect(try !database.mappedRecords { _, _ in true })
        #expect(try database.recordsInPlace() == nil)
        #expect(try read(keys[0], in: database) == keys[0])
        // Reading through Tokyo Cabinet wrote the pool to the file: now every record is in place.
        for key in keys { #expect(try database.mappedValue(forKey: key).map(Array.init) == key) }
    }

    @Test func aBackendHandsOutAHashTablesRecordsInPlaceAllAtOnce() throws {
        let directory = TemporaryDirectory("mapped-backend")
        let backend = try TokyoCabinetBackend(path: directory.path)
        declareOrderedTestTables(of: backend)
        var batch = WriteBatch()
        for number in 0 ..< 500 { batch.put(Array("value \(number)".utf8), forKey: Array("key \(number)".utf8), in: "Things") }
        for number in 0 ..< 5 { batch.put([UInt8(number)], forKey: [7, UInt8(number)], in: "t.idx") }
        try backend.apply(batch)
        var walked: [[UInt8]: [UInt8]] = [:]
        try backend.forEachRecord(in: "Things") { key, value in
            walked[Array(key)] = Array(value)
            return true
        }
        var inPlace: [[UInt8]: [UInt8]] = [:]
        #expect(try backend.withRecordsInPlace(in: "Things") { records in
            for (key, value) in records { inPlace[Array(key)] = Array(value) }
        })
        #expect(walked.count == 500)
        #expect(inPlace == walked)
        // An ordered table (a B+tree file) is not read this way.
        #expect(try !backend.withRecordsInPlace(in: "t.idx") { _ in Issue.record("read in place") })
        try backend.close()
    }

    @Test func aBackendReadsManyKeysOfATableInOneCall() throws {
        let directory = TemporaryDirectory("mapped-backend-keys")
        let backend = try TokyoCabinetBackend(path: directory.path)
        declareOrderedTestTables(of: backend)
        var batch = WriteBatch()
        for number in 0 ..< 50 { batch.put(Array("value \(number)".utf8), forKey: Array("key \(number)".utf8), in: "Things") }
        batch.put([9], forKey: [7, 1], in: "t.idx")
        try backend.apply(batch)
        let keys = [49, 3, 70, 3, 0].map { Array("key \($0)".utf8) }
        var values: [(Int, String?)] = []
        try backend.readValues(forKeys: keys, in: "Things") { position, value in
            values.append((position, value.map { String(decoding: $0, as: UTF8.self) }))
        }
        #expect(values.map(\.0) == [0, 1, 2, 3, 4])
        #expect(values.map(\.1) == ["value 49", "value 3", nil, "value 3", "value 0"])
        // Many keys, more than a prefetch window.
        let many = (0 ..< 45).map { Array("key \($0 * 7 % 61)".utf8) }
        var found: [String?] = []
        try backend.readValues(forKeys: many, in: "Things") { position, value in
            #expect(position == found.count)
            found.append(value.map { String(decoding: $0, as: UTF8.self) })
        }
        #expect(found == (0 ..< 45).map { $0 * 7 % 61 < 50 ? "value \($0 * 7 % 61)" : nil })
        var ordered: [[UInt8]?] = []
        try backend.readValues(forKeys: [[7, 1], [7, 2]], in: "t.idx") { _, value in ordered.append(value.map(Array.init)) }
        #expect(ordered == [[9], nil])
        var none = 0
        try backend.readValues(forKeys: [[1], [2]], in: "Unwritten") { _, value in none += value == nil ? 1 : 0 }
        #expect(none == 2)

        // All at once in place: the same values, in order; not at all when one is missing or
        // the table is a B+tree.
        let present = zip(many, found).filter { $0.1 != nil }.map(\.0)
        var inPlace: [String] = []
        #expect(try backend.withValuesInPlace(forKeys: present, in: "Things") { values in
            inPlace = values.map { String(decoding: $0, as: UTF8.self) }
        })
        #expect(inPlace == found.compactMap { $0 })
        var packedInPlace: [String] = []
        #expect(try backend.withValuesInPlace(forKeys: PackedKeys(present), in: "Things") { values in
            packedInPlace = values.map { String(decoding: $0, as: UTF8.self) }
        })
        #expect(packedInPlace == inPlace)
        #expect(try !backend.withValuesInPlace(forKeys: present + [Array("key 99".utf8)], in: "Things") { _ in
            Issue.record("a missing key read in place")
        })
        #expect(try !backend.withValuesInPlace(forKeys: PackedKeys(present + [Array("key 99".utf8)]), in: "Things") { _ in
            Issue.record("a missing packed key read in place")
        })
        #expect(try !backend.withValuesInPlace(forKeys: [[7, 1]], in: "t.idx") { _ in Issue.record("a B+tree read in place") })
        try backend.close()
    }

    // MARK: Damaged files

    /// A file of `bucketCount` 64-bit buckets holding one record for `key` in its bucket;
    /// `order` is the byte order of the file's integers.
    private func craftedFile(key: [UInt8], value: [UInt8], bucketCount: UInt64 = 5, order: MappedRecordLookup.IntegerOrder,
                             left: UInt64 = 0, right: UInt64 = 0, secondHashDelta: UInt8 = 0) -> [UInt8] {
        func integer(_ value: UInt64) -> [UInt8] {
            withUnsafeBytes(of: order == .little ? value.littleEndian : value.bigEndian) { Array($0) }
        }
        var file = [UInt8](repeating: 0, count: MappedRecordLookup.bucketsOffset + Int(bucketCount) * 8)
        file.replaceSubrange(MappedRecordLookup.bucketCountOffset ..< MappedRecordLookup.bucketCountOffset + 8,
                             with: integer(bucketCount))
        let (bucket, secondHash) = key.withUnsafeBytes { MappedRecordLookup.hashes(of: $0, bucketCount: bucketCount) }
        let recordOffset = (file.count + 15) / 16 * 16
        let bucketPosition = MappedRecordLookup.bucketsOffset + Int(bucket) * 8
        file.replaceSubrange(bucketPosition ..< bucketPosition + 8, with: integer(UInt64(recordOffset) >> 4))
        file += [UInt8](repeating: 0, count: recordOffset - file.count)
        file += [MappedRecordLookup.recordMagic, secondHash &+ secondHashDelta] + integer(left >> 4) + integer(right >> 4)
        file += [0, 0, UInt8(key.count), UInt8(value.count)] + key + value
        return file
    }

    private func lookUp(_ key: [UInt8], in file: [UInt8], end: Int? = nil) -> [UInt8]? {
        file.withUnsafeBytes { bytes -> [UInt8]? in
            guard let base = bytes.baseAddress,
                  let mapped = MappedRecordLookup.File(base: base, end: end ?? bytes.count, alignmentPower: 4,
                                                       isLarge: true, bucketCount: 5) else { return nil }
            return key.withUnsafeBytes { mapped.value(forKey: $0).map(Array.init) }
        }
    }

    private func integer(_ value: UInt32, _ order: MappedRecordLookup.IntegerOrder) -> [UInt8] {
        withUnsafeBytes(of: order == .little ? value.littleEndian : value.bigEndian) { Array($0) }
    }

    /// The values a walk of `file` from `first` meets, or nil when the walk does not parse.
    private func walk(_ file: [UInt8], from first: Int) -> [[UInt8]]? {
        file.withUnsafeBytes { bytes -> [[UInt8]]? in
            guard let base = bytes.baseAddress,
                  let mapped = MappedRecordLookup.File(base: base, end: bytes.count, alignmentPower: 4,
                                                       isLarge: true, bucketCount: 5) else { return nil }
            var values: [[UInt8]] = []
            let parsed = mapped.walk(from: first) { record in
                if let record { values.append(Array(record.value)) }
                return true
            }
            return parsed ? values : nil
        }
    }

    @Test func aDamagedFileGivesNoValueNeverAWrongOne() {
        let key = Array("page".utf8)
        let value = Array("the value".utf8)
        for order in [MappedRecordLookup.IntegerOrder.little, .big] {
            let file = craftedFile(key: key, value: value, order: order)
            #expect(lookUp(key, in: file) == value, "\(order)")
            #expect(lookUp(Array("other".utf8), in: file) == nil)

            // The header's bucket count disagrees with the database's.
            var wrongCount = file
            wrongCount[MappedRecordLookup.bucketCountOffset + (order == .little ? 0 : 7)] ^= 1
            #expect(lookUp(key, in: wrongCount) == nil)
            // Not a record in use.
            var freed = file
            freed[file.count - key.count - value.count - 22] = 0xB0
            #expect(lookUp(key, in: freed) == nil)
            // The value runs past the end of the readable bytes.
            #expect(lookUp(key, in: file, end: file.count - 1) == nil)
            // A tree that loops: the record's second hash differs, and both links lead back to it.
            let recordOffset = UInt64(file.count - key.count - value.count - 22)
            let looping = craftedFile(key: key, value: value, order: order, left: recordOffset, right: recordOffset,
                                      secondHashDelta: 1)
            #expect(lookUp(key, in: looping) == nil)

            // A walk of the file: the record, then whatever follows it.
            let start = MappedRecordLookup.bucketsOffset + 5 * 8
            let recordStart = (start + 15) / 16 * 16
            #expect(walk(file, from: recordStart) == [value])
            // A free block before the record is skipped; one of size 0 stops the walk.
            let freeBlock = [MappedRecordLookup.freeBlockMagic] + integer(UInt32(16), order)
                + [UInt8](repeating: 0, count: 11)
            let withFreeBlock = Array(file[..<recordStart]) + freeBlock + Array(file[recordStart...])
            #expect(walk(withFreeBlock, from: recordStart) == [value])
            let emptyFreeBlock = Array(file[..<recordStart]) + [MappedRecordLookup.freeBlockMagic] + integer(UInt32(0), order)
                + [UInt8](repeating: 0, count: 11) + Array(file[recordStart...])
            #expect(walk(emptyFreeBlock, from: recordStart) == nil)
            // Bytes after the last record that are not a record: the walk does not vouch for the file.
            #expect(walk(file + [0x00, 0x01], from: recordStart) == nil)
        }
    }
}
