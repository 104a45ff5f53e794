// ChangeSequenceRecord: the record `sequence` of `_store`: the sequence number of the last save
// that changed something, and the oldest save whose change record the log still keeps. Written
// in the batch of every such save, so the number survives a reopen or a crash exactly with the
// save. docs/FORMAT.md, section 8.5.
//
//   [varint sequence][varint oldest kept]      oldest kept = sequence + 1 when none is kept

/// Where the store's sequence numbers and its change log stand.
internal struct ChangeSequenceRecord: Equatable, Sendable {
    static let key = Array("sequence".utf8)

    /// The number of the last save that changed something; 0 before the first.
    private(set) var sequence: UInt64 = 0
    /// The sequence number of the oldest change record kept (`sequence + 1` when none is).
    private(set) var oldestKept: UInt64 = 1

    /// A store that has no record yet (new, or written before the change log): nothing saved,
    /// nothing kept.
    init() {}

    init(sequence: UInt64, oldestKept: UInt64) {
        self.sequence = sequence
        self.oldestKept = oldestKept
    }

    /// Decodes a record; throws `DataBufferError` when it is truncated, when the oldest kept is 0
    /// or above `sequence + 1`, or when `sequence` is the largest number (trailing bytes are
    /// ignored, as in the class records).
    init(decoding buffer: inout DataBuffer) throws {
        sequence = try buffer.readVarInt()
        let offset = buffer.readPosition
        oldestKept = try buffer.readVarInt()
        guard sequence < .max, oldestKept >= 1, oldestKept <= sequence + 1 else {
            throw DataBufferError.valueOutOfRange(offset: offset)
        }
    }

    func encoded() -> DataBuffer {
        var buffer = DataBuffer()
        buffer.writeVarInt(sequence)
        buffer.writeVarInt(oldestKept)
        return buffer
    }

    /// The sequence numbers whose change records are kept (empty when none is).
    var kept: ClosedRange<UInt64>? { oldestKept <= sequence ? oldestKept ... sequence : nil }

    /// The record after one more save, with a log that keeps the last `limit` saves (none for
    /// 0), and the sequence numbers whose records that save removes; nil when no number is
    /// left (a record made by hand: a store cannot save 2^64 - 2 times).
    func advanced(keeping limit: Int) -> (record: ChangeSequenceRecord, pruned: ClosedRange<UInt64>?)? {
        guard sequence < .max - 1 else { return nil }
        let next = sequence + 1
        let limit = UInt64(max(0, limit))
        let oldest = limit == 0 ? next + 1 : max(oldestKept, limit > next ? 1 : next + 1 - limit)
        let pruned = kept.flatMap { kept in kept.lowerBound < oldest ? kept.lowerBound ... min(kept.upperBound, oldest - 1) : nil }
        return (ChangeSequenceRecord(sequence: next, oldestKept: oldest), pruned)
    }
}
