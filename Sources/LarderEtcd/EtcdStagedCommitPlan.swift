// EtcdStagedCommitPlan: how a staged commit's writes are split between its transactions. The
// publishing transaction carries the commit record, the save key, the first writes (put straight
// into the tables: neither staged nor copied) and, when it has room, the last chunk of the staged
// writes; the other chunks are staged before it, one transaction each. A batch whose staged
// writes fit one chunk in the publishing transaction therefore stages nothing beforehand: one
// transaction fewer per save, as many as the copy takes.

/// The transactions of one staged commit of `writes` under `limits`.
struct EtcdStagedCommitPlan {
    /// Written into the tables by the publishing transaction.
    let published: [EtcdWrite]
    /// Staged, then copied into the tables by the roll-forward (never empty when `writes` is not).
    let staged: [EtcdWrite]
    /// `staged` encoded, in order.
    let chunks: [[UInt8]]
    /// How many of `chunks`, from the first, are staged before the publishing transaction; the
    /// rest (none or the last) it puts itself.
    let stagedBeforehand: Int

    /// The commit record, the save key and a carried chunk.
    static let publishingOperations = 3
    /// Bytes kept in the publishing transaction for its record, save key and comparisons.
    static let publishingBytes = 1024

    /// The plan of `writes`; `chunkKeySize` is the length of a chunk's key, `saveRecordSize` that
    /// of the save key's new value (EtcdSaveRecord).
    init(_ writes: [EtcdWrite], limits: EtcdLimits, chunkKeySize: Int, saveRecordSize: Int = 0) {
        let reservedBytes = Self.publishingBytes + saveRecordSize
        var published: [EtcdWrite] = []
        if limits.maximumOperations > Self.publishingOperations {
            published = EtcdWrite.transactions(writes, limits: limits, reservedOperations: Self.publishingOperations,
                                               reservedBytes: reservedBytes).first.map(Array.init) ?? []
        }
        // At least one write is staged: a batch that fits one transaction is not a staged commit.
        if !published.isEmpty && published.count == writes.count { published.removeLast() }
        self.published = published
        staged = Array(writes[published.count...])
        chunks = EtcdStagedChunk.chunks(of: staged, capacity: limits.usableBytes - 256)
        // The last chunk rides along when the publishing transaction has an operation and the
        // bytes for it.
        var carries = false
        if let last = chunks.last, limits.maximumOperations >= published.count + Self.publishingOperations {
            let bytes = published.reduce(0) { $0 + $1.cost } + EtcdLimits.cost(keyCount: chunkKeySize, valueCount: last.count)
            carries = bytes <= limits.usableBytes - reservedBytes
        }
        stagedBeforehand = carries ? chunks.count - 1 : chunks.count
    }

    /// The chunks the publishing transaction puts, with their indexes.
    var carriedChunks: ArraySlice<[UInt8]> { chunks[stagedBeforehand...] }
}
