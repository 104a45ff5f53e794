// The index of a kept walk (KeptRecordIndex) must find every record with a key of up to 16
// bytes, with exactly its value, and answer "not here" (never a wrong value) for keys it does
// not hold: longer keys, absent keys, and keys that differ only by trailing zero bytes.

import Testing
@testable import Larder
import LarderTestSupport

@Suite struct KeptRecordIndexTests {
    /// Records as a walk hands them out, pointing into `storage`.
    private func walk(_ model: [([UInt8], [UInt8])], in storage: inout [UInt8]) -> [(Int, Int, Int, Int)] {
        var spans: [(Int, Int, Int, Int)] = []
        for (key, value) in model {
            spans.append((storage.count, key.count, storage.count + key.count, value.count))
            storage += key + value
        }
        return spans
    }

    @Test func findsEveryShortKeyAndNothingElse() throws {
        var generator = SplitMix(seed: 21)
        var model: [[UInt8]: [UInt8]] = [:]
        // Keys of every length 0-24, many short ones (so that probes collide), and keys that
        // are other keys with zero bytes after them.
        for length in 0 ... 24 { model[(0 ..< length).map { _ in UInt8.random(in: 0 ... 255, using: &generator) }] = [UInt8(length)] }
        while model.count < 3_000 {
            let key = (0 ..< Int.random(in: 1 ... 16, using: &generator)).map { _ in UInt8.random(in: 0 ... 3, using: &generator) }
            model[key] = (0 ..< Int.random(in: 0 ... 40, using: &generator)).map { _ in UInt8.random(in: 0 ... 255, using: &generator) }
        }
        for key in Array(model.keys) where key.count <= 14 { model[key + [0]] = [0xEE] + (model[key] ?? []) }
        let entries = Array(model)
        var storage: [UInt8] = []
        let spans = walk(entries, in: &storage)
        try storage.withUnsafeBytes { bytes in
            let records = spans.map { (key: UnsafeRawBufferPointer(rebasing: bytes[$0.0 ..< $0.0 + $0.1]),
                                       value: UnsafeRawBufferPointer(rebasing: bytes[$0.2 ..< $0.2 + $0.3])) }
            let index = try #require(KeptRecordIndex(records))
            var shortKeys: [[UInt8]] = []
            for (key, value) in entries {
                let found = key.withUnsafeBytes { index.value(forKey: $0) }
                if key.count <= KeptRecordIndex.maximumKeySize {
                    #expect(found.map(Array.init) == value, "key \(key)")
                    shortKeys.append(key)
                } else {
                    #expect(found == nil, "key of \(key.count) bytes")
                }
            }
            // Absent keys: all-ones bytes never occur among the keys of bytes 0-3 of these lengths.
            for length in [1, 8, 9, 16] {
                let absent = [UInt8](repeating: 0xFF, count: length)
                guard model[absent] == nil else { continue }
                #expect(absent.withUnsafeBytes { index.value(forKey: $0) } == nil)
            }
            // Many keys at once, in order; one key it lacks fails the whole batch.
            try withUnsafeTemporaryAllocation(of: UnsafeRawBufferPointer.self, capacity: shortKeys.count + 1) { values in
                #expect(index.values(forKeys: PackedKeys(shortKeys), into: values))
                #expect(values.prefix(shortKeys.count).map(Array.init) == shortKeys.map { model[$0] ?? [] })
                let long = try #require(entries.first { $0.0.count > KeptRecordIndex.maximumKeySize }?.0)
                #expect(!index.values(forKeys: PackedKeys(shortKeys.prefix(5) + [long]), into: values))
                #expect(!index.values(forKeys: PackedKeys([[0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]]), into: values))
            }
        }
    }

    @Test func aWalkOfTooManyRecordsIsNotIndexed() {
        let key: [UInt8] = [1]
        key.withUnsafeBytes { key in
            let records = Array(repeating: (key: key, value: key), count: KeptRecordIndex.maximumRecords + 1)
            #expect(KeptRecordIndex(records) == nil)
            #expect(KeptRecordIndex(Array(records.prefix(10))) != nil)
        }
    }
}
