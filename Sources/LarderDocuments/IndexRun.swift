// IndexRun: how an index table stores its entries. Every call into Tokyo Cabinet is expensive
// (DESIGN.md), so a B+tree record holds a run of consecutive entries, not one entry: a
// million documents' entries take a few thousand records, a range is read a run at a time,
// and a commit rewrites only the runs its changes fall into.
//
//   key:    the run's first entry (encoded key values, then the rowID: see IndexKey)
//   value:  [0x52 'R'][CRC-32 of key and the bytes after it, 4 bytes little-endian]
//           [varint entry count][entry]...                 every entry after the first
//   entry:  [varint bytes shared with the previous entry][varint suffix size][suffix]
//
// Runs never overlap: every entry of a run sorts before the next run's key. docs/FORMAT.md
// (section 16) has the bytes.

import Larder

/// Encodes and decodes runs of index entries.
enum IndexRun {
    /// The first byte of a run's value.
    static let format: UInt8 = 0x52
    /// A run is closed once its entries take this many bytes.
    static let targetSize = 4_096

    /// A run whose bytes do not parse or whose checksum does not match.
    struct Damage: Error {
        var reason: String
    }

    /// The number of entries in the run, after checking its checksum.
    static func count(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) throws(Damage) -> Int {
        try Reader(key: key, value: value).count
    }

    /// Calls `body` with every entry of the run in order (the pointer is valid only during the
    /// call) until it returns false; returns false when `body` did.
    @discardableResult
    static func forEachEntry(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer,
                             _ body: (UnsafeRawBufferPointer) throws -> Bool) throws -> Bool {
        var reader = try Reader(key: key, value: value)
        var entry: [UInt8] = []
        entry.reserveCapacity(key.count + 16)
        entry.appendBytes(key)
        guard try entry.withUnsafeBytes(body) else { return false }
        for _ in 1 ..< max(reader.count, 1) {
            try reader.next(into: &entry)
            guard try entry.withUnsafeBytes(body) else { return false }
        }
        try reader.checkEnd()
        return true
    }

    /// Every entry of the run, in order.
    static func entries(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) throws -> [[UInt8]] {
        var entries: [[UInt8]] = []
        try forEachEntry(key: key, value: value) { entry in
            entries.append(Array(entry))
            return true
        }
        return entries
    }

    /// Walks the entries of a run, checking every bound.
    private struct Reader {
        let value: UnsafeRawBufferPointer
        private(set) var count = 0
        private var position: Int

        init(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) throws(Damage) {
            self.value = value
            guard value.count >= 6, value[0] == format else { throw Damage(reason: "unknown index run format") }
            var stored: UInt32 = 0
            for index in 0 ..< 4 { stored |= UInt32(value[1 + index]) << (8 * UInt32(index)) }
            guard Checksum.crc32(key, UnsafeRawBufferPointer(rebasing: value[5...])) == stored else {
                throw Damage(reason: "index run checksum mismatch")
            }
            position = 5
            let entries = try varint()
            // Every entry after the first takes at least two bytes.
            guard entries >= 1, entries - 1 <= UInt64(value.count - position) / 2 else {
                throw Damage(reason: "index run entry count out of range")
            }
            count = Int(entries)
        }

        mutating func varint() throws(Damage) -> UInt64 {
            switch DataBuffer.decodeVarInt(value.assumingMemoryBound(to: UInt8.self), at: &position) {
            case let .value(decoded): return decoded
            case .truncated: throw Damage(reason: "index run truncated")
            case .malformed: throw Damage(reason: "index run varint too long")
            }
        }

        /// Turns `entry` (the previous entry) into the next one.
        mutating func next(into entry: inout [UInt8]) throws(Damage) {
            let shared = try varint()
            let suffix = try varint()
            guard shared <= UInt64(entry.count), suffix <= UInt64(value.count - position) else {
                throw Damage(reason: "index run entry out of range")
            }
            entry.removeSubrange(Int(shared)...)
            entry.appendBytes(UnsafeRawBufferPointer(rebasing: value[position ..< position + Int(suffix)]))
            position += Int(suffix)
        }

        func checkEnd() throws(Damage) {
            guard position == value.count else { throw Damage(reason: "index run has trailing bytes") }
        }
    }
}
