// EtcdWrite: one key's final state in a batch (a put of a value, or a delete), under its full
// etcd key. A WriteBatch may touch a key twice; etcd refuses a transaction that names a key
// twice, so a batch becomes its writes, one per key, the last operation winning.

import Larder

/// The new value of one etcd key (nil: delete it).
struct EtcdWrite: Equatable {
    var key: [UInt8]
    var value: [UInt8]?

    /// Its size in a transaction.
    var cost: Int { EtcdLimits.cost(keyCount: key.count, valueCount: value?.count ?? 0) }

    /// The writes of `batch`, one per key in the order first touched, each with its last value.
    static func writes(of batch: WriteBatch, layout: EtcdKeyLayout) -> [EtcdWrite] {
        var writes: [EtcdWrite] = []
        var positions: [[UInt8]: Int] = [:]
        for table in batch.tables {
            let prefix = layout.tablePrefix(table)
            batch.forEachOperation(in: table) { kind, key, value in
                var fullKey = prefix
                fullKey.append(contentsOf: key)
                let write = EtcdWrite(key: fullKey, value: kind == .delete ? nil : Array(value))
                if let position = positions[fullKey] {
                    writes[position] = write
                } else {
                    positions[fullKey] = writes.count
                    writes.append(write)
                }
            }
        }
        return writes
    }

    /// `writes` cut into groups that each fit one transaction of `limits` (with `reserved`
    /// operations and bytes left for comparisons).
    static func transactions(_ writes: [EtcdWrite], limits: EtcdLimits, reservedOperations: Int = 1,
                             reservedBytes: Int = 256) -> [ArraySlice<EtcdWrite>] {
        var groups: [ArraySlice<EtcdWrite>] = []
        var start = 0
        var bytes = 0
        for (position, write) in writes.enumerated() {
            let full = position - start >= limits.maximumOperations - reservedOperations
                || bytes + write.cost > limits.usableBytes - reservedBytes
            if full && position > start {
                groups.append(writes[start ..< position])
                start = position
                bytes = 0
            }
            bytes += write.cost
        }
        if start < writes.count { groups.append(writes[start...]) }
        return groups
    }

    var operation: TransactionOperation {
        value.map { .put($0, forKey: key) } ?? .delete(key)
    }
}
