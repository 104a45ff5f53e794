// BTreeMetaRepair: rebuilds the meta of a B+tree file (its root, first and last leaf, page and
// record counts, which Tokyo Cabinet keeps in the file's 256-byte header, bytes 128-191) from the
// file's pages, after a process died while Tokyo Cabinet was rewriting it.
//
// tcbdbdumpmeta (tcbdb.c) writes the meta straight into the header in the file's shared mapping:
// `memset(bdb->opaque, 0, 64)`, then one field after the other. In tcbdbtranbegin it runs before
// tchdbtranbegin starts the undo log (tcbdbmemsync, then tchdbtranbegin), and in tcbdbsync and
// tcbdbclose outside any transaction: a SIGKILL between the memset and the last field leaves the
// page cache (so the file, for every later process) with a meta that is zero from some field on.
// tcbdbloadmeta then reads root 0 (or first, last 0) and tcbdbopen fails with TCEMETA, or, killed
// after `last`, reads a page count of 0 and reuses page numbers still in use. Nothing else in the
// file is wrong: the pages are whole (the meta rewritten there is the one already on disk).
//
// A B+tree file keeps its pages as hash records: leaf `<id in hex>` (previous and next leaf, then
// the records), node `#<id - BDBNODEIDBASE in hex>` (first child, then child and key pairs). A
// file whose meta has a zero field is opened as a hash database (which also restores its undo
// log, as tcbdbopen would), its pages are read, and a meta that differs from theirs is replaced
// and synced. A file whose pages do not make one tree is left as it is.

import CTokyoCabinet
import Foundation

enum BTreeMetaRepair {
    /// The header's size, where its meta starts, and how long the meta is.
    private static let headerSize = 256
    private static let metaOffset = 128
    private static let metaSize = 64
    /// The header's type byte.
    private static let typeOffset = 32
    /// Node page numbers start above leaf page numbers (BDBNODEIDBASE).
    private static let nodeIDBase: UInt64 = (1 << 48) + 1

    /// Repairs the meta of the B+tree file at `path` when it needs it (see the file's comment);
    /// does nothing to a file that is new, whole, or not a B+tree file. `leafMembers` and
    /// `nodeMembers` are the tuning the file was created with, for a meta that lost them too.
    static func repairIfNeeded(path: String, leafMembers: UInt32, nodeMembers: UInt32, syncs: Bool) {
        guard let header = readHeader(path), needsCheck(header) else { return }
        guard let hdb = tchdbnew() else { return }
        defer { tchdbdel(hdb) }
        tchdbsettype(hdb, UInt8(TCDBTBTREE))
        var mode = Int32(HDBOWRITER | HDBOLCKNB)
        if syncs { mode |= Int32(HDBOTSYNC) }
        // tchdbopen replays the file's undo log if it has one, as tcbdbopen would.
        guard tchdbopen(hdb, path, mode) else { return }
        defer { _ = tchdbclose(hdb) }
        let bucketCount = tchdbbnum(hdb)
        guard tchdbrnum(hdb) > 0, let opaque = tchdbopaque(hdb),
              let order = header.withUnsafeBytes({ bytes in
                  bytes.baseAddress.flatMap { MappedRecordLookup.IntegerOrder(of: $0, bucketCount: bucketCount) }
              })
        else { return }
        let current = Array(UnsafeRawBufferPointer(start: opaque, count: metaSize))
        // A comparator other than the lexical one (byte 0): not a file of Larder's.
        guard current[0] == 0, let pages = Pages(of: hdb), var meta = pages.meta() else { return }
        // A field tcbdbdumpmeta did not rewrite is zero, one it did is what it was: keep the
        // sizes the file was made with, and page counters past the highest page number in use
        // (pages that were merged away leave their numbers unused).
        let storedLeafMembers = order.value(current.loadUnaligned(at: 8, as: UInt32.self))
        let storedNodeMembers = order.value(current.loadUnaligned(at: 12, as: UInt32.self))
        meta.leafMembers = storedLeafMembers >= 4 ? storedLeafMembers : leafMembers
        meta.nodeMembers = storedNodeMembers >= 4 ? storedNodeMembers : nodeMembers
        meta.leafCount = max(meta.leafCount, order.value(current.loadUnaligned(at: 40, as: UInt64.self)))
        meta.nodeCount = max(meta.nodeCount, order.value(current.loadUnaligned(at: 48, as: UInt64.self)))
        let repaired = meta.bytes(in: order)
        guard repaired != current else { return }
        for (offset, byte) in repaired.enumerated() { opaque[offset] = CChar(bitPattern: byte) }
        _ = tchdbsync(hdb)
    }

    /// The file's header, or nil when the file is shorter or is not a Tokyo Cabinet B+tree file.
    private static func readHeader(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var header = [UInt8](repeating: 0, count: headerSize)
        let count = header.withUnsafeMutableBytes { pread(fd, $0.baseAddress, headerSize, 0) }
        guard count == headerSize, header.starts(with: Array("ToKyO CaBiNeT".utf8)),
              header[typeOffset] == UInt8(TCDBTBTREE) else { return nil }
        return header
    }

    /// Whether the file must be checked: one of its meta's fields is zero (in either byte
    /// order). A kill inside tcbdbdumpmeta leaves every field it did not rewrite zero, and the
    /// ones it did as they were; a whole meta has no zero field but in a tree of one leaf (no
    /// node) or of no record, whose pages are few to read.
    private static func needsCheck(_ header: [UInt8]) -> Bool {
        let fields: [(offset: Int, size: Int)] = [(8, 4), (12, 4), (16, 8), (24, 8), (32, 8), (40, 8), (48, 8), (56, 8)]
        return fields.contains { field in
            header[(metaOffset + field.offset) ..< (metaOffset + field.offset + field.size)].allSatisfy { $0 == 0 }
        }
    }

    /// The meta Tokyo Cabinet keeps (tcbdbdumpmeta's layout).
    struct Meta: Equatable {
        var leafMembers: UInt32 = 0
        var nodeMembers: UInt32 = 0
        var root: UInt64
        var first: UInt64
        var last: UInt64
        var leafCount: UInt64
        var nodeCount: UInt64
        var recordCount: UInt64

        /// The 64 bytes of the header that hold it: comparator 0 (lexical), 7 unused bytes, then
        /// the fields in the file's byte order.
        func bytes(in order: MappedRecordLookup.IntegerOrder) -> [UInt8] {
            var bytes = [UInt8](repeating: 0, count: BTreeMetaRepair.metaSize)
            func store<T: FixedWidthInteger>(_ value: T, at offset: Int) {
                let stored = order == .little ? value.littleEndian : value.bigEndian
                withUnsafeBytes(of: stored) { bytes.replaceSubrange(offset ..< offset + $0.count, with: $0) }
            }
            store(leafMembers, at: 8)
            store(nodeMembers, at: 12)
            store(root, at: 16)
            store(first, at: 24)
            store(last, at: 32)
            store(leafCount, at: 40)
            store(nodeCount, at: 48)
            store(recordCount, at: 56)
            return bytes
        }
    }

    /// A B+tree file's pages, read from its hash records.
    struct Pages {
        struct Leaf { var previous: UInt64; var next: UInt64; var records: UInt64 }
        var leaves: [UInt64: Leaf] = [:]
        /// Each node's children (page numbers of leaves and nodes).
        var nodes: [UInt64: [UInt64]] = [:]

        /// The pages of the open file `hdb`, or nil when a record is not a page.
        init?(of hdb: UnsafeMutablePointer<TCHDB>) {
            let reader = PageReader()
            let walked = withExtendedLifetime(reader) {
                tchdbforeach(hdb, { key, keySize, value, valueSize, context in
                    guard let context, let key, let value else { return false }
                    let reader = Unmanaged<PageReader>.fromOpaque(context).takeUnretainedValue()
                    return reader.read(UnsafeRawBufferPointer(start: key, count: Int(keySize)),
                                       UnsafeRawBufferPointer(start: value, count: Int(valueSize)))
                }, Unmanaged.passUnretained(reader).toOpaque())
            }
            guard walked, !reader.failed else { return nil }
            self = reader.pages
        }

        init() {}

        /// The meta these pages make, or nil when they do not make one tree.
        func meta() -> Meta? {
            guard let leafCount = leaves.keys.max() else { return nil }
            let firsts = leaves.filter { $0.value.previous == 0 }.map(\.key)
            let lasts = leaves.filter { $0.value.next == 0 }.map(\.key)
            guard firsts.count == 1, lasts.count == 1 else { return nil }
            let root: UInt64
            if nodes.isEmpty {
                guard leaves.count == 1 else { return nil }
                root = leafCount
            } else {
                let children = Set(nodes.values.joined())
                let roots = nodes.keys.filter { !children.contains($0) }
                guard roots.count == 1 else { return nil }
                root = roots[0]
            }
            let records = leaves.values.reduce(UInt64(0)) { $0 &+ $1.records }
            let nodeCount = nodes.keys.max().map { $0 - BTreeMetaRepair.nodeIDBase } ?? 0
            return Meta(root: root, first: firsts[0], last: lasts[0], leafCount: leafCount,
                        nodeCount: nodeCount, recordCount: records)
        }
    }

    /// Reads each hash record of a B+tree file as a page; `failed` once one is not.
    private final class PageReader {
        var pages = Pages()
        var failed = false

        func read(_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) -> Bool {
            var bytes = PageBytes(value)
            if key.first == UInt8(ascii: "#") {
                guard let number = hexNumber(key.dropFirst()), number <= UInt64.max - BTreeMetaRepair.nodeIDBase,
                      let children = bytes.nodeChildren() else { failed = true; return false }
                pages.nodes[number + BTreeMetaRepair.nodeIDBase] = children
            } else {
                guard let id = hexNumber(key[...]), id > 0, id < BTreeMetaRepair.nodeIDBase,
                      let leaf = bytes.leaf() else { failed = true; return false }
                pages.leaves[id] = leaf
            }
            return true
        }

        private func hexNumber(_ digits: Slice<UnsafeRawBufferPointer>) -> UInt64? {
            guard !digits.isEmpty, digits.count <= 16 else { return nil }
            var number: UInt64 = 0
            for digit in digits {
                guard let value = Int(String(UnicodeScalar(digit)), radix: 16) else { return nil }
                number = number << 4 | UInt64(value)
            }
            return number
        }
    }

    /// A page's bytes, read front to back; every read checks what is left.
    private struct PageBytes {
        let bytes: UnsafeRawBufferPointer
        var position = 0

        init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

        var remaining: Int { bytes.count - position }

        /// Tokyo Cabinet's variable-length number (TCREADVNUMBUF): seven bits a byte, low
        /// first, every byte but the last stored as -(bits + 1).
        mutating func number() -> UInt64? {
            var number: UInt64 = 0
            var shift: UInt64 = 0
            while position < bytes.count, shift < 64 {
                let byte = Int8(bitPattern: bytes[position])
                position += 1
                if byte >= 0 { return number | UInt64(byte) << shift }
                number |= UInt64(~byte) << shift
                shift += 7
            }
            return nil
        }

        mutating func skip(_ count: UInt64) -> Bool {
            guard count <= UInt64(remaining) else { return false }
            position += Int(count)
            return true
        }

        /// A leaf (tcbdbleafload): previous and next leaf, then per record its key size, value
        /// size, count of further values, key, value and further values.
        mutating func leaf() -> Pages.Leaf? {
            guard let previous = number(), let next = number() else { return nil }
            var records: UInt64 = 0
            while remaining >= 3 {
                guard let keySize = number(), let valueSize = number(), let more = number(),
                      skip(keySize), skip(valueSize) else { return nil }
                for _ in 0 ..< more {
                    guard let size = number(), skip(size) else { return nil }
                }
                records &+= 1 &+ more
            }
            guard remaining == 0 else { return nil }
            return Pages.Leaf(previous: previous, next: next, records: records)
        }

        /// A node's children (tcbdbnodeload): the first child, then per index a child and a key.
        mutating func nodeChildren() -> [UInt64]? {
            guard let first = number() else { return nil }
            var children = [first]
            while remaining >= 2 {
                guard let child = number(), let keySize = number(), skip(keySize) else { return nil }
                children.append(child)
            }
            guard remaining == 0 else { return nil }
            return children
        }
    }
}

private extension Array where Element == UInt8 {
    func loadUnaligned<T: FixedWidthInteger>(at offset: Int, as type: T.Type) -> T {
        withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: T.self) }
    }
}
