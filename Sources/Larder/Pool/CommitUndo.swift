// CommitUndo: what one commit of a pool's writer overwrote: for each key the commit puts or
// removes, the value it held before (or that it held none). A read that began before the
// commit takes a key's value from here instead of from the files, so it goes on seeing the
// state it began with while the files move on (multiversion reads, the undo way round).

/// The before-images of one commit, by table and key.
internal struct CommitUndo {
    /// A key's value before the commit: nil when the key held none.
    struct BeforeImage {
        let bytes: [UInt8]?
    }

    /// The generation the commit makes: reads of generations below it need these values.
    var generation: UInt64
    /// By table, then by key (hashed as one block: a read of an older generation looks its
    /// page up here).
    private var tables: [String: [ByteKey: BeforeImage]] = [:]

    init(generation: UInt64) {
        self.generation = generation
    }

    /// The value `key` held in `table` before the commit, or nil when the commit left it alone.
    func beforeImage(of key: [UInt8], in table: String) -> BeforeImage? {
        tables[table]?[ByteKey(key)]
    }

    /// Whether the commit changed some key of `table`.
    func touches(_ table: String) -> Bool {
        tables[table] != nil
    }

    /// The keys of `table` the commit changed, with their values before it.
    func images(in table: String) -> [[UInt8]: BeforeImage] {
        guard let images = tables[table] else { return [:] }
        return Dictionary(uniqueKeysWithValues: images.map { (Array($0.key.bytes), $0.value) })
    }

    /// Keeps `image` as `key`'s value before the commit, unless an earlier one is kept (a batch
    /// that writes a key twice, or a failed commit merged into the next).
    mutating func keep(_ image: BeforeImage, of key: [UInt8], in table: String) {
        let key = ByteKey(key)
        if tables[table]?[key] != nil { return }
        tables[table, default: [:]][key] = image
    }

    /// Takes the images of `other` (an earlier, failed commit) for the keys it changed: they are
    /// older than any this commit read.
    mutating func absorb(_ other: CommitUndo) {
        for (table, images) in other.tables {
            for (key, image) in images { tables[table, default: [:]][key] = image }
        }
    }
}
