// MappedBTree: walks a B+tree database's pages in place, in the memory Tokyo Cabinet has mapped
// for the hash database that holds them, as MappedRecordLookup reads a hash database's records.
// A cursor jump into a leaf that is not in the B+tree's cache loads it: Tokyo Cabinet copies the
// leaf's record out of the file twice, then every key and value once more into records of its
// own (about 26k instructions for a leaf of two 4 KB index runs, a fifth of an index find of 20
// objects, and Debian's build yields to the scheduler on the way); a scan that starts before a
// leaf's first record loads the leaf before it too. This descends from the root to the leaf a
// key leads to and walks the leaves from there, reading the pages where they lie, over the
// page format of Tokyo Cabinet's B+tree (tcbdb.c):
//
//   node   key    "#" and (page id - 2^48 - 1) in lowercase hex; page ids above 2^48 + 1 are nodes
//          value  [heir page id]([child page id][separator size][separator])...   separators ascending
//          a key goes to the child after the last separator at or before it, else to the heir
//   leaf   key    the page id in lowercase hex
//          value  [previous leaf id][next leaf id]
//                 ([key size][value size][duplicate count][key][value]([size][duplicate])...)...
//   integers are Tokyo Cabinet's varints: 7 bits a byte, lowest first; every byte but the last
//   holds -(its bits) - 1, so that its top bit is set
//
// The file holds the pages as the handle sees them outside a transaction: Larder writes B+trees
// only inside one, committing writes every page the cache changed into the file, and an abort
// drops them (TokyoCabinetBackend+Commit relies on the same for its shadow copies). The root is
// the handle's. Whatever it cannot vouch for ends the walk and the caller's cursor takes over
// after the last record handed out: a transaction open, MappedRecordLookup's conditions on the
// hash database, a page it cannot find or parse, a record with duplicates, a walk too deep.

import CTokyoCabinet

/// Reads a B+tree database's records in place, in Tokyo Cabinet's mapped memory.
enum MappedBTree {
    /// How a walk ended.
    enum Outcome: Equatable {
        /// Every record asked for was handed out (or the body stopped the walk).
        case finished
        /// The walk could not go on in place: a cursor should go on after `after`, the key of the
        /// last record handed out (nil: none was, the whole scan is the cursor's).
        case unavailable(after: [UInt8]?)
    }

    /// Page ids above this are nodes (BDBNODEIDBASE).
    static let nodeIDBase: UInt64 = (1 << 48) + 1
    /// Levels a descent may take before it gives up (BDBLEVELMAX: a damaged tree could loop).
    static let maximumDepth = 64
    /// Leaves a walk may step over without a record before it gives up.
    static let maximumEmptyLeaves = 4_096

    /// Calls `body` with the records of the database `handle` in ascending key order, from the
    /// first whose key is at or after `start` or, `backingUp`, from the one holding `start` (the
    /// last at or before it, else the first), through the last at or before `end` (nil is open),
    /// until `body` returns false. The pointers are valid until the next write to the database.
    ///
    /// `nodes` keeps the nodes the descent parsed, for the next walks; its owner empties it at
    /// every write to the database.
    static func forEachRecord(
        in handle: UnsafeMutablePointer<TCBDB>, from start: [UInt8], backingUp: Bool, through end: [UInt8]?,
        nodes: inout Nodes, _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool
    ) rethrows -> Outcome {
        let database = handle.pointee
        guard database.open, !database.tran, let pages = database.hdb,
              var leaf = start.withUnsafeBytes({ leafID(for: $0, root: database.root, in: pages, nodes: &nodes) })
                  .flatMap({ Leaf(id: $0, in: pages) })
        else { return .unavailable(after: nil) }
        var index: Int
        if backingUp {
            // The last record at or before `start`; before the leaf's first record, the last
            // record of a leaf before it, else (before every record) the first record.
            if let last = leaf.records.lastIndex(where: { ByteOrder.compare($0.key, start) <= 0 }) {
                index = last
            } else {
                index = 0
                var previous = leaf.previous
                var steps = 0
                while previous != 0 {
                    steps += 1
                    guard steps <= maximumEmptyLeaves, let earlier = Leaf(id: previous, in: pages) else { return .unavailable(after: nil) }
                    if !earlier.records.isEmpty {
                        leaf = earlier
                        index = earlier.records.count - 1
                        break
                    }
                    previous = earlier.previous
                }
            }
        } else {
            index = leaf.records.firstIndex { ByteOrder.compare($0.key, start) >= 0 } ?? leaf.records.count
        }
        var delivered: UnsafeRawBufferPointer?
        var emptyLeaves = 0
        while true {
            if index >= leaf.records.count {
                guard leaf.next != 0 else { return .finished }
                emptyLeaves = leaf.records.isEmpty ? emptyLeaves + 1 : 0
                guard emptyLeaves < maximumEmptyLeaves, let next = Leaf(id: leaf.next, in: pages) else {
                    return .unavailable(after: delivered.map(Array.init))
                }
                leaf = next
                index = 0
                continue
            }
            let record = leaf.records[index]
            if let end, ByteOrder.compare(record.key, end) > 0 { return .finished }
            guard try body(record.key, record.value) else { return .finished }
            delivered = record.key
            index += 1
        }
    }

    /// The id of the leaf the descent from `root` leads `key` to, or nil when a node on the way
    /// cannot be read in place.
    private static func leafID(for key: UnsafeRawBufferPointer, root: UInt64, in pages: UnsafeMutablePointer<TCHDB>,
                               nodes: inout Nodes) -> UInt64? {
        var id = root
        for _ in 0 ..< maximumDepth {
            guard id > nodeIDBase else { return id == 0 ? nil : id }
            guard let node = nodes.node(id, in: pages) else { return nil }
            id = node.child(for: key)
        }
        return nil
    }

    /// A node's children and separators, in place.
    struct Node {
        var heir: UInt64
        var separators: [(key: UnsafeRawBufferPointer, child: UInt64)] = []

        /// Node `id` of `pages`, or nil when it cannot be found or parsed in place.
        init?(id: UInt64, in pages: UnsafeMutablePointer<TCHDB>) {
            guard id > MappedBTree.nodeIDBase,
                  let page = MappedBTree.withPageKey(of: id, { MappedRecordLookup.value(forKey: $0, in: pages) }) else { return nil }
            var reader = VarintReader(bytes: page)
            guard let heir = reader.varint() else { return nil }
            self.heir = heir
            while !reader.isAtEnd {
                guard let child = reader.varint(), let size = reader.varint(), let key = reader.take(size) else { return nil }
                separators.append((key, child))
            }
        }

        /// The child `key` goes to: the one after the last separator at or before it (a binary
        /// search: separators ascend), else the heir.
        func child(for key: UnsafeRawBufferPointer) -> UInt64 {
            var low = 0
            var high = separators.count
            while low < high {
                let middle = (low + high) / 2
                if ByteOrder.compare(separators[middle].key, key) <= 0 { low = middle + 1 } else { high = middle }
            }
            return low == 0 ? heir : separators[low - 1].child
        }
    }

    /// The nodes read in place since the database's last write (their bytes are where they
    /// were read until then), for descents that follow.
    struct Nodes {
        private var parsed: [UInt64: Node] = [:]
        /// Nodes kept at most: a tree of 4 KB runs two levels deep has a few dozen.
        static let capacity = 4_096

        init() {}

        /// Node `id`, parsed on first use.
        mutating func node(_ id: UInt64, in pages: UnsafeMutablePointer<TCHDB>) -> Node? {
            if let node = parsed[id] { return node }
            guard let node = Node(id: id, in: pages) else { return nil }
            if parsed.count >= Self.capacity { parsed.removeAll() }
            parsed[id] = node
            return node
        }

        /// Forgets every node: the database is written to.
        mutating func removeAll() {
            if !parsed.isEmpty { parsed.removeAll() }
        }
    }

    /// Calls `body` with the key of page `id` in the hash database: a node's "#" and its number
    /// past the node base, a leaf's id, in lowercase hex.
    static func withPageKey<Result>(of id: UInt64, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        withUnsafeTemporaryAllocation(byteCount: 17, alignment: 1) { buffer in
            let isNode = id > nodeIDBase
            var number = isNode ? id - nodeIDBase : id
            var count = 0
            if isNode {
                buffer[0] = UInt8(ascii: "#")
                count = 1
            }
            var digits = 1
            while number >> (4 * UInt64(digits)) != 0, digits < 16 { digits += 1 }
            for position in (count ..< count + digits).reversed() {
                let digit = UInt8(number & 0xF)
                buffer[position] = digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10
                number >>= 4
            }
            count += digits
            return body(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
        }
    }

    /// A leaf's links and records, in place.
    struct Leaf {
        var previous: UInt64
        var next: UInt64
        var records: [(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)] = []

        /// Leaf `id` of `pages`, or nil when it cannot be found or parsed in place, or holds a
        /// record with duplicates.
        init?(id: UInt64, in pages: UnsafeMutablePointer<TCHDB>) {
            guard id <= MappedBTree.nodeIDBase,
                  let page = MappedBTree.withPageKey(of: id, { MappedRecordLookup.value(forKey: $0, in: pages) }) else { return nil }
            var reader = VarintReader(bytes: page)
            guard let previous = reader.varint(), let next = reader.varint() else { return nil }
            self.previous = previous
            self.next = next
            while !reader.isAtEnd {
                guard let keySize = reader.varint(), let valueSize = reader.varint(), reader.varint() == 0,
                      let key = reader.take(keySize), let value = reader.take(valueSize) else { return nil }
                records.append((key, value))
            }
        }
    }

    /// Reads Tokyo Cabinet's varints and the bytes between them, checking every bound.
    struct VarintReader {
        let bytes: UnsafeRawBufferPointer
        private var position = 0

        init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

        var isAtEnd: Bool { position >= bytes.count }

        /// The next varint (TCREADVNUMBUF64), or nil when it runs past the bytes or past 10 bytes.
        mutating func varint() -> UInt64? {
            var number: UInt64 = 0
            var shift: UInt64 = 0
            while position < bytes.count, shift < 70 {
                let byte = bytes[position]
                position += 1
                // A last byte holds its bits; the others hold -(bits) - 1: 0xFF - byte.
                if byte < 0x80 { return number | UInt64(byte) << shift }
                number |= UInt64(0xFF - byte) << shift
                shift += 7
            }
            return nil
        }

        /// The next `count` bytes, or nil when fewer remain.
        mutating func take(_ count: UInt64) -> UnsafeRawBufferPointer? {
            guard position <= bytes.count, count <= UInt64(bytes.count - position), let base = bytes.baseAddress else { return nil }
            defer { position += Int(count) }
            return UnsafeRawBufferPointer(start: base + position, count: Int(count))
        }
    }
}
