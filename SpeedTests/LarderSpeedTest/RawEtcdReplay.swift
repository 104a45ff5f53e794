// RawEtcdReplay: a phase's backend calls (BackendCall, recorded on a TracingBackend) made on etcd
// through the raw client, under the store's key layout (EtcdKeyLayout: the keys EtcdBackend
// writes): each batch's final value of each key put in unconditional transactions of up to
// etcd's default 128 operations and 1.5 MiB, each point read a range read of its key, each scan
// range reads of at most 512 keys (EtcdBackend's largest page) until the records Larder
// consumed are read, each count a count-only read. The bytes Larder moves, with none of its work.

import Larder
import LarderEtcd

struct RawEtcdReplay {
    let client: EtcdRawClient
    let layout: EtcdKeyLayout
    let limits = EtcdLimits.etcdDefaults
    private let pageSize = 512

    func replay(_ calls: [BackendCall]) throws {
        for call in calls {
            switch call {
            case let .read(table, key):
                let fullKey = layout.key(key, in: table)
                _ = try client.range(from: fullKey, before: nil)
            case let .scan(table, from, through, reverse, records):
                let prefix = layout.tablePrefix(table)
                try scan(from: prefix + (from ?? []), before: through.map { prefix + $0 + [0] } ?? EtcdKeyLayout.end(ofPrefix: prefix),
                         reverse: reverse, records: records)
            case let .scanHolding(table, start, through, records):
                let prefix = layout.tablePrefix(table)
                let upper = through.map { prefix + $0 + [0] } ?? EtcdKeyLayout.end(ofPrefix: prefix)
                let holder = try client.range(from: prefix, before: prefix + start + [0], limit: 1, descending: true)
                try scan(from: holder.records.first?.key ?? prefix, before: upper, reverse: false, records: records)
            case let .count(table):
                let prefix = layout.tablePrefix(table)
                _ = try client.range(from: prefix, before: EtcdKeyLayout.end(ofPrefix: prefix), countOnly: true)
            case let .apply(batch):
                try write(batch)
            }
        }
    }

    /// Range reads of `lower ..< upper` until `records` records are read or the range ends.
    private func scan(from lower: [UInt8], before upper: [UInt8], reverse: Bool, records: Int) throws {
        var lower = lower, upper = upper, remaining = records
        repeat {
            let page = try client.range(from: lower, before: upper, limit: min(max(remaining, 1), pageSize), descending: reverse)
            remaining -= page.records.count
            guard page.more, let last = page.records.last else { return }
            if reverse { upper = last.key } else { lower = last.key + [0] }
        } while remaining > 0
    }

    /// The batch's writes, one per key (the last operation wins, as in EtcdBackend), in
    /// transactions within etcd's limits.
    private func write(_ batch: WriteBatch) throws {
        var writes: [(key: [UInt8], value: [UInt8]?)] = []
        var positions: [[UInt8]: Int] = [:]
        for table in batch.tables {
            batch.forEachOperation(in: table) { kind, key, value in
                let write: (key: [UInt8], value: [UInt8]?) = (layout.key(Array(key), in: table),
                                                               kind == .delete ? nil : Array(value))
                if let position = positions[write.key] {
                    writes[position] = write
                } else {
                    positions[write.key] = writes.count
                    writes.append(write)
                }
            }
        }
        // etcd's request limit less room for its framing (as EtcdBackend reserves).
        let byteLimit = limits.maximumRequestBytes - 2048
        var start = 0, bytes = 0
        for (position, write) in writes.enumerated() {
            let cost = write.key.count + (write.value?.count ?? 0) + 24
            if position > start && (position - start == limits.maximumOperations || bytes + cost > byteLimit) {
                try client.write(writes[start ..< position])
                start = position
                bytes = 0
            }
            bytes += cost
        }
        if start < writes.count { try client.write(writes[start...]) }
    }
}
