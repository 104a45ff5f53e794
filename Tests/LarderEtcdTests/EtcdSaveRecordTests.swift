// EtcdSaveRecord without a cluster: the save key's record gives back its mark and the keys of
// the save's writes; a manifest too big for its budget is left out; and any other bytes (an
// earlier Larder's bare mark, truncations, flipped bits) read as "keys unknown" with no error,
// never as a wrong list of keys.

import Testing
@testable import LarderEtcd

@Suite struct EtcdSaveRecordTests {
    let mark = Array("19a2b3c4d5e-3f0e2c1a-0000-4000-8000-000000000001".utf8)
    let writes: [EtcdWrite] = (0 ..< 300).map(Self.write)

    /// Write `number` of a save: a put of 40 bytes, or every seventh a delete.
    static func write(_ number: Int) -> EtcdWrite {
        let key: [UInt8] = Array("music/t/Song/".utf8) + [UInt8(number >> 8), UInt8(number & 0xFF)]
        let value: [UInt8]? = number % 7 == 0 ? nil : [UInt8](repeating: UInt8(number & 0xFF), count: 40)
        return EtcdWrite(key: key, value: value)
    }

    @Test func aRecordGivesBackItsMarkAndTheKeysOfEveryWriteButNoValue() {
        let bytes = EtcdSaveRecord.encoded(mark: mark, writes: writes, manifestBudget: 1 << 20)
        let record = EtcdSaveRecord(decoding: bytes)
        #expect(record.mark == mark)
        #expect(record.changedKeys == writes.map(\.key))
        // Keys only, deflated: far smaller than the writes' bytes.
        #expect(bytes.count < writes.reduce(0) { $0 + $1.key.count } / 2)
    }

    @Test func aManifestOverItsBudgetIsLeftOutAndReadsAsUnknownKeys() {
        let bytes = EtcdSaveRecord.encoded(mark: mark, writes: writes, manifestBudget: 64)
        let record = EtcdSaveRecord(decoding: bytes)
        #expect(record.mark == mark)
        #expect(record.changedKeys == nil)
        #expect(bytes.count == EtcdSaveRecord.magic.count + 2 + mark.count)
    }

    @Test func theBareMarkOfAnEarlierLarderIsItsMarkWithUnknownKeys() {
        let bare = Array("6F9619FF-8B86-D011-B42D-00C04FC964FF".utf8)
        #expect(EtcdSaveRecord(decoding: bare) == EtcdSaveRecord(mark: bare, changedKeys: nil))
        #expect(EtcdSaveRecord(decoding: []).changedKeys == nil)
    }

    @Test func everyTruncationAndBitFlipReadsAsUnknownKeysOrTheTrueOnes() {
        let bytes = EtcdSaveRecord.encoded(mark: mark, writes: Array(writes.prefix(40)), manifestBudget: 1 << 20)
        let keys = writes.prefix(40).map(\.key)
        for length in 0 ..< bytes.count {
            let record = EtcdSaveRecord(decoding: Array(bytes.prefix(length)))
            #expect(record.changedKeys == nil, "truncated to \(length) bytes")
        }
        var unknown = 0
        for position in 0 ..< bytes.count {
            for bit in 0 ..< 8 {
                var damaged = bytes
                damaged[position] ^= 1 << bit
                let record = EtcdSaveRecord(decoding: damaged)
                // A flip in the mark changes only the mark; anywhere else the checksum or a length
                // catches it: never another list of keys.
                if let changed = record.changedKeys { #expect(changed == keys) } else { unknown += 1 }
            }
        }
        #expect(unknown >= (bytes.count - mark.count - 6) * 8)
    }
}
