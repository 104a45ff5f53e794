// The history tests' classes: Note keeps history and refers to a song; Memo keeps history in
// two versions of its class (MemoV1 writes version 1 records, Memo reads both); Ticket keeps
// history and has a unique index, so that a test can make a save fail.

@testable import Larder

final class Note: StoredObject {
    @Stored var text = ""
    @Stored var song: Song?

    override class var keepsHistory: Bool { true }

    convenience init(_ text: String) {
        self.init()
        self.text = text
    }

    override func writeContent(to buffer: inout DataBuffer) {
        buffer.write(text)
        buffer.writeReference(song)
    }

    override func readContent(from buffer: inout DataBuffer, in store: Store) throws {
        text = try buffer.readString()
        song = try buffer.readReference(to: Song.self, in: store)
    }
}

/// Version 1 of Memo: a title only.
final class MemoV1: StoredObject {
    @Stored var title = ""

    override class var storageName: String { "Memo" }
    override class var keepsHistory: Bool { true }

    override func writeContent(to buffer: inout DataBuffer) {
        buffer.write(title)
    }

    override func readContent(from buffer: inout DataBuffer, in store: Store) throws {
        title = try buffer.readString()
    }
}

/// Version 2 of Memo: a title and a priority; reads version 1 records with priority 0.
final class Memo: StoredObject {
    @Stored var title = ""
    @Stored var priority: UInt8 = 0

    override class var version: UInt8 { 2 }
    override class var keepsHistory: Bool { true }

    override func writeContent(to buffer: inout DataBuffer) {
        buffer.write(title)
        buffer.write(priority)
    }

    override func readContent(from buffer: inout DataBuffer, in store: Store) throws {
        title = try buffer.readString()
        priority = buffer.versionOfData >= 2 ? try buffer.readUInt8() : 0
    }
}

final class Ticket: StoredObject {
    @Stored var code: UInt64 = 0

    override class var keepsHistory: Bool { true }
    override class var indexes: [ObjectIndex] { [ObjectIndex(\Ticket.code, unique: true)] }

    convenience init(code: UInt64) {
        self.init()
        self.code = code
    }

    override func writeContent(to buffer: inout DataBuffer) {
        buffer.write(code)
    }

    override func readContent(from buffer: inout DataBuffer, in store: Store) throws {
        code = try buffer.readUInt64()
    }
}
