// PackedKeys: keys packed end to end read back as they were appended, in place and copied,
// empty keys included; and a backend that reads only arrays of keys is given them unpacked.

import Testing
@testable import Larder

@Suite struct PackedKeysTests {
    @Test func keysReadBackAsAppended() {
        let keys: [[UInt8]] = [[0x50, 1, 2], [], [7], Array(repeating: 0xAB, count: 300), [0, 0]]
        var packed = PackedKeys()
        #expect(packed.isEmpty && packed.count == 0 && packed.arrays.isEmpty)
        for key in keys { packed.append(key) }
        #expect(packed.count == keys.count && !packed.isEmpty)
        #expect(packed.arrays == keys)
        #expect((0 ..< keys.count).map { packed[$0] } == keys)
        #expect(packed == PackedKeys(keys))
        #expect(packed != PackedKeys(Array(keys.reversed())))
        let inPlace = packed.withUnsafeKeys { unsafe in (0 ..< unsafe.count).map { Array(unsafe[$0]) } }
        #expect(inPlace == keys)
    }

    @Test func pageKeysWrittenInPlaceAreThePageKeys() {
        let numbers: [UInt64] = [0, 1, 31, 0x0102_0304_0506_0708, .max]
        let packed = RecordPage.keys(forPages: numbers)
        #expect(packed.arrays == numbers.map(RecordPage.key(forPage:)))
        #expect(packed == PackedKeys(numbers.map(RecordPage.key(forPage:))))
        #expect(RecordPage.keys(forPages: []).isEmpty)
        let fixed = PackedKeys(count: 3, width: 2) { position, key in key[1] = UInt8(position) }
        #expect(fixed.arrays == [[0, 0], [0, 1], [0, 2]])
        var written = PackedKeys()
        withUnsafeBytes(of: UInt32(0x0908_0706).bigEndian) { written.append($0) }
        written.append(UnsafeRawBufferPointer(start: nil, count: 0))
        #expect(written.arrays == [[9, 8, 7, 6], []])
    }

    /// A backend that implements only the array read: packed keys reach it unpacked.
    private final class ArrayReadingBackend: Backend {
        let inner = MemoryBackend()
        var keysAsked: [[UInt8]] = []

        func readValue(forKey key: [UInt8], in table: String, _ body: (UnsafeRawBufferPointer?) throws -> Void) throws {
            try inner.readValue(forKey: key, in: table, body)
        }

        func withValuesInPlace(forKeys keys: [[UInt8]], in table: String,
                               _ body: (UnsafeBufferPointer<UnsafeRawBufferPointer>) throws -> Void) throws -> Bool {
            keysAsked = keys
            return false
        }

        func apply(_ batch: WriteBatch) throws { try inner.apply(batch) }
        func forEachRecord(in table: String, _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws {
            try inner.forEachRecord(in: table, body)
        }
        func recordCount(in table: String) throws -> Int { try inner.recordCount(in: table) }
        func close() throws { try inner.close() }
    }

    @Test func aBackendReadingArraysIsGivenThePackedKeysUnpacked() throws {
        let backend = ArrayReadingBackend()
        let keys: [[UInt8]] = [[1, 2, 3], [4]]
        #expect(try !backend.withValuesInPlace(forKeys: PackedKeys(keys), in: "Things") { _ in Issue.record("read in place") })
        #expect(backend.keysAsked == keys)
    }
}
