// The index run fuzz target: one B+tree record of an index (IndexRun, the index engine of
// object indexes and document collections), key and value, as a damaged or hostile file holds
// them. A run reads whole or throws Damage; its count agrees with its entries; and a run a
// sane writer would have written answers a find from any start with exactly the entries at or
// after it, and a count between two bounds with exactly the entries between them.

extension FuzzTarget {
    /// `[flags][key size][key][value]`; flags bit 0 set, the value's checksum is made right
    /// first, so that the bytes after it are read.
    package static let indexRun = FuzzTarget(name: "indexRun", seeds: indexRunSeeds) { input throws(FuzzViolation) in
        guard input.count >= 2 else { return false }
        let keySize = min(Int(input[1]), input.count - 2)
        let key = Array(input[2 ..< 2 + keySize])
        var value = Array(input[(2 + keySize)...])
        if input[0] & 1 != 0, value.count >= 5 {
            let crc = key.withUnsafeBytes { key in value.withUnsafeBytes { Checksum.crc32(key, UnsafeRawBufferPointer(rebasing: $0[5...])) } }
            value.replaceLittleEndian(crc, at: 1)
        }
        return try withExactBytes(key) { key throws(FuzzViolation) in
            try withExactBytes(value) { value throws(FuzzViolation) in try checkRun(key: key, value: value) }
        }
    }

    /// Whether the run reads whole; throws when its readers disagree.
    private static func checkRun(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) throws(FuzzViolation) -> Bool {
        let count = try? IndexRun.count(key: key, value: value)
        guard let entries = try? IndexRun.entries(key: key, value: value) else { return false }
        try FuzzViolation.check(count == entries.count, "a run of \(entries.count) entries counts \(String(describing: count))")
        var starts: [[UInt8]] = [[], [0xFF]]
        for entry in [entries.first, entries[entries.count / 2], entries.last].compactMap({ $0 }) {
            starts.append(entry)
            starts.append(entry + [0])
            if let last = entry.last { starts.append(entry.dropLast() + [last &- 1]) }
        }
        for start in starts {
            var found: [[UInt8]] = []
            let completed = try? IndexRun.forEachEntry(key: key, value: value, from: start) { entry in
                found.append(Array(entry))
                return true
            }
            guard isCanonical(entries, key: key, value: value) else { continue }
            let expected = entries.filter { !$0.lexicographicallyPrecedes(start) }
            try FuzzViolation.check(completed == true && found == expected, "a find from \(start) gave \(found), not \(expected)")
            // Counted between two bounds without a walk: what a filter of the entries counts.
            for bound in starts {
                let counted = try? IndexRun.count(key: key, value: value, from: start, before: bound)
                let inRange = expected.filter { $0.lexicographicallyPrecedes(bound) }.count
                try FuzzViolation.check(counted == inRange, "a count from \(start) before \(bound) gave \(String(describing: counted)), not \(inRange)")
            }
        }
        return true
    }

    /// Whether the run is what IndexRunBuilder writes for its entries: ascending, in one run.
    private static func isCanonical(_ entries: [[UInt8]], key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) -> Bool {
        guard zip(entries, entries.dropFirst()).allSatisfy({ $0.lexicographicallyPrecedes($1) }) else { return false }
        var builder = IndexRunBuilder(budget: value.count + 1, restartPoints: value.first == IndexRun.indexedFormat)
        for entry in entries { builder.append(entry) }
        let runs = builder.finish()
        return runs.count == 1 && runs[0].key == Array(key) && runs[0].value == Array(value)
    }

    @Sendable private static func indexRunSeeds() -> [[UInt8]] {
        let entries = (0 ..< 40).map { number -> [UInt8] in
            var entry = Array("key \(number / 3)".utf8)
            entry.append(contentsOf: RowIDKey.bytes(UInt64(number + 1)))
            return entry
        }
        return [true, false].flatMap { restartPoints -> [[UInt8]] in
            [Array(entries.prefix(1)), Array(entries.prefix(17)), entries].map { entries in
                var builder = IndexRunBuilder(budget: 1 << 16, restartPoints: restartPoints)
                for entry in entries { builder.append(entry) }
                let run = builder.finish()[0]
                // Most with their checksum made right, so that mutations reach the entries.
                return [entries.count == 1 ? 0 : 1, UInt8(run.key.count)] + run.key + run.value
            }
        }
    }
}
