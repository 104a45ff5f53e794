// The model of the pool tests: a counter and a log with one entry per save, which every save
// changes together (the counter's value is the number of entries), so that a read that saw part
// of a save, or two saves' states at once, finds the two out of step.

@testable import Larder

final class Counter: StoredObject {
    @Stored var value = 0

    override func writeContent(to buffer: inout DataBuffer) {
        buffer.write(Int64(value))
    }

    override func readContent(from buffer: inout DataBuffer, in store: Store) throws {
        value = Int(try buffer.readInt64())
    }
}

final class CounterLog: StoredObject {
    @Stored var number = 0

    convenience init(number: Int) {
        self.init()
        self.number = number
    }

    override func writeContent(to buffer: inout DataBuffer) {
        buffer.write(Int64(number))
    }

    override func readContent(from buffer: inout DataBuffer, in store: Store) throws {
        number = Int(try buffer.readInt64())
    }
}

/// What a read of the pool model saw.
struct CounterState: Sendable, Equatable {
    var value: Int
    var logCount: Int
    var lastLogNumber: Int?
    var sequence: UInt64

    /// Reads the counter (rowID 1), the log's count and its entry `value` (which must be the
    /// last: none after it), and the store's sequence number.
    static func read(from store: Store) throws -> CounterState {
        let value = try store.object(of: Counter.self, rowID: 1)?.value ?? 0
        let count = try store.count(of: CounterLog.self)
        let last = value > 0 ? try store.object(of: CounterLog.self, rowID: RowID(value))?.number : nil
        let beyond = try store.object(of: CounterLog.self, rowID: RowID(value + 1))
        return CounterState(value: value, logCount: beyond == nil ? count : -1, lastLogNumber: last,
                            sequence: store.changeSequence)
    }

    /// Sets the counter to one more and logs it: one save changes both classes.
    static func increment(in store: Store) throws -> Int {
        let counter: Counter
        if let existing = try store.object(of: Counter.self, rowID: 1) {
            counter = existing
        } else {
            counter = Counter()
            try store.insert(counter)
        }
        counter.value += 1
        try store.insert(CounterLog(number: counter.value))
        return counter.value
    }
}

/// A song indexed by its length, for reads of an index while commits land.
final class TimedSong: StoredObject {
    @Stored var title = ""
    @Stored var seconds: UInt32 = 0

    override class var indexes: [ObjectIndex] { [ObjectIndex(\TimedSong.seconds)] }

    convenience init(title: String, seconds: UInt32) {
        self.init()
        self.title = title
        self.seconds = seconds
    }

    override func writeContent(to buffer: inout DataBuffer) {
        buffer.write(title)
        buffer.write(seconds)
    }

    override func readContent(from buffer: inout DataBuffer, in store: Store) throws {
        title = try buffer.readString()
        seconds = try buffer.readUInt32()
    }
}
