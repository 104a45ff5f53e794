// SnapshotView: a pool's files as they were at one generation, for one read context. A key a
// later commit changed reads from that commit's undo (SnapshotBackend); every other key from
// the files, which no commit can change during the call (both are looked at under the files'
// lock). Scans and ordered reads merge the two. Read-only: the writer writes.

/// A read-only ``Backend`` showing a ``SnapshotBackend`` at one generation.
internal final class SnapshotView: Backend {
    private let shared: SnapshotBackend
    /// The generation this view shows.
    let generation: UInt64

    init(shared: SnapshotBackend, generation: UInt64) {
        self.shared = shared
        self.generation = generation
    }

    /// A point read: from what the pool knows without the files (a later commit's image, or a
    /// newest value read before), else from the files, whose value is then kept for the next
    /// reads; `body` runs outside the files' lock.
    func readValue(forKey key: [UInt8], in table: String, _ body: (UnsafeRawBufferPointer?) throws -> Void) throws {
        let image = try shared.knownValue(of: key, in: table, at: generation) ?? shared.withFiles { files in
            if let image = shared.beforeImage(of: key, in: table, at: generation) { return image }
            var bytes: [UInt8]?
            try files.readValue(forKey: key, in: table) { bytes = $0.map { Array($0) } }
            shared.keepNewest(bytes, of: key, in: table)
            return CommitUndo.BeforeImage(bytes: bytes)
        }
        try Self.call(body, with: image)
    }

    func readValues(forKeys keys: [[UInt8]], in table: String, _ body: (Int, UnsafeRawBufferPointer?) throws -> Void) throws {
        for position in keys.indices {
            try readValue(forKey: keys[position], in: table) { try body(position, $0) }
        }
    }

    func withValuesInPlace(forKeys keys: [[UInt8]], in table: String,
                           _ body: (UnsafeBufferPointer<UnsafeRawBufferPointer>) throws -> Void) throws -> Bool {
        try withValuesInPlace(forKeys: PackedKeys(keys), in: table, body)
    }

    func withValuesInPlace(forKeys keys: PackedKeys, in table: String,
                           _ body: (UnsafeBufferPointer<UnsafeRawBufferPointer>) throws -> Void) throws -> Bool {
        try shared.withFiles { files in
            guard shared.overlay(of: table, at: generation).isEmpty else { return false }
            return try files.withValuesInPlace(forKeys: keys, in: table, body)
        }
    }

    func withRecordsInPlace(in table: String,
                            _ body: ([(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)]) throws -> Void) throws -> Bool {
        try shared.withFiles { files in
            guard shared.overlay(of: table, at: generation).isEmpty else { return false }
            return try files.withRecordsInPlace(in: table, body)
        }
    }

    func declareOrderedTable(_ table: String) {
        shared.declareOrderedTable(table)
    }

    /// The files' records that no later commit changed, then the changed keys' values at this
    /// generation (storage order is the backend's own, and no caller relies on it).
    func forEachRecord(in table: String,
                       _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws {
        try shared.withFiles { files in
            let overlay = shared.overlay(of: table, at: generation)
            guard !overlay.isEmpty else { return try files.forEachRecord(in: table, body) }
            var stopped = false
            try files.forEachRecord(in: table) { key, value in
                if overlay[Array(key)] != nil { return true }
                stopped = try !body(key, value)
                return !stopped
            }
            for (key, image) in overlay where !stopped {
                guard let bytes = image.bytes else { continue }
                stopped = try key.withUnsafeBytes { key in try bytes.withUnsafeBytes { try !body(key, $0) } }
            }
        }
    }

    func forEachRecord(in table: String, from start: [UInt8]?, through end: [UInt8]?, reverse: Bool,
                       _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws {
        try shared.withFiles { files in
            let overlay = shared.overlay(of: table, at: generation)
            guard !overlay.isEmpty else {
                return try files.forEachRecord(in: table, from: start, through: end, reverse: reverse, body)
            }
            try Self.merge(files, table: table, overlay: overlay, from: start, through: end, reverse: reverse, body)
        }
    }

    func forEachRecord(in table: String, holding start: [UInt8], through end: [UInt8]?,
                       _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws {
        try shared.withFiles { files in
            let overlay = shared.overlay(of: table, at: generation)
            guard !overlay.isEmpty else {
                return try files.forEachRecord(in: table, holding: start, through: end, body)
            }
            // The record holding `start` is the last at or before it, at this generation.
            var first: [UInt8]?
            try Self.merge(files, table: table, overlay: overlay, from: nil, through: start, reverse: true) { key, _ in
                first = Array(key)
                return false
            }
            try Self.merge(files, table: table, overlay: overlay, from: first, through: end, reverse: false, body)
        }
    }

    func recordCount(in table: String) throws -> Int {
        try shared.withFiles { files in
            var count = try files.recordCount(in: table)
            for (key, image) in shared.overlay(of: table, at: generation) {
                var isThereNow = false
                try files.readValue(forKey: key, in: table) { isThereNow = $0 != nil }
                count += (image.bytes == nil ? 0 : 1) - (isThereNow ? 1 : 0)
            }
            return count
        }
    }

    func apply(_ batch: WriteBatch) throws {
        throw BackendError.readOnly
    }

    /// Nothing to close: the pool closes the files.
    func close() throws {}

    func compact() throws {
        throw BackendError.readOnly
    }

    var isReadOnly: Bool { true }

    // MARK: Private

    private static func call(_ body: (UnsafeRawBufferPointer?) throws -> Void, with image: CommitUndo.BeforeImage) throws {
        guard let bytes = image.bytes else { return try body(nil) }
        try bytes.withUnsafeBytes { try body($0) }
    }

    /// An ordered read of the files' records between `start` and `end`, with the keys later
    /// commits changed taken from `overlay` at their place in the order.
    private static func merge(_ files: any Backend, table: String, overlay: [[UInt8]: CommitUndo.BeforeImage],
                              from start: [UInt8]?, through end: [UInt8]?, reverse: Bool,
                              _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws {
        let precedes: ([UInt8], UnsafeRawBufferPointer) -> Bool = { reverse ? $1.lexicographicallyPrecedes($0) : $0.lexicographicallyPrecedes($1) }
        let changed = overlay.keys
            .filter { key in
                (start.map { !key.lexicographicallyPrecedes($0) } ?? true) && (end.map { !$0.lexicographicallyPrecedes(key) } ?? true)
            }
            .sorted { reverse ? $1.lexicographicallyPrecedes($0) : $0.lexicographicallyPrecedes($1) }
        var next = 0
        var stopped = false
        /// Sends the changed keys before `limit` (all that are left for nil); false once `body` stops.
        func sendChanged(before limit: UnsafeRawBufferPointer?) throws -> Bool {
            while next < changed.count, limit.map({ precedes(changed[next], $0) }) ?? true {
                let key = changed[next]
                next += 1
                guard let bytes = overlay[key]?.bytes else { continue }
                let goesOn = try key.withUnsafeBytes { key in try bytes.withUnsafeBytes { try body(key, $0) } }
                if !goesOn { return false }
            }
            return true
        }
        try files.forEachRecord(in: table, from: start, through: end, reverse: reverse) { key, value in
            guard try sendChanged(before: key) else { stopped = true; return false }
            if overlay[Array(key)] != nil { return true }   // sent (or absent) at this generation
            stopped = try !body(key, value)
            return !stopped
        }
        if !stopped { _ = try sendChanged(before: nil) }
    }
}
