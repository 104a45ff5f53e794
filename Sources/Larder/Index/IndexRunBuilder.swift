// IndexRunBuilder: writes sorted index entries into runs (IndexRun) as they come, closing a
// run when it reaches its byte budget, so that a commit merging changes into stored runs
// never holds their entries as separate arrays. Part of the index engine that object indexes
// and document collections share.

/// Builds runs from entries given in ascending order.
package struct IndexRunBuilder {
    /// A run is closed once its entries take this many bytes.
    package let budget: Int
    /// Whether runs get restart points (format 0x53), or not (0x52, document collections of
    /// format 4 and before).
    package let restartPoints: Bool
    /// The runs built so far: each run's key (its first entry) and value.
    package private(set) var runs: [(key: [UInt8], value: [UInt8])] = []
    private var key: [UInt8] = []
    private var previous: [UInt8] = []
    private var body: [UInt8] = []
    private var count = 0
    /// Where in `body` the run's restart points start.
    private var restarts: [Int] = []

    /// A builder whose runs take about `budget` bytes of entries each (at least one entry),
    /// with restart points or not.
    package init(budget: Int = IndexRun.targetSize, restartPoints: Bool = true) {
        self.budget = max(budget, 1)
        self.restartPoints = restartPoints
        body.reserveCapacity(self.budget + 256)
    }

    /// A budget that splits `size` bytes of entries into runs of about the same size, each
    /// under ``IndexRun/targetSize``: later entries then find room in every run.
    package static func evenBudget(forBytes size: Int) -> Int {
        let runs = max(1, (size + IndexRun.targetSize - 1) / IndexRun.targetSize)
        return (size + runs - 1) / runs
    }

    /// Appends `entry`, which sorts after every entry appended before.
    package mutating func append(_ entry: UnsafeRawBufferPointer) {
        if count > 0, body.count >= budget { finishRun() }
        if count == 0 {
            key.removeAll(keepingCapacity: true)
            key.appendBytes(entry)
        } else {
            let limit = min(previous.count, entry.count)
            var shared = 0
            if restartPoints, count % IndexRun.restartInterval == 0 {
                restarts.append(body.count)   // shares nothing: read without the entries before it
            } else {
                previous.withUnsafeBytes { previous in
                    while shared < limit, previous[shared] == entry[shared] { shared += 1 }
                }
            }
            body.appendVarInt(UInt64(shared))
            body.appendVarInt(UInt64(entry.count - shared))
            body.appendBytes(UnsafeRawBufferPointer(rebasing: entry[shared...]))
        }
        previous.removeAll(keepingCapacity: true)
        previous.appendBytes(entry)
        count += 1
    }

    package mutating func append(_ entry: [UInt8]) {
        entry.withUnsafeBytes { append($0) }
    }

    /// Closes the last run and returns every run.
    package mutating func finish() -> [(key: [UInt8], value: [UInt8])] {
        if count > 0 { finishRun() }
        return runs
    }

    private mutating func finishRun() {
        var value: [UInt8] = [restartPoints ? IndexRun.indexedFormat : IndexRun.format, 0, 0, 0, 0]
        value.reserveCapacity(body.count + 16 + 4 * restarts.count)
        value.appendVarInt(UInt64(count))
        let bodyStart = value.count
        value.append(contentsOf: body)
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
        body.removeAll(keepingCapacity: true)
        restarts.removeAll(keepingCapacity: true)
        count = 0
    }

}
