// ObjectIndexState: one declared index of a registered class in this session: its definition,
// its table number and its table of runs (the index engine the documents layer uses too).

/// A class's index, ready to read and write.
internal final class ObjectIndexState {
    let definition: ObjectIndex
    let name: String
    let number: UInt64
    let className: String
    var table: IndexTable

    init(definition: ObjectIndex, name: String, number: UInt64, className: String, table: IndexTable) {
        self.definition = definition
        self.name = name
        self.number = number
        self.className = className
        self.table = table
    }

    var isUnique: Bool { definition.isUnique }

    /// Calls `body` with every entry from `start` through `end` (inclusive), ascending or
    /// descending, until it returns false.
    func forEachEntry(from start: [UInt8]?, through end: [UInt8]?, reverse: Bool,
                      _ body: (UnsafeRawBufferPointer) throws -> Bool) throws {
        try table.forEachEntry(from: start, through: end, reverse: reverse, body)
    }

    /// The number of entries from `start` through `end`.
    func count(from start: [UInt8]?, through end: [UInt8]?) throws -> Int {
        try table.count(from: start, through: end)
    }

    /// The rowID at the end of an entry.
    static func rowID(in entry: UnsafeRawBufferPointer) -> UInt64? {
        guard entry.count >= 8 else { return nil }
        return entry.loadBigEndian(UInt64.self, at: entry.count - 8)
    }
}
