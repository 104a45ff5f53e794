// IndexRunBuilder: writes sorted index entries into runs (IndexRun) as they come, closing a
// run when it reaches its byte budget, so that a commit merging changes into stored runs
// never holds their entries as separate arrays. Part of the index engine that object indexes
// and document collections share.

/// Builds runs from entries given in ascending order.
package struct IndexRunBuilder: ~Copyable {
    /// A run is closed once its entries take this many bytes.
    package let budget: Int
    /// Whether runs get restart points (format 0x53), or not (0x52, document collections of
    /// format 4 and before).
    package let restartPoints: Bool
    /// The runs built so far: each run's key (its first entry) and value.
    package private(set) var runs: [(key: [UInt8], value: [UInt8])] = []
    private var key: [UInt8] = []
    /// The entry appended last, in its first `previousCount` bytes: an entry replaces only
    /// the bytes after those it shares with it.
    private var previous = ByteRoom(capacity: 256)
    private var previousCount = 0
    /// The run's entries after the key, encoded, in its first `bodyCount` bytes.
    private var body: ByteRoom
    private var bodyCount = 0
    private var count = 0
    /// Where in `body` the run's restart points start.
    private var restarts: [Int] = []

    /// A builder whose runs take about `budget` bytes of entries each (at least one entry),
    /// with restart points or not.
    package init(budget: Int = IndexRun.targetSize, restartPoints: Bool = true) {
        self.budget = max(budget, 1)
        self.restartPoints = restartPoints
        body = ByteRoom(capacity: min(self.budget, IndexRun.targetSize) + 256)
    }

    /// A budget that splits `size` bytes of entries into runs of about the same size, each
    /// under ``IndexRun/targetSize``: later entries then find room in every run.
    package static func evenBudget(forBytes size: Int) -> Int {
        let runs = max(1, (size + IndexRun.targetSize - 1) / IndexRun.targetSize)
        return (size + runs - 1) / runs
    }

    /// Appends `entry`, which sorts after every entry appended before.
    package mutating func append(_ entry: UnsafeRawBufferPointer) {
        if count > 0, bodyCount >= budget { finishRun() }
        // The first entry of a run and a restart point are written whole: no need to compare.
        let shared = count == 0 || isRestartPoint ? 0 : ByteOrder.sharedPrefixCount(previous.bytes(previousCount), entry)
        add(entry, sharing: shared)
    }

    package mutating func append(_ entry: [UInt8]) {
        entry.withUnsafeBytes { append($0) }
    }

    /// Appends `entry`, which sorts after every entry appended before and has its first
    /// `shared` bytes in common with the last of them (the caller knows them: the run it
    /// copies stored them). Cheaper than `append(_:)`, which compares the two; the same bytes
    /// when `shared` is every byte the two have in common.
    package mutating func append(_ entry: UnsafeRawBufferPointer, sharing shared: Int) {
        if count > 0, bodyCount >= budget { finishRun() }
        add(entry, sharing: min(shared, entry.count, previousCount))
    }

    /// Whether the next entry is a restart point of its run (written whole).
    private var isRestartPoint: Bool {
        restartPoints && count % IndexRun.restartInterval == 0
    }

    /// Writes `entry`, whose first `shared` bytes are the previous entry's, into the run.
    private mutating func add(_ entry: UnsafeRawBufferPointer, sharing shared: Int) {
        // An empty entry may have no address: no byte is read from it then.
        let source = entry.baseAddress ?? UnsafeRawPointer(previous.base)
        if count == 0 {
            key.removeAll(keepingCapacity: true)
            key.appendBytes(entry)
        } else {
            var written = shared
            if isRestartPoint {
                restarts.append(bodyCount)   // shares nothing: read without the entries before it
                written = 0
            }
            // Two varints of at most 10 bytes each, then the suffix.
            let suffix = entry.count - written
            body.reserve(bodyCount + 20 + suffix, keeping: bodyCount)
            var position = ByteRoom.storeVarInt(UInt64(written), at: body.base + bodyCount)
            position = ByteRoom.storeVarInt(UInt64(suffix), at: position)
            Self.copy(suffix, from: source + written, to: position)
            bodyCount = position + suffix - body.base
        }
        // The previous entry's first `shared` bytes are this one's already.
        let kept = count == 0 ? 0 : shared
        previous.reserve(entry.count, keeping: kept)
        Self.copy(entry.count - kept, from: source + kept, to: previous.base + kept)
        previousCount = entry.count
        count += 1
    }

    /// Copies `count` bytes: the few of an entry's suffix one by one, more with memcpy.
    @inline(__always)
    private static func copy(_ count: Int, from source: UnsafeRawPointer, to target: UnsafeMutableRawPointer) {
        guard count > 8 else {
            for offset in 0 ..< max(count, 0) {
                target.storeBytes(of: source.load(fromByteOffset: offset, as: UInt8.self), toByteOffset: offset, as: UInt8.self)
            }
            return
        }
        target.copyMemory(from: source, byteCount: count)
    }

    /// Closes the last run and returns every run.
    package mutating func finish() -> [(key: [UInt8], value: [UInt8])] {
        if count > 0 { finishRun() }
        return runs
    }

    private mutating func finishRun() {
        var value: [UInt8] = [restartPoints ? IndexRun.indexedFormat : IndexRun.format, 0, 0, 0, 0]
        value.reserveCapacity(bodyCount + 16 + 4 * restarts.count)
        value.appendVarInt(UInt64(count))
        let bodyStart = value.count
        value.appendBytes(body.bytes(bodyCount))
        if restartPoints {
            for restart in restarts {
                value.appendLittleEndian(UInt32(bodyStart + restart))
            }
            value.appendLittleEndian(UInt32(restarts.count))
        }
        let crc = key.withUnsafeBytes { key in
            value.withUnsafeBytes { Checksum.crc32(key, UnsafeRawBufferPointer(rebasing: $0[5...])) }
        }
        value.replaceLittleEndian(crc, at: 1)
        runs.append((key, value))
        bodyCount = 0
        restarts.removeAll(keepingCapacity: true)
        count = 0
    }

}
