// SnapshotBackend and SnapshotView against a model: random batches of puts, inserts and removes
// on an ordered and an unordered table commit while reads of older generations stay open; every
// open read must see exactly the state of its generation through every kind of read (point,
// multi-key, in place, scans, ranges both ways, the record holding a key, counts), the writer
// the newest, and once no read runs no commit's values are kept. SNAPSHOT_RANDOM_STEPS and
// SNAPSHOT_RANDOM_SEED set the run (the seed is printed on failure).

import Foundation
import LarderTestSupport
import Testing
@testable import Larder

@Suite struct SnapshotViewTests {
    static let environment = ProcessInfo.processInfo.environment
    static let steps = environment["SNAPSHOT_RANDOM_STEPS"].flatMap { Int($0) } ?? 3_000
    static let seed = environment["SNAPSHOT_RANDOM_SEED"].flatMap { UInt64($0) } ?? 0x5_1A95_0024

    typealias Tables = [String: [[UInt8]: [UInt8]]]

    private static let ordered = "t.idx"
    private static let unordered = "t"

    @Test func everyReadSeesTheStateOfItsGeneration() throws {
        var random = SplitMix(seed: Self.seed)
        let shared = SnapshotBackend(base: MemoryBackend())
        shared.declareOrderedTable(Self.ordered)
        var current: Tables = [Self.ordered: [:], Self.unordered: [:]]
        // The state of each generation; reads begin at the one last published (as a pool
        // publishes at the end of each write, which may make several commits).
        var states: [UInt64: Tables] = [0: current]
        var open: [(view: SnapshotView, expected: Tables)] = []
        for step in 0 ..< Self.steps {
            switch random.next(below: 10) {
            case 0 ..< 2 where open.count < 6:
                let generation = shared.beginRead()
                let expected = try #require(states[generation], "seed \(Self.seed) step \(step)")
                open.append((SnapshotView(shared: shared, generation: generation), expected))
            case 2 where !open.isEmpty:
                let ending = open.remove(at: Int(random.next(below: UInt64(open.count))))
                try check(ending.view, against: ending.expected, &random, step: step)
                shared.endRead(ending.view.generation)
            default:
                var batch = WriteBatch()
                for _ in 0 ..< 1 + random.next(below: 8) {
                    let table = random.next(below: 2) == 0 ? Self.ordered : Self.unordered
                    let key = Self.randomKey(&random)
                    switch random.next(below: 3) {
                    case 0:
                        batch.removeValue(forKey: key, in: table)
                        current[table]?[key] = nil
                    case 1 where current[table]?[key] == nil:
                        let value = [UInt8(step & 0xFF), 1]
                        value.withUnsafeBytes { value in key.withUnsafeBytes { batch.put(value, forKey: $0, in: table, isNew: true) } }
                        current[table]?[key] = value
                    default:
                        let value = [UInt8(step & 0xFF), UInt8(random.next(below: 256))]
                        batch.put(value, forKey: key, in: table)
                        current[table]?[key] = value
                    }
                }
                try shared.apply(batch)
                states[shared.generation] = current
                if random.next(below: 2) == 0 { shared.publish(shared.generation) }
            }
            if !open.isEmpty {
                let chosen = open[Int(random.next(below: UInt64(open.count)))]
                try check(chosen.view, against: chosen.expected, &random, step: step)
            }
            // The writer reads the newest state.
            let key = Self.randomKey(&random)
            try shared.readValue(forKey: key, in: Self.unordered) { value in
                #expect(value.map { Array($0) } == current[Self.unordered]?[key], "seed \(Self.seed) step \(step)")
            }
        }
        for (view, expected) in open {
            try check(view, against: expected, &random, step: Self.steps)
            shared.endRead(view.generation)
        }
        shared.publish(shared.generation)
        #expect(shared.keptUndoCount == 0)
    }

    @Test func undosAreKeptUntilNoReadCanNeedThem() throws {
        let shared = SnapshotBackend(base: MemoryBackend())
        var batch = WriteBatch()
        batch.put([1], forKey: [1], in: "t")
        try shared.apply(batch)
        // Not published yet: a read would begin at generation 0 and need the undo.
        #expect(shared.keptUndoCount == 1)
        #expect(shared.beginRead() == 0)
        shared.endRead(0)
        shared.publish(1)
        #expect(shared.keptUndoCount == 0)
        let generation = shared.beginRead()
        #expect(generation == 1)
        batch.put([2], forKey: [1], in: "t")
        try shared.apply(batch)
        shared.publish(2)
        #expect(shared.keptUndoCount == 1)
        let view = SnapshotView(shared: shared, generation: generation)
        try view.readValue(forKey: [1], in: "t") { #expect($0.map { Array($0) } == [1]) }
        #expect(throws: BackendError.readOnly) { try view.apply(batch) }
        shared.endRead(generation)
        #expect(shared.keptUndoCount == 0)
        #expect(shared.generation == 2)
    }

    private static func randomKey(_ random: inout SplitMix) -> [UInt8] {
        (0 ... random.next(below: 2)).map { _ in UInt8(random.next(below: 6)) }
    }

    private func check(_ view: SnapshotView, against expected: Tables, _ random: inout SplitMix, step: Int) throws {
        let context = "seed \(Self.seed) step \(step) generation \(view.generation)"
        for table in [Self.ordered, Self.unordered] {
            let state = expected[table] ?? [:]
            let keys = (0 ..< 4).map { _ in Self.randomKey(&random) }
            for key in keys {
                try view.readValue(forKey: key, in: table) { #expect($0.map { Array($0) } == state[key], "\(context)") }
            }
            var many: [[UInt8]?] = Array(repeating: nil, count: keys.count)
            try view.readValues(forKeys: keys, in: table) { position, value in many[position] = value.map { Array($0) } }
            #expect(many == keys.map { state[$0] }, "\(context)")
            _ = try view.withValuesInPlace(forKeys: keys, in: table) { values in
                #expect(values.map { Array($0) } == keys.map { state[$0] ?? [] }, "\(context)")
            }
            var scanned: [[UInt8]: [UInt8]] = [:]
            try view.forEachRecord(in: table) { key, value in
                #expect(scanned.updateValue(Array(value), forKey: Array(key)) == nil, "\(context): a key twice")
                return true
            }
            #expect(scanned == state, "\(context) \(table)")
            #expect(try view.recordCount(in: table) == state.count, "\(context) \(table)")
        }
        let state = expected[Self.ordered] ?? [:]
        let sorted = state.keys.sorted { $0.lexicographicallyPrecedes($1) }
        let start = random.next(below: 3) == 0 ? nil : Self.randomKey(&random)
        let end = random.next(below: 3) == 0 ? nil : Self.randomKey(&random)
        let inRange = sorted.filter { key in
            (start.map { !key.lexicographicallyPrecedes($0) } ?? true) && (end.map { !$0.lexicographicallyPrecedes(key) } ?? true)
        }
        for reverse in [false, true] {
            var seen: [[UInt8]] = []
            let limit = Int(random.next(below: 6))
            try view.forEachRecord(in: Self.ordered, from: start, through: end, reverse: reverse) { key, value in
                #expect(Array(value) == state[Array(key)], "\(context)")
                seen.append(Array(key))
                return limit == 0 || seen.count < limit
            }
            let wanted = reverse ? Array(inRange.reversed()) : inRange
            #expect(seen == (limit == 0 ? wanted : Array(wanted.prefix(limit))), "\(context) reverse \(reverse)")
        }
        let holding = Self.randomKey(&random)
        var held: [[UInt8]] = []
        try view.forEachRecord(in: Self.ordered, holding: holding, through: end) { key, _ in
            held.append(Array(key))
            return true
        }
        let first = sorted.last { !holding.lexicographicallyPrecedes($0) } ?? sorted.first
        let wantedHeld = first.map { first in
            sorted.filter { key in !key.lexicographicallyPrecedes(first) && (end.map { !$0.lexicographicallyPrecedes(key) } ?? true) }
        } ?? []
        #expect(held == wantedHeld, "\(context) holding \(holding)")
    }
}
