// EtcdKeyLayout: where a store's bytes live in etcd's one flat, byte-ordered key space.
//
//   <prefix>/t/<table>/<key>   a record of a table (its key's raw bytes after the slash)
//   <prefix>/s/<id>/<n>        chunk n (8 hex digits) of staged commit <id>: nobody reads these
//   <prefix>/c/<id>            the record that publishes staged commit <id>
//   <prefix>/v                 rewritten by every save: its revision is the store's last save's
//   <prefix>/x/<table>         the next rowID of the table no client was given (8 bytes, big-endian;
//                              after `v`, so that no range of commit records and staging holds it)
//
// The table name is escaped ('%' and '/' as %25 and %2F), so it holds no slash and the slash after
// it ends it: no table's keys can begin with another table's prefix ("a" + "b/x" and "a/b" +
// "x" are "a/" "b/x" and "a%2Fb/" "x"). Keys are raw bytes, so etcd's order of a table's keys is
// their byte order: ordered tables need nothing more.

/// The etcd keys of one store (one prefix).
///
/// ```swift
/// let layout = try EtcdKeyLayout(prefix: "music")
/// layout.key([0, 1], in: "Song")   // "music/t/Song/" + [0, 1]
/// ```
public struct EtcdKeyLayout: Sendable {
    /// `<prefix>/`, the bytes every key of the store begins with.
    ///
    /// ```swift
    /// try EtcdKeyLayout(prefix: "music").root   // Array("music/".utf8)
    /// ```
    public let root: [UInt8]

    /// The layout of the store under `prefix`, which must not be empty. Two stores' prefixes must
    /// not be such that one's `<prefix>/` begins the other's.
    ///
    /// ```swift
    /// let layout = try EtcdKeyLayout(prefix: "music")
    /// ```
    public init(prefix: String) throws {
        guard !prefix.isEmpty, !prefix.utf8.contains(0) else { throw EtcdError.invalidPrefix(prefix) }
        root = Array(prefix.utf8) + [0x2F]
    }

    /// The etcd key of `key` in `table`.
    ///
    /// ```swift
    /// layout.key([0, 1], in: "Song")   // "music/t/Song/" + [0, 1]
    /// ```
    public func key(_ key: [UInt8], in table: String) -> [UInt8] {
        tablePrefix(table) + key
    }

    /// The key of `table` a full etcd key holds, or nil when it is not one of the table's.
    func tableKey(_ fullKey: [UInt8], in table: String) -> ArraySlice<UInt8>? {
        let prefix = tablePrefix(table)
        guard fullKey.count >= prefix.count, fullKey[0 ..< prefix.count].elementsEqual(prefix) else { return nil }
        return fullKey[prefix.count...]
    }

    /// The table a full etcd key of a table record belongs to (its name unescaped), or nil when
    /// the key is not a table record's.
    func table(ofKey fullKey: [UInt8]) -> String? {
        let tables = root + [0x74, 0x2F]   // t/
        guard fullKey.count > tables.count, fullKey[0 ..< tables.count].elementsEqual(tables) else { return nil }
        var name: [UInt8] = []
        var rest = fullKey[tables.count...].prefix { $0 != 0x2F }
        // `%25` and `%2F` are the escapes tablePrefix writes.
        while let byte = rest.first {
            if byte == 0x25, rest.dropFirst().starts(with: [0x32, 0x35]) {
                name.append(0x25)
                rest = rest.dropFirst(3)
            } else if byte == 0x25, rest.dropFirst().starts(with: [0x32, 0x46]) {
                name.append(0x2F)
                rest = rest.dropFirst(3)
            } else {
                name.append(byte)
                rest = rest.dropFirst()
            }
        }
        return String(decoding: name, as: UTF8.self)
    }

    /// Every key of `table` begins with these bytes (the name escaped: `%` as `%25`, `/` as `%2F`).
    ///
    /// ```swift
    /// layout.tablePrefix("a/b")   // Array("music/t/a%2Fb/".utf8)
    /// ```
    public func tablePrefix(_ table: String) -> [UInt8] {
        root + [0x74, 0x2F] + Self.escaped(table) + [0x2F]   // t/<table>/
    }

    /// `table`'s name with `%` as `%25` and `/` as `%2F`: it holds no slash.
    static func escaped(_ table: String) -> [UInt8] {
        var bytes: [UInt8] = []
        for byte in table.utf8 {
            switch byte {
            case 0x25: bytes += [0x25, 0x32, 0x35]   // %25
            case 0x2F: bytes += [0x25, 0x32, 0x46]   // %2F
            default: bytes.append(byte)
            }
        }
        return bytes
    }

    /// The first key after every key that begins with `prefix` (etcd's `range_end` of a prefix):
    /// a range read from `prefix` before it reads every key under the prefix.
    ///
    /// ```swift
    /// EtcdKeyLayout.end(ofPrefix: Array("music/t/Song/".utf8))   // "music/t/Song0" (slash + 1)
    /// ```
    public static func end(ofPrefix prefix: [UInt8]) -> [UInt8] {
        var end = prefix
        while let last = end.last {
            if last < 0xFF {
                end[end.count - 1] = last + 1
                return end
            }
            end.removeLast()
        }
        return [0]   // every key: etcd's "\0" range end
    }

    /// Every staged chunk of every staged commit begins with these bytes.
    var stagingRoot: [UInt8] { root + [0x73, 0x2F] }   // s/

    /// The chunks of staged commit `id` begin with these bytes.
    func stagingPrefix(_ id: String) -> [UInt8] { stagingRoot + Array(id.utf8) + [0x2F] }

    /// The key of chunk `index` of staged commit `id`.
    func chunkKey(_ id: String, index: Int) -> [UInt8] {
        let hex = String(index, radix: 16)
        return stagingPrefix(id) + Array((String(repeating: "0", count: max(0, 8 - hex.count)) + hex).utf8)
    }

    /// Every commit record begins with these bytes.
    var commitRoot: [UInt8] { root + [0x63, 0x2F] }   // c/

    /// The key of the record that publishes staged commit `id`.
    func commitKey(_ id: String) -> [UInt8] { commitRoot + Array(id.utf8) }

    /// The key of the counter from which clients reserve rowIDs of `table` (8 bytes, big-endian:
    /// the first rowID nobody was given).
    ///
    /// ```swift
    /// layout.rowIDCounterKey("Song")   // "music/x/Song"
    /// ```
    public func rowIDCounterKey(_ table: String) -> [UInt8] {
        root + [0x78, 0x2F] + Self.escaped(table)   // x/
    }

    /// The key every save rewrites, whose revision tells a client whether another saved since
    /// it read.
    var saveKey: [UInt8] { root + [0x76] }   // v

    /// The staged commit id of a key under ``commitRoot`` or ``stagingRoot``, or nil.
    func commitID(of key: [UInt8]) -> String? {
        for root in [commitRoot, stagingRoot] where key.count > root.count && key[0 ..< root.count].elementsEqual(root) {
            let rest = key[root.count...]
            let id = rest.prefix { $0 != 0x2F }
            return id.isEmpty ? nil : String(decoding: id, as: UTF8.self)
        }
        return nil
    }
}
