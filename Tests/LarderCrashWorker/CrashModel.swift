// The model the crash worker saves: triples of objects in three classes that refer to each
// other, and a counter. Every save keeps the invariant the parent test checks after a kill.
// CrashA has indexed text, so every save also writes the full-text index; CrashB and CrashC
// have object indexes (CrashC's unique), so every save writes those too. CrashC and CrashCounter
// keep history: every save appends versions (the counter's update, new and deleted C objects).

import Larder

final class CrashA: StoredObject {
    @Stored var value: UInt64 = 0
    @Stored var payload = ""
    @Stored var b: CrashB?
    @Stored var c: CrashC?

    override func writeContent(to buffer: inout DataBuffer) {
        buffer.write(value)
        buffer.write(payload)
        buffer.writeReference(b)
        buffer.writeReference(c)
    }

    override func readContent(from buffer: inout DataBuffer, in store: Store) throws {
        value = try buffer.readUInt64()
        payload = try buffer.readString()
        b = try buffer.readReference(to: CrashB.self, in: store)
        c = try buffer.readReference(to: CrashC.self, in: store)
    }

    override func indexedText() -> [String: String] { ["label": label] }

    /// Words chosen by the value, so the parent can search them: "gamma eta item42".
    var label: String {
        let words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta"]
        return "\(words[Int(value % 5)]) \(words[Int(value / 5 % 7)]) item\(value)"
    }
}

final class CrashB: StoredObject {
    @Stored var value: UInt64 = 0
    @Stored var a: CrashA?

    override class var indexes: [ObjectIndex] { [ObjectIndex(\CrashB.value), ObjectIndex(\CrashB.a, \CrashB.value)] }

    override func writeContent(to buffer: inout DataBuffer) {
        buffer.write(value)
        buffer.writeReference(a)
    }

    override func readContent(from buffer: inout DataBuffer, in store: Store) throws {
        value = try buffer.readUInt64()
        a = try buffer.readReference(to: CrashA.self, in: store)
    }
}

final class CrashC: StoredObject {
    @Stored var value: UInt64 = 0
    @Stored var b: CrashB?

    override class var indexes: [ObjectIndex] { [ObjectIndex(\CrashC.value, unique: true)] }
    override class var keepsHistory: Bool { true }

    override func writeContent(to buffer: inout DataBuffer) {
        buffer.write(value)
        buffer.writeReference(b)
    }

    override func readContent(from buffer: inout DataBuffer, in store: Store) throws {
        value = try buffer.readUInt64()
        b = try buffer.readReference(to: CrashB.self, in: store)
    }
}

/// The number of the last save, and the live A objects in insertion order.
final class CrashCounter: StoredObject {
    @Stored var saves: UInt64 = 0
    @Stored var live: [CrashA] = []

    override class var keepsHistory: Bool { true }

    override func writeContent(to buffer: inout DataBuffer) {
        buffer.write(saves)
        buffer.writeReferences(live)
    }

    override func readContent(from buffer: inout DataBuffer, in store: Store) throws {
        saves = try buffer.readUInt64()
        live = try buffer.readReferences(to: CrashA.self, in: store)
    }
}

let crashModel: [StoredObject.Type] = [CrashA.self, CrashB.self, CrashC.self, CrashCounter.self]
