// Object queries against a brute-force oracle: 20,000 objects (`make query-random`; 5,000 in
// `make test`) with random values of every kind
// of IndexableValue (nils, NaN, -0, infinities, extreme integers, multi-byte and combining UTF-8,
// NUL bytes, references), 2,000 (500) random predicates with random orders, limits and offsets, each
// compared with a filter and sort of the test's own copy of the values: after the first save,
// after saved updates, deletes and inserts, with unsaved changes pending (queries read the saved
// state), and after a reopen. The oracle compares values itself (bytes for strings, numbers as
// numbers), never through the library's keys.

import Foundation
import Testing
@testable import Larder
import LarderTestSupport

/// What the random items reference.
final class RandomQueryTag: StoredObject {
    @Stored var label = ""

    convenience init(_ label: String) {
        self.init()
        self.label = label
    }

    override func writeContent(to buffer: inout DataBuffer) { buffer.write(label) }
    override func readContent(from buffer: inout DataBuffer, in store: Store) throws { label = try buffer.readString() }
}

/// A property of every kind of indexable value; some indexed (alone, or as the keys of compound
/// indexes), some not, so that queries both read indexes and scan.
final class RandomQueryItem: StoredObject {
    @Stored var int = 0                                 // indexed
    @Stored var tiny: Int8 = 0                          // not indexed
    @Stored var short: Int16 = 0                        // third key of (flag, maybeInt, short)
    @Stored var amount: UInt32 = 0                      // second key of (flag, amount)
    @Stored var big: UInt64 = 0                         // not indexed
    @Stored var real = 0.0                              // indexed
    @Stored var maybeReal: Double? = nil                // not indexed (nil and NaN)
    @Stored var single: Float = 0                       // not indexed
    @Stored var flag = false                            // first key of two compound indexes
    @Stored var name = ""                               // indexed, and second key of (tag, name)
    @Stored var nickname: String? = nil                 // indexed
    @Stored var blob = Data()                           // not indexed
    @Stored var date = Date(timeIntervalSinceReferenceDate: 0)   // indexed
    @Stored var uuid = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))   // not indexed
    @Stored var maybeInt: Int? = nil                    // indexed, and second key of (flag, maybeInt, short)
    @Stored var tag: RandomQueryTag? = nil              // first key of (tag, name)

    override class var indexes: [ObjectIndex] {
        [ObjectIndex(\RandomQueryItem.int),
         ObjectIndex(\RandomQueryItem.real),
         ObjectIndex(\RandomQueryItem.name),
         ObjectIndex(\RandomQueryItem.nickname),
         ObjectIndex(\RandomQueryItem.maybeInt),
         ObjectIndex(\RandomQueryItem.date),
         ObjectIndex(\RandomQueryItem.tag, \RandomQueryItem.name),
         ObjectIndex(\RandomQueryItem.flag, \RandomQueryItem.amount),
         ObjectIndex(\RandomQueryItem.flag, \RandomQueryItem.maybeInt, \RandomQueryItem.short)]
    }

    override func writeContent(to buffer: inout DataBuffer) {
        buffer.write(int)
        buffer.write(tiny)
        buffer.write(short)
        buffer.write(amount)
        buffer.write(big)
        buffer.write(real)
        buffer.write(maybeReal)
        buffer.write(single)
        buffer.write(flag)
        buffer.write(name)
        buffer.write(nickname)
        buffer.write(blob)
        buffer.write(date)
        buffer.write(uuid)
        buffer.write(maybeInt)
        buffer.writeReference(tag)
    }

    override func readContent(from buffer: inout DataBuffer, in store: Store) throws {
        int = try buffer.readInt()
        tiny = try buffer.readInt8()
        short = try buffer.readInt16()
        amount = try buffer.readUInt32()
        big = try buffer.readUInt64()
        real = try buffer.readDouble()
        maybeReal = try buffer.readOptionalDouble()
        single = try buffer.readFloat()
        flag = try buffer.readBool()
        name = try buffer.readString()
        nickname = try buffer.readOptionalString()
        blob = try buffer.readData()
        date = try buffer.readDate()
        uuid = try buffer.readUUID()
        maybeInt = try buffer.readOptionalInt()
        tag = try buffer.readReference(to: RandomQueryTag.self, in: store)
    }
}

// MARK: - The oracle's values

/// A property's value as the oracle sees it. One property always holds one kind (or none).
private enum OracleValue: CustomStringConvertible {
    case none
    case signed(Int64)
    case unsigned(UInt64)
    /// Double, Float (widened) and Date (its interval since the reference date).
    case real(Double)
    case bool(Bool)
    /// A String's UTF-8, a Data's bytes, a UUID's 16 bytes.
    case bytes([UInt8])
    /// A reference's rowID (0: an object in no store).
    case reference(UInt64)

    var isNone: Bool {
        if case .none = self { return true }
        return false
    }

    /// Whether ordered tests (<, <=, >, >=, between) can match it: not nil, not NaN.
    var isOrdered: Bool {
        switch self {
        case .none: return false
        case let .real(value): return !value.isNaN
        default: return true
        }
    }

    /// Equality as queries see it: nil equals nil, NaN equals NaN, -0 equals 0, strings by bytes.
    func same(_ other: OracleValue) -> Bool {
        switch (self, other) {
        case (.none, .none): return true
        case let (.signed(left), .signed(right)): return left == right
        case let (.unsigned(left), .unsigned(right)): return left == right
        case let (.real(left), .real(right)): return (left.isNaN && right.isNaN) || left == right
        case let (.bool(left), .bool(right)): return left == right
        case let (.bytes(left), .bytes(right)): return left == right
        case let (.reference(left), .reference(right)): return left == right
        default: return false
        }
    }

    /// The total order of sorting: nil first, then NaN, then numbers; bytes lexicographically;
    /// false before true; references by rowID.
    func precedes(_ other: OracleValue) -> Bool {
        switch (self, other) {
        case (.none, .none): return false
        case (.none, _): return true
        case (_, .none): return false
        case let (.signed(left), .signed(right)): return left < right
        case let (.unsigned(left), .unsigned(right)): return left < right
        case let (.real(left), .real(right)):
            if left.isNaN { return !right.isNaN }
            if right.isNaN { return false }
            return left < right
        case let (.bool(left), .bool(right)): return !left && right
        case let (.bytes(left), .bytes(right)): return left.lexicographicallyPrecedes(right)
        case let (.reference(left), .reference(right)): return left < right
        default: return false
        }
    }

    var description: String {
        switch self {
        case .none: return "nil"
        case let .signed(value): return "\(value)"
        case let .unsigned(value): return "\(value)"
        case let .real(value): return "\(value)"
        case let .bool(value): return "\(value)"
        case let .bytes(value): return "\(value)"
        case let .reference(value): return "ref \(value)"
        }
    }

    var signed: Int64? { if case let .signed(value) = self { return value } else { return nil } }
    var unsigned: UInt64? { if case let .unsigned(value) = self { return value } else { return nil } }
    var real: Double? { if case let .real(value) = self { return value } else { return nil } }
    var bool: Bool? { if case let .bool(value) = self { return value } else { return nil } }
    var bytes: [UInt8]? { if case let .bytes(value) = self { return value } else { return nil } }
    var text: String? { bytes.map { String(decoding: $0, as: UTF8.self) } }
}

/// One test of one property, as the oracle evaluates it.
private enum OracleTest {
    case equal(OracleValue)
    case notEqual(OracleValue)
    case less(OracleValue)
    case lessOrEqual(OracleValue)
    case greater(OracleValue)
    case greaterOrEqual(OracleValue)
    case between(OracleValue, OracleValue)
    case within([OracleValue])
    case hasPrefix(String)
    case isNil

    /// The documented semantics: ordered tests and prefixes never match nil (or NaN); == and
    /// != treat nil as a value.
    func passes(_ value: OracleValue) -> Bool {
        switch self {
        case let .equal(constant): return value.same(constant)
        case let .notEqual(constant): return !value.same(constant)
        case let .less(constant): return value.isOrdered && constant.isOrdered && value.precedes(constant)
        case let .lessOrEqual(constant): return value.isOrdered && constant.isOrdered && !constant.precedes(value)
        case let .greater(constant): return value.isOrdered && constant.isOrdered && constant.precedes(value)
        case let .greaterOrEqual(constant): return value.isOrdered && constant.isOrdered && !value.precedes(constant)
        case let .between(low, high):
            return value.isOrdered && low.isOrdered && high.isOrdered && !value.precedes(low) && !high.precedes(value)
        case let .within(constants): return constants.contains { value.same($0) }
        case let .hasPrefix(prefix):
            guard case let .bytes(bytes) = value else { return false }
            return bytes.starts(with: Array(prefix.utf8))
        case .isNil: return value.isNone
        }
    }
}

private indirect enum OracleNode {
    case leaf(field: Int, test: OracleTest)
    case and(OracleNode, OracleNode)
    case or(OracleNode, OracleNode)
    case not(OracleNode)

    /// The conditions of a top-level conjunction.
    var conjuncts: [(field: Int, test: OracleTest)] {
        switch self {
        case let .leaf(field, test): return [(field, test)]
        case let .and(left, right): return left.conjuncts + right.conjuncts
        case .or, .not: return []
        }
    }
}

/// The tags the items reference, by rowID (replaced after the reopen).
private final class TagBox {
    var byRowID: [UInt64: RandomQueryTag] = [:]
    var rowIDs: [UInt64] = []

    func add(_ tag: RandomQueryTag) {
        byRowID[tag.rowID] = tag
        rowIDs.append(tag.rowID)
    }
}

/// One property: how to read and write it, draw a random value, and build its predicates and
/// orders for the store.
private struct Field {
    let name: String
    let isOptional: Bool
    let isText: Bool
    let read: (RandomQueryItem) -> OracleValue
    let write: (RandomQueryItem, OracleValue) -> Void
    let random: (inout SplitMix) -> OracleValue
    let predicate: (OracleTest) -> ObjectPredicate<RandomQueryItem>
    let order: (_ descending: Bool) -> ObjectOrder<RandomQueryItem>

    init<Value: IndexableValue>(_ name: String, _ keyPath: ReferenceWritableKeyPath<RandomQueryItem, Value>,
                                wrap: @escaping (Value) -> OracleValue, unwrap: @escaping (OracleValue) -> Value,
                                random: @escaping (inout SplitMix) -> OracleValue,
                                isNil: ObjectPredicate<RandomQueryItem>? = nil,
                                hasPrefix: ((String) -> ObjectPredicate<RandomQueryItem>)? = nil) {
        self.name = name
        isOptional = isNil != nil
        isText = hasPrefix != nil
        read = { wrap($0[keyPath: keyPath]) }
        write = { $0[keyPath: keyPath] = unwrap($1) }
        self.random = random
        let path: KeyPath<RandomQueryItem, Value> = keyPath
        predicate = { test in
            switch test {
            case let .equal(value): return path == unwrap(value)
            case let .notEqual(value): return path != unwrap(value)
            case let .less(value): return path < unwrap(value)
            case let .lessOrEqual(value): return path <= unwrap(value)
            case let .greater(value): return path > unwrap(value)
            case let .greaterOrEqual(value): return path >= unwrap(value)
            case let .between(low, high): return .between(path, unwrap(low), unwrap(high))
            case let .within(values): return .in(path, values.map(unwrap))
            case let .hasPrefix(prefix):
                // Drawn only for strings.
                return hasPrefix?(prefix) ?? (path == unwrap(.none))
            case .isNil:
                // Drawn only for optionals.
                return isNil ?? (path != unwrap(.none))
            }
        }
        order = { $0 ? .descending(path) : .ascending(path) }
    }
}

// MARK: - Random values

private enum Draw {
    static let pieces = ["a", "b", "A", "z", "é", "e\u{301}", "ß", "日", "🎷", "\u{0}"]
    static let reals: [Double] = [-.infinity, -1e300, -100, -2.5, -1, -0.5, -Double.leastNonzeroMagnitude, -0.0, 0,
                                  .leastNonzeroMagnitude, 0.5, 1, 2.5, 3, .pi, 100, 1e300, .infinity]
    static let floats: [Float] = [-.infinity, -.greatestFiniteMagnitude, -1.5, -0.0, 0, 0.25, 1, 1.5, 3,
                                  .greatestFiniteMagnitude, .infinity]
    static let uuids: [UUID] = ["00000000-0000-0000-0000-000000000000", "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF",
                                "7FFFFFFF-0000-0000-0000-000000000001", "80000000-0000-0000-0000-000000000000",
                                "12345678-9ABC-DEF0-1234-56789ABCDEF0"].compactMap(UUID.init(uuidString:))
    static let blobBytes: [UInt8] = [0x00, 0x01, 0x7F, 0x80, 0xFF]

    static func int(_ range: ClosedRange<Int>, _ generator: inout SplitMix) -> Int {
        Int.random(in: range, using: &generator)
    }

    static func chance(_ percent: Int, _ generator: inout SplitMix) -> Bool {
        int(0 ... 99, &generator) < percent
    }

    static func element<T>(_ values: [T], _ generator: inout SplitMix) -> T {
        values[int(0 ... values.count - 1, &generator)]
    }

    static func text(_ maxPieces: Int, _ generator: inout SplitMix) -> String {
        (0 ..< int(0 ... maxPieces, &generator)).map { _ in element(pieces, &generator) }.joined()
    }

    static func real(_ generator: inout SplitMix) -> Double {
        chance(50, &generator) ? element(reals, &generator) : Double(int(-12 ... 12, &generator)) / 4
    }

    static func uuidBytes(_ uuid: UUID) -> [UInt8] {
        withUnsafeBytes(of: uuid.uuid) { Array($0) }
    }
}

private func makeFields(_ tags: TagBox) -> [Field] {
    [
        Field("int", \.int, wrap: { .signed(Int64($0)) }, unwrap: { Int($0.signed ?? 0) }, random: { generator in
            Draw.chance(3, &generator) ? .signed(Int64(Draw.element([Int.min, Int.max], &generator)))
                : .signed(Int64(Draw.int(-50 ... 50, &generator)))
        }),
        Field("tiny", \.tiny, wrap: { .signed(Int64($0)) }, unwrap: { Int8($0.signed ?? 0) }, random: { generator in
            Draw.chance(15, &generator) ? .signed(Int64(Draw.element([Int8.min, Int8.max, -100, 100], &generator)))
                : .signed(Int64(Draw.int(-4 ... 4, &generator)))
        }),
        Field("short", \.short, wrap: { .signed(Int64($0)) }, unwrap: { Int16($0.signed ?? 0) }, random: { generator in
            Draw.chance(10, &generator) ? .signed(Int64(Draw.element([Int16.min, Int16.max], &generator)))
                : .signed(Int64(Draw.int(-20 ... 20, &generator)))
        }),
        Field("amount", \.amount, wrap: { .unsigned(UInt64($0)) }, unwrap: { UInt32($0.unsigned ?? 0) }, random: { generator in
            Draw.chance(10, &generator) ? .unsigned(UInt64(Draw.element([UInt32.max, 1 << 31], &generator)))
                : .unsigned(UInt64(Draw.int(0 ... 60, &generator)))
        }),
        Field("big", \.big, wrap: { .unsigned($0) }, unwrap: { $0.unsigned ?? 0 }, random: { generator in
            Draw.chance(20, &generator) ? .unsigned(Draw.element([UInt64.max, 1 << 63, (1 << 63) - 1, 1 << 32], &generator))
                : .unsigned(UInt64(Draw.int(0 ... 25, &generator)))
        }),
        Field("real", \.real, wrap: { .real($0) }, unwrap: { $0.real ?? 0 }, random: { .real(Draw.real(&$0)) }),
        Field("maybeReal", \.maybeReal, wrap: { $0.map { .real($0) } ?? .none }, unwrap: { $0.real }, random: { generator in
            if Draw.chance(15, &generator) { return .none }
            if Draw.chance(5, &generator) { return .real(Draw.chance(50, &generator) ? .nan : -.nan) }
            return .real(Draw.real(&generator))
        }, isNil: .isNil(\.maybeReal)),
        Field("single", \.single, wrap: { .real(Double($0)) }, unwrap: { Float($0.real ?? 0) }, random: { generator in
            .real(Double(Draw.chance(40, &generator) ? Draw.element(Draw.floats, &generator)
                : Float(Draw.int(-8 ... 8, &generator)) / 2))
        }),
        Field("flag", \.flag, wrap: { .bool($0) }, unwrap: { $0.bool ?? false }, random: { .bool(Draw.chance(50, &$0)) }),
        Field("name", \.name, wrap: { .bytes(Array($0.utf8)) }, unwrap: { $0.text ?? "" }, random: { generator in
            .bytes(Array(Draw.text(3, &generator).utf8))
        }, hasPrefix: { .hasPrefix(\.name, $0) }),
        Field("nickname", \.nickname, wrap: { $0.map { .bytes(Array($0.utf8)) } ?? .none }, unwrap: { $0.text }, random: { generator in
            Draw.chance(30, &generator) ? .none : .bytes(Array(Draw.text(2, &generator).utf8))
        }, isNil: .isNil(\.nickname), hasPrefix: { .hasPrefix(\.nickname, $0) }),
        Field("blob", \.blob, wrap: { .bytes(Array($0)) }, unwrap: { Data($0.bytes ?? []) }, random: { generator in
            .bytes((0 ..< Draw.int(0 ... 3, &generator)).map { _ in Draw.element(Draw.blobBytes, &generator) })
        }),
        Field("date", \.date, wrap: { .real($0.timeIntervalSinceReferenceDate) },
              unwrap: { Date(timeIntervalSinceReferenceDate: $0.real ?? 0) }, random: { generator in
            .real(Draw.chance(5, &generator) ? -0.0 : Double(Draw.int(-6 ... 6, &generator)) * 86_400.5)
        }),
        Field("uuid", \.uuid, wrap: { .bytes(Draw.uuidBytes($0)) }, unwrap: { value in
            Draw.uuids.first { Draw.uuidBytes($0) == value.bytes } ?? Draw.uuids[0]
        }, random: { .bytes(Draw.uuidBytes(Draw.element(Draw.uuids, &$0))) }),
        Field("maybeInt", \.maybeInt, wrap: { $0.map { .signed(Int64($0)) } ?? .none }, unwrap: { $0.signed.map { Int($0) } },
              random: { generator in
            Draw.chance(25, &generator) ? .none : .signed(Int64(Draw.int(-10 ... 10, &generator)))
        }, isNil: .isNil(\.maybeInt)),
        Field("tag", \.tag, wrap: { $0.map { .reference($0.rowID) } ?? .none }, unwrap: { value in
            guard case let .reference(rowID) = value else { return nil }
            // rowID 0 (or one no tag has): an object in no store, equal to no reference.
            return tags.byRowID[rowID] ?? RandomQueryTag("detached")
        }, random: { generator in
            Draw.chance(15, &generator) ? .none : .reference(Draw.element(tags.rowIDs, &generator))
        }, isNil: .isNil(\.tag)),
    ]
}

// MARK: - The oracle

/// The saved objects, column by column, each value ranked in its property's order.
private struct Snapshot {
    /// Ascending.
    var rowIDs: [UInt64] = []
    var columns: [[OracleValue]] = []
    /// For each property and row, the position of its value among the property's distinct
    /// values in order (equal values share one).
    var ranks: [[Int]] = []
    /// For each property, one value per rank.
    var distinct: [[OracleValue]] = []

    init(_ saved: [UInt64: [OracleValue]], fieldCount: Int, excluding excluded: Set<UInt64> = []) {
        rowIDs = saved.keys.filter { !excluded.contains($0) }.sorted()
        for field in 0 ..< fieldCount {
            let column = rowIDs.map { saved[$0]?[field] ?? .none }
            let sorted = column.indices.sorted { column[$0].precedes(column[$1]) }
            var ranks = [Int](repeating: 0, count: column.count)
            var distinct: [OracleValue] = []
            for position in sorted {
                if let last = distinct.last, last.same(column[position]) {
                    ranks[position] = distinct.count - 1
                } else {
                    ranks[position] = distinct.count
                    distinct.append(column[position])
                }
            }
            columns.append(column)
            self.ranks.append(ranks)
            self.distinct.append(distinct)
        }
    }

    /// Which rows pass `node`.
    func evaluate(_ node: OracleNode) -> [Bool] {
        switch node {
        case let .leaf(field, test):
            let table = distinct[field].map(test.passes)
            return ranks[field].map { table[$0] }
        case let .and(left, right): return zip(evaluate(left), evaluate(right)).map { $0 && $1 }
        case let .or(left, right): return zip(evaluate(left), evaluate(right)).map { $0 || $1 }
        case let .not(inner): return evaluate(inner).map { !$0 }
        }
    }

    /// The rowIDs that pass, in order (nil first in both directions, ties by the next key, then
    /// by rowID): every one, and the page the offset and limit keep.
    func answer(_ query: RandomQuery) -> (all: [UInt64], page: [UInt64]) {
        let passing = query.node.map(evaluate) ?? [Bool](repeating: true, count: rowIDs.count)
        var all: [UInt64] = []
        if query.order.isEmpty {
            all = rowIDs.indices.filter { passing[$0] }.map { rowIDs[$0] }
        } else {
            // One sortable integer per row: 16 bits per sort key (its rank, reversed for
            // descending, nil 0 in both directions), then 16 bits of rowID.
            let sortKeys = query.order.map { field, descending in
                let nilRank = distinct[field].first?.isNone == true ? 0 : -1
                return ranks[field].map { rank -> UInt64 in
                    if !descending { return UInt64(rank) }
                    return rank == nilRank ? 0 : UInt64(0xFFFF - rank)
                }
            }
            var keys: [UInt64] = []
            for row in rowIDs.indices where passing[row] {
                var key: UInt64 = 0
                for position in 0 ..< 3 {
                    key <<= 16
                    if position < sortKeys.count { key |= sortKeys[position][row] }
                }
                keys.append(key << 16 | rowIDs[row])
            }
            keys.sort()
            all = keys.map { $0 & 0xFFFF }
        }
        let start = min(query.offset, all.count)
        let end = query.limit.map { min(start + $0, all.count) } ?? all.count
        return (all, Array(all[start ..< end]))
    }
}

private struct RandomQuery {
    var node: OracleNode?
    var order: [(field: Int, descending: Bool)]
    var limit: Int?
    var offset: Int
    var asksFirst: Bool
}

/// Counts of what the queries exercised.
private struct Coverage: CustomStringConvertible {
    var queries = 0, indexed = 0, inOrder = 0, countedFromIndex = 0, empty = 0, matched = 0, failures = 0
    /// Time in the oracle, and in the store's queries (objects, count, firstObject, explain).
    var oracleTime = Duration.zero, storeTime = Duration.zero

    var description: String {
        "\(queries) queries (\(indexed) through an index, \(inOrder) walking it in order, \(countedFromIndex) counted"
            + " from it, \(empty) empty, \(matched) matches), \(failures) failures; store \(storeTime), oracle \(oracleTime)"
    }
}

@Suite struct ObjectQueryRandomTests {
    // `make query-random` runs the issue's scale, 20,000 objects and 2,000 queries (about four
    // minutes in a debug build); `make test` runs a quarter of each. QUERY_RANDOM_SEED replays
    // a printed seed.
    static let environment = ProcessInfo.processInfo.environment
    static let seed: UInt64 = environment["QUERY_RANDOM_SEED"].flatMap { UInt64($0) } ?? 0x5EED_0B1E_C7_0001
    static let initialObjects = environment["QUERY_RANDOM_OBJECTS"].flatMap { Int($0) } ?? 5_000
    static let queriesPerPhase = (environment["QUERY_RANDOM_QUERIES"].flatMap { Int($0) } ?? 500) / 4

    @Test func queriesAgreeWithABruteForceFilterAndSortAcrossSavesAndAReopen() throws {
        let seed = Self.seed
        var generator = SplitMix(seed: seed)
        let directory = TemporaryDirectory("query-random")
        var store = try directory.openStore([RandomQueryTag.self, RandomQueryItem.self])
        let tags = TagBox()
        let fields = makeFields(tags)
        var coverage = Coverage()
        let clock = ContinuousClock()
        let started = clock.now
        var timings: [String] = []
        func lap(_ label: String, since: inout ContinuousClock.Instant) {
            timings.append("\(label) \(since.duration(to: clock.now))")
            since = clock.now
        }
        var lapStart = clock.now

        // The first save.
        for number in 0 ..< 12 {
            let tag = RandomQueryTag("tag \(number)")
            try store.insert(tag)
            tags.add(tag)
        }
        var saved: [UInt64: [OracleValue]] = [:]
        var live: [UInt64: RandomQueryItem] = [:]
        func insertItem() throws -> RandomQueryItem {
            let item = RandomQueryItem()
            for field in fields { field.write(item, field.random(&generator)) }
            try store.insert(item)
            return item
        }
        for _ in 0 ..< Self.initialObjects {
            let item = try insertItem()
            saved[item.rowID] = fields.map { $0.read(item) }
            live[item.rowID] = item
        }
        try store.saveChanges()
        lap("insert", since: &lapStart)
        var snapshot = Snapshot(saved, fieldCount: fields.count)
        lap("oracle", since: &lapStart)
        try runQueries("after the first save", store: store, snapshot: snapshot, fields: fields, live: live,
                       pending: [], generator: &generator, coverage: &coverage)
        lap("queries 1", since: &lapStart)

        // Saved updates (about 10%, references and nils too), deletes (5%), inserts and new tags.
        for number in 0 ..< 2 {
            let tag = RandomQueryTag("new tag \(number)")
            try store.insert(tag)
            tags.add(tag)
        }
        var rowIDs = saved.keys.sorted()
        for _ in 0 ..< Self.initialObjects / 10 {
            let rowID = Draw.element(rowIDs, &generator)
            guard let item = live[rowID] else { continue }
            for _ in 0 ..< Draw.int(1 ... 4, &generator) {
                let field = Draw.element(fields, &generator)
                field.write(item, field.random(&generator))
            }
            saved[rowID] = fields.map { $0.read(item) }
        }
        for _ in 0 ..< Self.initialObjects / 20 {
            let position = Draw.int(0 ... rowIDs.count - 1, &generator)
            let rowID = rowIDs.remove(at: position)
            if let item = live.removeValue(forKey: rowID) { try store.delete(item) }
            saved[rowID] = nil
        }
        for _ in 0 ..< 500 {
            let item = try insertItem()
            saved[item.rowID] = fields.map { $0.read(item) }
            live[item.rowID] = item
        }
        try store.saveChanges()
        snapshot = Snapshot(saved, fieldCount: fields.count)
        lap("changes", since: &lapStart)
        try runQueries("after saved updates, deletes and inserts", store: store, snapshot: snapshot, fields: fields,
                       live: live, pending: [], generator: &generator, coverage: &coverage)
        lap("queries 2", since: &lapStart)

        // Unsaved changes: queries still see the saved state (deleted objects left out).
        let unsavedTag = RandomQueryTag("unsaved tag")
        try store.insert(unsavedTag)
        tags.add(unsavedTag)
        rowIDs = saved.keys.sorted()
        var updated = Set<UInt64>(), deleted = Set<UInt64>(), inserted: [RandomQueryItem] = []
        for _ in 0 ..< Self.initialObjects / 20 {
            let rowID = Draw.element(rowIDs, &generator)
            guard let item = live[rowID] else { continue }
            for _ in 0 ..< Draw.int(1 ... 4, &generator) {
                let field = Draw.element(fields, &generator)
                field.write(item, field.random(&generator))
            }
            updated.insert(rowID)
        }
        for _ in 0 ..< Self.initialObjects / 50 {
            // Some of them updated first.
            let rowID = Draw.element(rowIDs, &generator)
            guard let item = live[rowID], !deleted.contains(rowID) else { continue }
            try store.delete(item)
            deleted.insert(rowID)
        }
        for _ in 0 ..< 300 { inserted.append(try insertItem()) }
        #expect(store.hasUnsavedChanges)
        snapshot = Snapshot(saved, fieldCount: fields.count, excluding: deleted)
        lap("unsaved changes", since: &lapStart)
        try runQueries("with unsaved changes", store: store, snapshot: snapshot, fields: fields, live: live,
                       pending: updated, generator: &generator, coverage: &coverage)
        lap("queries 3", since: &lapStart)
        try store.saveChanges()
        for rowID in updated where !deleted.contains(rowID) {
            if let item = live[rowID] { saved[rowID] = fields.map { $0.read(item) } }
        }
        for rowID in deleted {
            saved[rowID] = nil
            live[rowID] = nil
        }
        for item in inserted {
            saved[item.rowID] = fields.map { $0.read(item) }
        }

        // Reopened: every object read back from the files, none in memory.
        inserted = []
        live = [:]
        try store.close()
        store = try directory.openStore([RandomQueryTag.self, RandomQueryItem.self])
        tags.byRowID = [:]
        tags.rowIDs = []
        for tag in try store.allObjects(of: RandomQueryTag.self) { tags.add(tag) }
        #expect(tags.rowIDs.count == 15)
        snapshot = Snapshot(saved, fieldCount: fields.count)
        lap("reopen", since: &lapStart)
        try runQueries("after a reopen", store: store, snapshot: snapshot, fields: fields, live: nil,
                       pending: [], generator: &generator, coverage: &coverage)
        lap("queries 4", since: &lapStart)

        let report = try store.verify()
        #expect(report.isHealthy, "\(report.problems)")
        try store.close()
        lap("verify", since: &lapStart)
        print("ObjectQueryRandomTests seed \(seed): \(coverage), \(clock.now - started): \(timings.joined(separator: ", "))")

        // The queries tested something: indexes and scans, ordered walks, exact counts, hits.
        #expect(coverage.queries == 4 * Self.queriesPerPhase)
        let queries = coverage.queries
        #expect(coverage.indexed > queries / 10 && queries - coverage.indexed > queries / 10, "\(coverage)")
        #expect(coverage.inOrder > queries / 40 && coverage.countedFromIndex > queries / 40, "\(coverage)")
        #expect(coverage.empty < queries / 2 && coverage.matched > queries * 20, "\(coverage)")
    }

    // MARK: Queries

    private func randomQuery(_ snapshot: Snapshot, fields: [Field], generator: inout SplitMix) -> RandomQuery {
        func constant(_ field: Int) -> OracleValue {
            // Often a value some object has, so that equalities hit.
            if Draw.chance(70, &generator), !snapshot.rowIDs.isEmpty {
                return snapshot.columns[field][Draw.int(0 ... snapshot.rowIDs.count - 1, &generator)]
            }
            if fields[field].name == "tag", Draw.chance(10, &generator) { return .reference(0) }
            return fields[field].random(&generator)
        }
        func leaf() -> OracleNode {
            let field = Draw.int(0 ... fields.count - 1, &generator)
            var kinds = [0, 0, 0, 0, 1, 1, 2, 3, 4, 5, 6, 6, 7, 7]
            if fields[field].isText { kinds += [8, 8, 8] }
            if fields[field].isOptional { kinds += [9, 9] }
            let test: OracleTest
            switch Draw.element(kinds, &generator) {
            case 0: test = .equal(constant(field))
            case 1: test = .notEqual(constant(field))
            case 2: test = .less(constant(field))
            case 3: test = .lessOrEqual(constant(field))
            case 4: test = .greater(constant(field))
            case 5: test = .greaterOrEqual(constant(field))
            case 6: test = .between(constant(field), constant(field))
            case 7: test = .within((0 ..< Draw.int(0 ... 5, &generator)).map { _ in constant(field) })
            case 8:
                // A prefix of a value's Unicode scalars: "e" is a byte prefix of "e\u{301}" but not of "é".
                let scalars = Array((constant(field).text ?? "").unicodeScalars)
                var prefix = String.UnicodeScalarView()
                prefix.append(contentsOf: scalars.prefix(Draw.int(0 ... scalars.count, &generator)))
                test = .hasPrefix(String(prefix))
            default: test = .isNil
            }
            return .leaf(field: field, test: test)
        }
        func tree(_ depth: Int) -> OracleNode {
            guard depth > 0, Draw.chance(70, &generator) else { return leaf() }
            switch Draw.int(0 ... 9, &generator) {
            case 0 ... 3: return .and(tree(depth - 1), tree(depth - 1))
            case 4 ... 6: return .or(tree(depth - 1), tree(depth - 1))
            default: return .not(tree(depth - 1))
            }
        }
        var node: OracleNode?
        switch Draw.int(0 ... 99, &generator) {
        case 0 ... 2: node = nil
        case 3 ... 42:
            // A conjunction of leaves: what indexes answer.
            node = leaf()
            for _ in 0 ..< Draw.int(0 ... 2, &generator) { node = node.map { .and($0, leaf()) } }
        default: node = tree(Draw.int(0 ... 3, &generator))
        }
        var order: [(field: Int, descending: Bool)] = []
        let keyCount = Draw.element([0, 0, 1, 1, 1, 2, 2, 3], &generator)
        var candidates = Array(fields.indices)
        for position in 0 ..< keyCount {
            var field = Draw.element(candidates, &generator)
            if position == 0, Draw.chance(40, &generator) {
                // A key an index can be walked in: a conjunct's property, or the next key of a
                // compound index.
                let interesting = (node?.conjuncts.map(\.field) ?? [])
                    + ["amount", "maybeInt", "name", "int", "real", "date", "nickname"].compactMap { name in
                        fields.firstIndex { $0.name == name }
                    }
                field = Draw.element(interesting, &generator)
            }
            candidates.removeAll { $0 == field }
            order.append((field, Draw.chance(50, &generator)))
        }
        let limit: Int? = Draw.chance(40, &generator) ? nil : Draw.int(0 ... 50, &generator)
        let offset = Draw.chance(50, &generator) ? 0 : Draw.int(0 ... 30, &generator)
        return RandomQuery(node: node, order: order, limit: limit, offset: offset, asksFirst: Draw.chance(25, &generator))
    }

    private func storePredicate(_ node: OracleNode, _ fields: [Field]) -> ObjectPredicate<RandomQueryItem> {
        switch node {
        case let .leaf(field, test): return fields[field].predicate(test)
        case let .and(left, right): return storePredicate(left, fields) && storePredicate(right, fields)
        case let .or(left, right): return storePredicate(left, fields) || storePredicate(right, fields)
        case let .not(inner): return !storePredicate(inner, fields)
        }
    }

    /// Runs `queriesPerPhase` random queries and compares each with the oracle. `live` holds
    /// the instances queries must return (nil after the reopen); `pending` the objects changed
    /// and not saved, whose live values are not their saved ones.
    private func runQueries(_ phase: String, store: Store, snapshot: Snapshot, fields: [Field],
                            live: [UInt64: RandomQueryItem]?, pending: Set<UInt64>,
                            generator: inout SplitMix, coverage: inout Coverage) throws {
        // The oracle's sort keys hold 16 bits of rowID and of each rank.
        #expect(snapshot.rowIDs.last ?? 0 < 0xFFFF && snapshot.distinct.allSatisfy { $0.count < 0xFFFF })
        let rowPositions = Dictionary(uniqueKeysWithValues: snapshot.rowIDs.enumerated().map { ($1, $0) })
        let clock = ContinuousClock()
        for number in 0 ..< Self.queriesPerPhase {
            let query = randomQuery(snapshot, fields: fields, generator: &generator)
            let predicate = query.node.map { storePredicate($0, fields) }
            let order = query.order.map { fields[$0.field].order($0.descending) }
            var mark = clock.now
            let expected = snapshot.answer(query)
            coverage.oracleTime += mark.duration(to: clock.now)
            func describe() -> String {
                "seed \(Self.seed), \(phase), query \(number): where \(predicate?.summary ?? "every object")"
                    + " orderBy [\(order.map(\.summary).joined(separator: ", "))]"
                    + " limit \(query.limit.map(String.init) ?? "nil") offset \(query.offset)"
            }
            func fail(_ text: String) {
                coverage.failures += 1
                guard coverage.failures <= 20 else { return }
                Issue.record(Comment(rawValue: describe() + ": " + text))
            }

            mark = clock.now
            let found = try store.objects(of: RandomQueryItem.self, where: predicate, orderBy: order,
                                          limit: query.limit, offset: query.offset)
            coverage.storeTime += mark.duration(to: clock.now)
            let foundRowIDs = found.map(\.rowID)
            if foundRowIDs != expected.page {
                let first = zip(foundRowIDs, expected.page).enumerated().first { $1.0 != $1.1 }?.offset
                    ?? min(foundRowIDs.count, expected.page.count)
                fail("expected \(expected.page.count) objects, found \(foundRowIDs.count); first difference at \(first):"
                     + " expected \(Array(expected.page.dropFirst(first).prefix(6))), found \(Array(foundRowIDs.dropFirst(first).prefix(6)))")
            }
            // The store's instances (the live ones, with their unsaved changes), holding the
            // saved values the oracle tested.
            for (position, object) in found.enumerated() {
                if let live, live[object.rowID] !== object {
                    fail("result \(position) (rowID \(object.rowID)) is not the store's instance")
                    break
                }
                guard position < 3, !pending.contains(object.rowID), let row = rowPositions[object.rowID] else { continue }
                for (index, field) in fields.enumerated() where !field.read(object).same(snapshot.columns[index][row]) {
                    fail("rowID \(object.rowID) has \(field.name) \(field.read(object)), saved \(snapshot.columns[index][row])")
                }
            }
            if live == nil, let object = found.first, try store.object(of: RandomQueryItem.self, rowID: object.rowID) !== object {
                fail("the first result (rowID \(object.rowID)) is not the store's instance")
            }

            mark = clock.now
            if let predicate {
                let count = try store.count(of: RandomQueryItem.self, where: predicate)
                if count != expected.all.count { fail("count: expected \(expected.all.count), found \(count)") }
                if query.asksFirst {
                    let first = try store.firstObject(of: RandomQueryItem.self, where: predicate, orderBy: order)
                    if first?.rowID != expected.all.first {
                        fail("firstObject: expected \(expected.all.first.map(String.init) ?? "nil"), found \(first.map { String($0.rowID) } ?? "nil")")
                    }
                }
            }
            let plan = try store.explain(of: RandomQueryItem.self, where: predicate, orderBy: order, limit: query.limit)
            coverage.storeTime += mark.duration(to: clock.now)
            coverage.queries += 1
            if plan.index != nil { coverage.indexed += 1 }
            if plan.readsInOrder { coverage.inOrder += 1 }
            if plan.countsFromIndex { coverage.countedFromIndex += 1 }
            if expected.all.isEmpty { coverage.empty += 1 }
            coverage.matched += expected.all.count
        }
    }
}
