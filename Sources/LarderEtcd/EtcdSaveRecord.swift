// EtcdSaveRecord: the value every save puts under the save key (<prefix>/v). It carries the
// save's mark, so that a save whose reply was lost is known for its own (EtcdStagedCommit's
// landedSave), and the save's manifest: the keys of the table records it writes or deletes. With
// the manifest, other clients' watches follow the save key alone and still learn which cached
// records a save made stale; watching every table record instead streamed each save's whole
// bytes back to every client, the writer's own included.
//
//   record:   "LSR1", the mark's length (UInt16 big-endian), the mark, then the manifest, if any
//   manifest: a staged chunk (EtcdStagedChunk: checksummed, deflated) of a delete of each key
//
// A save whose manifest would take more than `largestManifest` bytes (or a quarter of its
// transaction) writes none, and readers take that as "any record may have changed", as they
// take a manifest that does not decode and a value of any other shape (the bare mark an earlier
// Larder wrote): a refresh then forgets every cached value, which is slower, never wrong.

import Larder

/// What a save writes under the save key: its mark and the table keys it changes.
struct EtcdSaveRecord: Equatable {
    static let magic: [UInt8] = Array("LSR1".utf8)
    /// The most bytes of manifest a save writes; a save whose manifest is bigger writes none.
    static let largestManifest = 256 << 10

    /// The save's mark: unique to it (a staged commit's id).
    var mark: [UInt8]
    /// The full etcd keys of the table records the save wrote or deleted; nil: unknown.
    var changedKeys: [[UInt8]]?

    init(mark: [UInt8], changedKeys: [[UInt8]]?) {
        self.mark = mark
        self.changedKeys = changedKeys
    }

    /// The record of a save marked `mark` that makes `writes`, naming their keys when the
    /// manifest takes at most `manifestBudget` bytes (and at most ``largestManifest``).
    static func encoded(mark: [UInt8], writes: [EtcdWrite], manifestBudget: Int) -> [UInt8] {
        var record = magic
        record.appendBigEndian(UInt16(clamping: mark.count))
        record += mark.prefix(Int(UInt16.max))
        let budget = min(largestManifest, manifestBudget)
        // A chunk is at least a fifth of its keys' bytes: a save with more keys than that is
        // not worth compressing to find out.
        guard writes.reduce(0, { $0 + $1.key.count }) / 5 <= budget else { return record }
        let manifest = EtcdStagedChunk.chunks(of: writes.map { EtcdWrite(key: $0.key, value: nil) }, capacity: .max)
        if manifest.count == 1, let chunk = manifest.first, chunk.count <= budget { record += chunk }
        return record
    }

    /// The record stored as `value`; any bytes read: damage makes the keys unknown, never an
    /// error (a save key of another shape is a save that did not say what it changed).
    init(decoding value: [UInt8]) {
        guard value.count >= Self.magic.count + 2, value.starts(with: Self.magic) else {
            self.init(mark: value, changedKeys: nil)
            return
        }
        let markLength = Int(value.withUnsafeBytes { $0.loadBigEndian(UInt16.self, at: Self.magic.count) })
        let markStart = Self.magic.count + 2
        guard value.count - markStart >= markLength else {
            self.init(mark: value, changedKeys: nil)
            return
        }
        let manifest = Array(value[(markStart + markLength)...])
        let keys = manifest.isEmpty ? nil
            : (try? EtcdStagedChunk.writes(in: manifest, key: "the save key")).flatMap { writes in
                writes.allSatisfy { $0.value == nil } ? writes.map(\.key) : nil
            }
        self.init(mark: Array(value[markStart ..< markStart + markLength]), changedKeys: keys)
    }
}
