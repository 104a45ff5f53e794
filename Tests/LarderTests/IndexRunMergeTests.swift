// A stored index run merged with a write's changes (IndexRunBuilder.append(run:value:merging:),
// which keeps the stored counts of shared bytes of the entries the changes leave alone) is
// byte for byte what appending every resulting entry one by one writes: randomized runs, with
// additions and removals at the start, in the middle, at the end, past the end, and all.

import Larder
import LarderTestSupport
import Testing

@Suite struct IndexRunMergeTests {
    typealias Change = (entry: [UInt8], isAdded: Bool)

    /// Entries like an index's: a value from a few (shared prefixes), then an 8-byte rowID.
    private static func entry(_ random: inout SplitMix, long: Bool) -> [UInt8] {
        let value = Array("value \(random.next(below: 6))".utf8) + (long ? Array(repeating: 0x41, count: Int(random.next(below: 300))) : [])
        return value + RowIDKey.bytes(random.next(below: 1 << (8 * random.next(below: 4))))
    }

    /// The runs appending `entries` one by one writes.
    private static func rebuilt(_ entries: [[UInt8]], budget: Int, restartPoints: Bool) -> [(key: [UInt8], value: [UInt8])] {
        var builder = IndexRunBuilder(budget: budget, restartPoints: restartPoints)
        for entry in entries { builder.append(entry) }
        return builder.finish()
    }

    /// Changes to `stored` (sorted, unique): removals of some of its entries (or of all),
    /// additions of new ones and of some it has, removals of some it has not.
    private static func changes(to stored: [[UInt8]], _ random: inout SplitMix, long: Bool) -> [Change] {
        var changes: [[UInt8]: Bool] = [:]
        // One time in ten, every entry goes (and nothing comes).
        let empties = random.next(below: 10) == 0
        for entry in stored where empties || random.next(below: 4) == 0 { changes[entry] = false }
        for _ in 0 ..< random.next(below: 40) { changes[entry(&random, long: long)] = !empties && random.next(below: 5) != 0 }
        // Around the ends: before the first entry and after the last.
        if random.next(below: 2) == 0 { changes[[0x00]] = !empties }
        if random.next(below: 2) == 0 { changes[[0xFF, 0x01]] = !empties && random.next(below: 2) == 0 }
        if let first = stored.first, random.next(below: 3) == 0 { changes[first] = !empties && random.next(below: 2) == 0 }
        if let last = stored.last, random.next(below: 3) == 0 { changes[last] = !empties && random.next(below: 2) == 0 }
        return changes.map { (entry: $0.key, isAdded: $0.value) }.sorted { ByteOrder.less($0.entry, $1.entry) }
    }

    @Test(arguments: [true, false])
    func aMergedRunIsTheRunOfItsEntriesRebuilt(restartPoints: Bool) throws {
        var random = SplitMix(seed: restartPoints ? 21 : 12)
        var merges = 0, emptied = 0, split = 0
        for round in 0 ..< 400 {
            let long = round % 4 == 3
            let stored = Set((0 ..< random.next(below: 120) + 1).map { _ in Self.entry(&random, long: long) }).sorted(by: ByteOrder.less)
            // One stored run, as a commit finds it.
            let runs = Self.rebuilt(stored, budget: 1 << 20, restartPoints: restartPoints)
            try #require(runs.count == 1)
            let changes = Self.changes(to: stored, &random, long: long)
            var expected = Set(stored)
            for change in changes {
                if change.isAdded { expected.insert(change.entry) } else { expected.remove(change.entry) }
            }
            let entries = expected.sorted(by: ByteOrder.less)
            for budget in [IndexRun.targetSize, 200, 1 + Int(random.next(below: 600))] {
                var builder = IndexRunBuilder(budget: budget, restartPoints: restartPoints)
                try runs[0].key.withUnsafeBytes { key in
                    try runs[0].value.withUnsafeBytes { value in try builder.append(run: key, value: value, merging: changes[...]) }
                }
                let merged = builder.finish()
                let rebuilt = Self.rebuilt(entries, budget: budget, restartPoints: restartPoints)
                // Compared whole, so that a failure names the round rather than print every byte.
                let same = merged.map(\.key) == rebuilt.map(\.key) && merged.map(\.value) == rebuilt.map(\.value)
                #expect(same, "round \(round), budget \(budget)")
                let read = try merged.flatMap { run in
                    try run.key.withUnsafeBytes { key in try run.value.withUnsafeBytes { try IndexRun.entries(key: key, value: $0) } }
                }
                #expect(read == entries, "round \(round), budget \(budget)")
                merges += 1
                if entries.isEmpty { emptied += 1 }
                if merged.count > 1 { split += 1 }
            }
        }
        // The rounds reached every case.
        #expect(merges == 1_200 && emptied > 10 && split > 100)
    }

    /// A run whose entries are stored sharing fewer bytes than they have in common (not
    /// IndexRunBuilder's, but readable) merges into a run of the same entries: with none
    /// shared, the bytes IndexRunBuilder writes (shared bytes are counted again).
    @Test(arguments: [0, 2])
    func aRunStoredSharingLessStillMergesToItsEntries(storedShared: Int) throws {
        let entries = (0 ..< 40).map { Array("key".utf8) + RowIDKey.bytes(UInt64($0)) }
        var value: [UInt8] = [IndexRun.format, 0, 0, 0, 0]
        value.appendVarInt(UInt64(entries.count))
        for entry in entries.dropFirst() {
            value.appendVarInt(UInt64(storedShared))
            value.appendVarInt(UInt64(entry.count - storedShared))
            value.append(contentsOf: entry[storedShared...])
        }
        let crc = entries[0].withUnsafeBytes { key in value.withUnsafeBytes { Checksum.crc32(key, UnsafeRawBufferPointer(rebasing: $0[5...])) } }
        value.replaceLittleEndian(crc, at: 1)
        let changes: [Change] = [(entries[3], false), (Array("key".utf8) + RowIDKey.bytes(100), true)]
        var builder = IndexRunBuilder(restartPoints: false)
        try entries[0].withUnsafeBytes { key in
            try value.withUnsafeBytes { value in try builder.append(run: key, value: value, merging: changes[...]) }
        }
        let merged = builder.finish()
        var expected = entries
        expected.remove(at: 3)
        expected.append(changes[1].entry)
        #expect(merged.count == 1)
        #expect(try merged.flatMap { run in
            try run.key.withUnsafeBytes { key in try run.value.withUnsafeBytes { try IndexRun.entries(key: key, value: $0) } }
        } == expected)
        let rebuilt = Self.rebuilt(expected, budget: IndexRun.targetSize, restartPoints: false)
        #expect((merged.map(\.value) == rebuilt.map(\.value)) == (storedShared == 0))
    }
}
