// EtcdStreamLines: a streamed HTTP body (etcd's watch: one JSON object a line) cut into lines as
// its bytes arrive in buffers of any size. A line longer than the bound is an error, not a buffer
// that grows without end; the bytes after the last newline wait for the next buffer.

/// Complete lines of a byte stream, each at most `maximumLength` bytes.
struct EtcdStreamLines {
    /// A line (without its newline) is at most this long.
    let maximumLength: Int
    private var pending: [UInt8] = []

    init(maximumLength: Int) {
        self.maximumLength = maximumLength
    }

    /// Takes in `bytes`; returns the lines they complete (empty lines left out), or throws
    /// ``LineTooLong`` when a line grows past ``maximumLength``.
    mutating func append(_ bytes: some Collection<UInt8>) throws -> [[UInt8]] {
        var lines: [[UInt8]] = []
        var rest = bytes[...]
        while let newline = rest.firstIndex(of: 0x0A) {
            let piece = rest[..<newline]
            guard pending.count + piece.count <= maximumLength else { throw LineTooLong(length: pending.count + piece.count) }
            pending.append(contentsOf: piece)
            if !pending.isEmpty { lines.append(pending) }
            pending = []
            rest = rest[rest.index(after: newline)...]
        }
        guard pending.count + rest.count <= maximumLength else { throw LineTooLong(length: pending.count + rest.count) }
        pending.append(contentsOf: rest)
        return lines
    }

    /// A line over the bound.
    struct LineTooLong: Error, Equatable {
        let length: Int
    }
}
