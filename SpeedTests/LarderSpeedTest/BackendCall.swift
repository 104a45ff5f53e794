// BackendCall: one call a Store made to its backend, as TracingBackend records it and
// RawEtcdReplay replays it on etcd: what Larder asked of storage, without Larder.

import Larder

enum BackendCall {
    /// A point read (`readValue`, or one key of `readValues`).
    case read(table: String, key: [UInt8])
    /// A scan of `table` (between `from` and `through` when given), of which the caller
    /// consumed `records` records before it stopped or the table ended.
    case scan(table: String, from: [UInt8]?, through: [UInt8]?, reverse: Bool, records: Int)
    /// A scan from the record holding `start` (the last at or before it), `records` consumed.
    case scanHolding(table: String, start: [UInt8], through: [UInt8]?, records: Int)
    /// A count of a table's records.
    case count(table: String)
    /// A batch of puts and deletes, applied whole.
    case apply(WriteBatch)
}
