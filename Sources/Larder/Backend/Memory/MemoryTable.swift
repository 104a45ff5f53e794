// MemoryTable: one table of a MemoryBackend: a dictionary, or (an ordered table) an array of
// records sorted by key in byte order, searched by binary search. Changes take the records out
// of the enum first, so that they are changed in place, never copied.

/// The records of one in-memory table.
enum MemoryTable {
    case unordered([[UInt8]: [UInt8]])
    case ordered([(key: [UInt8], value: [UInt8])])

    var count: Int {
        switch self {
        case .unordered(let records): return records.count
        case .ordered(let records): return records.count
        }
    }

    /// Every record: in key order for an ordered table.
    var records: [(key: [UInt8], value: [UInt8])] {
        switch self {
        case .unordered(let records): return records.map { ($0.key, $0.value) }
        case .ordered(let records): return records
        }
    }

    func value(forKey key: [UInt8]) -> [UInt8]? {
        switch self {
        case .unordered(let records):
            return records[key]
        case .ordered(let records):
            let position = Self.firstIndex(atOrAfter: key, in: records)
            return position < records.count && records[position].key == key ? records[position].value : nil
        }
    }

    mutating func put(_ value: [UInt8], forKey key: [UInt8]) {
        switch self {
        case .unordered(var records):
            self = .unordered([:])   // so that `records` is the only reference: no copy
            records[key] = value
            self = .unordered(records)
        case .ordered(var records):
            self = .ordered([])
            let position = Self.firstIndex(atOrAfter: key, in: records)
            if position < records.count && records[position].key == key {
                records[position].value = value
            } else {
                records.insert((key, value), at: position)
            }
            self = .ordered(records)
        }
    }

    mutating func removeValue(forKey key: [UInt8]) {
        switch self {
        case .unordered(var records):
            self = .unordered([:])
            records[key] = nil
            self = .unordered(records)
        case .ordered(var records):
            self = .ordered([])
            let position = Self.firstIndex(atOrAfter: key, in: records)
            if position < records.count && records[position].key == key { records.remove(at: position) }
            self = .ordered(records)
        }
    }

    /// The position of the first record whose key is at or after `key`.
    static func firstIndex(atOrAfter key: [UInt8], in records: [(key: [UInt8], value: [UInt8])]) -> Int {
        firstIndex(in: records) { !ByteOrder.less($0, key) }
    }

    /// The position of the first record whose key is after `key`.
    static func firstIndex(after key: [UInt8], in records: [(key: [UInt8], value: [UInt8])]) -> Int {
        firstIndex(in: records) { ByteOrder.less(key, $0) }
    }

    /// The first position whose key satisfies `isAtOrPast` (false, then true, along the keys).
    private static func firstIndex(in records: [(key: [UInt8], value: [UInt8])], where isAtOrPast: ([UInt8]) -> Bool) -> Int {
        var low = 0
        var high = records.count
        while low < high {
            let middle = (low + high) / 2
            if isAtOrPast(records[middle].key) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
