// MappedRecordLookup: finds a record's value inside the memory Tokyo Cabinet has mapped for
// an open hash database, without copying it. `tchdbget` copies a value twice (and Debian's
// build yields to the scheduler on the way): to hand back one 130-byte document it moved a
// whole page of about 15 KB twice, 40% of a 20-row ordered find. This follows the path
// `tchdbget` takes, over the file format of Tokyo Cabinet's specification:
//
//   bucket   hash of the key's bytes, modulo the bucket count; the bucket array (of 64-bit
//            offsets with HDBTLARGE, else 32-bit) holds the offset >> alignment power of the
//            root of a binary tree of records
//   record   [0xC8][second hash, 1 byte][left][right][padding size, 2 bytes]
//            [key size, varint][value size, varint][key][value][padding]
//            left/right: offsets >> alignment power, 8 bytes with HDBTLARGE, else 4;
//            integers little-endian by the format, big-endian in Debian's build (the
//            header's bucket count tells which); sizes in Tokyo Cabinet's varint
//   tree     a larger second hash goes left, a smaller one right; on equal second hashes,
//            the longer key goes left, then the key whose bytes compare larger
//
// It only ever answers "here is the value". Whatever it cannot vouch for returns nil and the
// caller asks `tchdbget`: records still in the delayed record pool, compressed or encoded
// values, a record past the mapped region or the file's end, a header that does not parse, a
// tree that does not end, no record with the key. A record it does find has exactly the key
// asked for and hangs from the key's bucket, so it is the live record.

import CTokyoCabinet
import Foundation

/// Reads a hash database's records in place, in Tokyo Cabinet's mapped memory.
enum MappedRecordLookup {
    /// The first byte of a record in use.
    static let recordMagic: UInt8 = 0xC8
    /// The first byte of a free block.
    static let freeBlockMagic: UInt8 = 0xB0
    /// Tree steps before the walk gives up (a damaged file could loop).
    static let maximumSteps = 4_096

    /// The value stored under `key`, pointing into the database's mapped memory, or nil when
    /// only `tchdbget` can say. Valid until the next write to the database.
    static func value(forKey key: UnsafeRawBufferPointer,
                      in handle: UnsafeMutablePointer<TCHDB>) -> UnsafeRawBufferPointer? {
        mappedFile(of: handle, whole: false)?.value(forKey: key)
    }

    /// Puts into `values` (as many as `keys`) the values stored under `keys`, in order,
    /// pointing into the database's mapped memory; false when one of them is not found there
    /// (see ``value(forKey:in:)``). A window of keys at a time, the memory their lookups read
    /// first is asked for before they are made, so that the cache misses of many lookups
    /// overlap rather than come one after another.
    static func values(forKeys keys: PackedKeys, in handle: UnsafeMutablePointer<TCHDB>,
                       into values: UnsafeMutableBufferPointer<UnsafeRawBufferPointer>) -> Bool {
        guard values.count >= keys.count, let file = mappedFile(of: handle, whole: false) else { return false }
        // Each key's hashes are computed once, for its prefetch and its lookup.
        return keys.withUnsafeKeys { keys in
            withUnsafeTemporaryAllocation(of: (bucket: UInt64, secondHash: UInt8).self, capacity: prefetchWindow) { hashes in
                withUnsafeTemporaryAllocation(of: UnsafeRawBufferPointer.self, capacity: prefetchWindow) { windowKeys in
                    for window in stride(from: 0, to: keys.count, by: prefetchWindow) {
                        let windowCount = min(prefetchWindow, keys.count - window)
                        for slot in 0 ..< windowCount {
                            let key = keys[window + slot]
                            windowKeys.initializeElement(at: slot, to: key)
                            hashes.initializeElement(at: slot, to: MappedRecordLookup.hashes(of: key, bucketCount: file.bucketCount))
                        }
                        let windowHashes = UnsafeBufferPointer(rebasing: hashes[..<windowCount])
                        file.prefetch(buckets: windowHashes)
                        let windowValues = UnsafeMutableBufferPointer(rebasing: values[window ..< window + windowCount])
                        let keysOfWindow = UnsafeBufferPointer(rebasing: windowKeys[..<windowCount])
                        guard file.values(forKeys: keysOfWindow, hashes: windowHashes, into: windowValues) else { return false }
                    }
                    return true
                }
            }
        }
    }

    /// How many lookups ``values(forKeys:in:into:)`` prepares at a time.
    static let prefetchWindow = 16

    /// Every record of the database in file order, in place in the mapped memory, or nil
    /// when only `tchdbforeach` can walk the file: the conditions of ``mappedFile(of:whole:)``,
    /// or a record or free block whose header does not parse. One pass: nothing is handed out
    /// before the whole file parsed.
    static func records(in handle: UnsafeMutablePointer<TCHDB>) -> [(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)]? {
        guard let file = mappedFile(of: handle, whole: true) else { return nil }
        var records: [(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)] = []
        records.reserveCapacity(Int(handle.pointee.rnum))
        let parsed = file.walk(from: Int(handle.pointee.frec)) { record in
            if let record { records.append((record.key, record.value)) }
            return true
        }
        return parsed ? records : nil
    }

    /// The database's file as mapped, or nil when its records cannot be read in place:
    /// records still in the delayed pool, compressed or encoded values, a fatal error, a
    /// header that does not match the handle; with `whole`, also a file not wholly mapped.
    private static func mappedFile(of handle: UnsafeMutablePointer<TCHDB>, whole: Bool) -> File? {
        let database = handle.pointee
        guard let map = database.map, database.drpool == nil, !database.zmode, database.enc == nil,
              !database.fatal, !whole || database.fsiz <= database.xmsiz else { return nil }
        return File(base: UnsafeRawPointer(map), end: Int(min(database.xmsiz, database.fsiz)),
                    alignmentPower: Int(database.apow), isLarge: database.ba64 != nil, bucketCount: database.bnum)
    }

    /// memcmp of two buffers of the same size.
    static func compare(_ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer) -> Int32 {
        guard let firstBytes = first.baseAddress, let secondBytes = second.baseAddress else { return 0 }
        return memcmp(firstBytes, secondBytes, first.count)
    }

    /// Tokyo Cabinet's bucket index and second hash of `key` (`tchdbbidx`).
    static func hashes(of key: UnsafeRawBufferPointer, bucketCount: UInt64) -> (bucket: UInt64, secondHash: UInt8) {
        var index: UInt64 = 19_780_211
        var hash: UInt32 = 751
        let count = key.count
        for position in 0 ..< count {
            index = index &* 37 &+ UInt64(key[position])
            hash = (hash &* 31) ^ UInt32(key[count - 1 - position])
        }
        return (index % bucketCount, UInt8(truncatingIfNeeded: hash))
    }

    /// Where the bucket array starts: after the file's 256-byte header.
    static let bucketsOffset = 256
    /// Where the header keeps the bucket count.
    static let bucketCountOffset = 40

    /// The byte order of the file's integers. The format says little-endian, but a build
    /// can swap them (Debian's does): the bucket count in the header, which the open
    /// database also holds, tells which.
    enum IntegerOrder {
        case little, big

        init?(of base: UnsafeRawPointer, bucketCount: UInt64) {
            let stored = base.loadUnaligned(fromByteOffset: MappedRecordLookup.bucketCountOffset, as: UInt64.self)
            if UInt64(littleEndian: stored) == bucketCount {
                self = .little
            } else if UInt64(bigEndian: stored) == bucketCount {
                self = .big
            } else {
                return nil
            }
        }

        func value(_ stored: UInt64) -> UInt64 { self == .little ? UInt64(littleEndian: stored) : UInt64(bigEndian: stored) }
        func value(_ stored: UInt32) -> UInt32 { self == .little ? UInt32(littleEndian: stored) : UInt32(bigEndian: stored) }
        func value(_ stored: UInt16) -> UInt16 { self == .little ? UInt16(littleEndian: stored) : UInt16(bigEndian: stored) }
    }

    /// The mapped bytes of the file that are safe to read.
    struct File {
        let base: UnsafeRawPointer
        /// The end of what is both mapped and in the file.
        let end: Int
        let alignmentPower: Int
        /// 64-bit links and buckets (HDBTLARGE), else 32-bit.
        let isLarge: Bool
        let bucketCount: UInt64
        let integerOrder: IntegerOrder

        /// The first `end` bytes at `base`, or nil when they do not start with a header and
        /// bucket array of `bucketCount` buckets.
        init?(base: UnsafeRawPointer, end: Int, alignmentPower: Int, isLarge: Bool, bucketCount: UInt64) {
            let linkSize = isLarge ? 8 : 4
            guard bucketCount > 0, bucketCount <= UInt64(Int.max / 8), alignmentPower < 32,
                  end >= MappedRecordLookup.bucketsOffset + Int(bucketCount) * linkSize,
                  let integerOrder = IntegerOrder(of: base, bucketCount: bucketCount) else { return nil }
            self.base = base
            self.end = end
            self.alignmentPower = alignmentPower
            self.isLarge = isLarge
            self.bucketCount = bucketCount
            self.integerOrder = integerOrder
        }

        /// Bytes in a record link (and a bucket).
        var linkSize: Int { isLarge ? 8 : 4 }

        /// The value of the record with `key`, or nil when the walk from its bucket does
        /// not reach one.
        func value(forKey key: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
            value(forKey: key, hashes: MappedRecordLookup.hashes(of: key, bucketCount: bucketCount))
        }

        /// The value of the record with `key`, whose bucket and second hash are `hashes`
        /// (``MappedRecordLookup/hashes(of:bucketCount:)``), or nil as ``value(forKey:)``.
        func value(forKey key: UnsafeRawBufferPointer, hashes: (bucket: UInt64, secondHash: UInt8)) -> UnsafeRawBufferPointer? {
            var offset = link(at: MappedRecordLookup.bucketsOffset + Int(hashes.bucket) * linkSize)
            for _ in 0 ..< MappedRecordLookup.maximumSteps {
                switch step(from: offset, secondHash: hashes.secondHash, key: key) {
                case .found(let value): return value
                case .next(let next): offset = next
                case .stop: return nil
                }
            }
            return nil
        }

        /// Where one step of a walk from the record at `offset`, for a key whose second hash is
        /// `secondHash`, leads.
        enum Step {
            /// The record has the key: its value.
            case found(UnsafeRawBufferPointer)
            /// The record the walk goes to next (0: none, which ends it at the next step).
            case next(Int)
            /// No record in use at `offset`, or one that does not parse: the walk ends.
            case stop
        }

        /// The step of ``value(forKey:hashes:)`` and ``values(forKeys:hashes:into:)`` from the
        /// record at `offset` for `key`. Most records on the way differ by their second hash:
        /// their header says where to go on, their sizes are not parsed. (Page keys that differ
        /// only in their last bytes share few buckets: a lookup passes about three records.)
        /// Transparent: marked `@inline(__always)` it was left a call from both walks (PointRead
        /// counted 2% more instructions), which must cost nothing for sharing it.
        @_transparent
        func step(from offset: Int, secondHash: UInt8, key: UnsafeRawBufferPointer) -> Step {
            guard offset > 0, let hashHere = secondHashOfRecord(at: offset) else { return .stop }
            if secondHash != hashHere {
                return .next(link(at: offset + 2 + (secondHash > hashHere ? 0 : linkSize)))
            }
            guard let record = record(at: offset) else { return .stop }
            let order: Int
            if key.count != record.key.count {
                order = key.count > record.key.count ? 1 : -1
            } else {
                let compared = MappedRecordLookup.compare(key, record.key)
                if compared == 0 { return .found(record.value) }
                order = compared > 0 ? 1 : -1
            }
            return .next(order > 0 ? record.left : record.right)
        }

        /// Puts into `values` the values of `keys`, whose hashes are `hashes` (one each, in
        /// order), as ``value(forKey:hashes:)`` finds them, with its step; false when one is not
        /// found. The walks go on side by side, a step of each in turn, each step asking for the
        /// record its walk goes to next: the cache misses of a window's walks overlap, where one
        /// walk after another waited for each record of its tree in turn (about three a lookup:
        /// page keys share buckets).
        func values(forKeys keys: UnsafeBufferPointer<UnsafeRawBufferPointer>,
                    hashes: UnsafeBufferPointer<(bucket: UInt64, secondHash: UInt8)>,
                    into values: UnsafeMutableBufferPointer<UnsafeRawBufferPointer>) -> Bool {
            withUnsafeTemporaryAllocation(of: Int.self, capacity: hashes.count) { offsets in
                // Each walk's next record; -1 once its value is found.
                for (slot, (bucket, _)) in zip(offsets.indices, hashes) {
                    offsets[slot] = link(at: MappedRecordLookup.bucketsOffset + Int(bucket) * linkSize)
                }
                var remaining = hashes.count
                // A walk takes a step a round: after `maximumSteps` rounds, one that has not
                // ended took as many steps as value(forKey:hashes:) allows.
                for _ in 0 ..< MappedRecordLookup.maximumSteps {
                    guard remaining > 0 else { return true }
                    for slot in 0 ..< hashes.count where offsets[slot] >= 0 {
                        let next: Int
                        switch step(from: offsets[slot], secondHash: hashes[slot].secondHash, key: keys[slot]) {
                        case .found(let value):
                            values[slot] = value
                            offsets[slot] = -1
                            remaining -= 1
                            continue
                        case .next(let offset): next = offset
                        case .stop: return false
                        }
                        offsets[slot] = next
                        // The next record's header and key, read in the next round.
                        if next > 0 {
                            for line in stride(from: next, to: min(next + 128, end), by: 64) { CacheLinePrefetch.request(base + line) }
                        }
                    }
                }
                return remaining == 0
            }
        }

        /// Asks for the buckets of keys whose hashes are `hashes`, then for the first lines of
        /// the records they name (header, key and the value's start). A hint: nothing outside the
        /// file is asked for.
        func prefetch(buckets hashes: UnsafeBufferPointer<(bucket: UInt64, secondHash: UInt8)>) {
            withUnsafeTemporaryAllocation(of: Int.self, capacity: hashes.count) { buckets in
                for (slot, (bucket, _)) in zip(buckets.indices, hashes) {
                    let position = MappedRecordLookup.bucketsOffset + Int(bucket) * linkSize
                    buckets[slot] = position
                    if position < end { CacheLinePrefetch.request(base + position) }
                }
                for position in buckets.prefix(hashes.count) {
                    let offset = link(at: position)
                    guard offset > 0 else { continue }
                    for line in stride(from: offset, to: min(offset + 128, end), by: 64) { CacheLinePrefetch.request(base + line) }
                }
            }
        }

        /// The parsed record at `offset`, or nil when it is not a record in use lying wholly
        /// inside the readable bytes.
        func record(at offset: Int) -> Record? {
            guard let secondHash = secondHashOfRecord(at: offset) else { return nil }
            var position = offset + 2
            let left = link(at: position)
            let right = link(at: position + linkSize)
            position += 2 * linkSize
            let padding = Int(integerOrder.value(base.loadUnaligned(fromByteOffset: position, as: UInt16.self)))
            position += 2
            guard let keySize = varint(at: &position), let valueSize = varint(at: &position),
                  keySize <= end - position, valueSize <= end - position - keySize else { return nil }
            return Record(secondHash: secondHash, left: left, right: right,
                          key: UnsafeRawBufferPointer(start: base + position, count: keySize),
                          value: UnsafeRawBufferPointer(start: base + position + keySize, count: valueSize),
                          size: position + keySize + valueSize + padding - offset)
        }

        /// The second hash of the record at `offset` (its left link follows, then its right),
        /// or nil when it is not a record in use whose header lies inside the readable bytes.
        @inline(__always)
        func secondHashOfRecord(at offset: Int) -> UInt8? {
            guard offset < end, end - offset >= 2 + 2 * linkSize + 2 + 2,
                  base.load(fromByteOffset: offset, as: UInt8.self) == MappedRecordLookup.recordMagic else { return nil }
            return base.load(fromByteOffset: offset + 1, as: UInt8.self)
        }

        /// Walks the records and free blocks from `first` to the end, calling `visit` with
        /// each record in use (nil for a free block) until it returns false. Returns false
        /// when a header does not parse.
        func walk(from first: Int, _ visit: (Record?) throws -> Bool) rethrows -> Bool {
            var offset = first
            while offset < end {
                guard offset > 0 else { return false }
                let magic = base.load(fromByteOffset: offset, as: UInt8.self)
                if magic == MappedRecordLookup.freeBlockMagic {
                    guard end - offset >= 5 else { return false }
                    let size = Int(integerOrder.value(base.loadUnaligned(fromByteOffset: offset + 1, as: UInt32.self)))
                    guard size > 0 else { return false }
                    guard try visit(nil) else { return true }
                    offset += size
                    continue
                }
                guard let record = record(at: offset) else { return false }
                guard try visit(record) else { return true }
                offset += record.size
            }
            return offset == end
        }

        /// The offset a bucket or record link at `position` points to (0: none), or 0 when
        /// the link cannot be inside the file.
        @inline(__always)
        func link(at position: Int) -> Int {
            guard position >= 0, position <= end - linkSize else { return 0 }
            let stored = isLarge ? integerOrder.value(base.loadUnaligned(fromByteOffset: position, as: UInt64.self))
                                 : UInt64(integerOrder.value(base.loadUnaligned(fromByteOffset: position, as: UInt32.self)))
            guard stored <= UInt64(end) >> alignmentPower else { return 0 }
            return Int(stored) << alignmentPower
        }

        /// Tokyo Cabinet's varint: 7 bits a byte, least significant first; a byte with its
        /// top bit set stores 255 minus its 7 bits and says more follow.
        private func varint(at position: inout Int) -> Int? {
            var value = 0
            var scale = 1
            for _ in 0 ..< 5 {
                guard position < end else { return nil }
                let byte = base.load(fromByteOffset: position, as: UInt8.self)
                position += 1
                if byte < 0x80 { return value + Int(byte) * scale }
                value += Int(0xFF - byte) * scale
                scale <<= 7
            }
            return nil
        }
    }

    /// One record's header fields and bytes.
    struct Record {
        let secondHash: UInt8
        let left: Int
        let right: Int
        let key: UnsafeRawBufferPointer
        let value: UnsafeRawBufferPointer
        /// The record's bytes in the file, header and padding included.
        let size: Int
    }
}
