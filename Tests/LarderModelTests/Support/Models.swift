// The @StoredModel classes the tests store: a song library like the README's, a class with a
// field of every supported type, and two versions of one class (the same storage name) for
// schema evolution.

import Foundation
import LarderModel

@StoredModel
final class Album: StoredObject {
    var title = ""
    var year: UInt16 = 0
}

@StoredModel
final class Song: StoredObject {
    var title = ""
    var seconds: UInt32 = 0
    var album: Album?
    var tags: [String] = []
    var songs: [Song] = []
    @NotStored var isPlaying = false

    /// Not stored: computed.
    var minutes: Double { Double(seconds) / 60 }

    convenience init(title: String, seconds: UInt32) {
        self.init()
        self.title = title
        self.seconds = seconds
    }
}

@StoredModel
final class EveryType: StoredObject {
    var flag = false
    var int8: Int8 = 0
    var uint8: UInt8 = 0
    var int16: Int16 = 0
    var uint16: UInt16 = 0
    var int32: Int32 = 0
    var uint32: UInt32 = 0
    var int64: Int64 = 0
    var uint64: UInt64 = 0
    var int = 0
    var uint: UInt = 0
    var float: Float = 0
    var double = 0.0
    var string = ""
    var data = Data()
    var date = Date(timeIntervalSinceReferenceDate: 0)
    var optionalInt: Int? = 5
    var optionalString: String?
    var optionalDate: Date?
    var numbers: [Int] = []
    var flags: [Bool] = []
    var blobs: [Data] = []
    var reference: Album?
    var references: [Album] = []
}

/// The first version of a class: fields a, b, c.
@StoredModel
final class EvolvingV1: StoredObject {
    override class var storageName: String { "Evolving" }
    var a = ""
    var b: Int = 0
    var c: Double = 0
}

/// The second version: c and a reordered, b removed, d added.
@StoredModel
final class EvolvingV2: StoredObject {
    override class var storageName: String { "Evolving" }
    var c: Double = 0
    var a = ""
    var d: [Int] = [7]
}

/// A @StoredModel class with indexes and full-text search: the class members the macro leaves
/// alone work as on any class.
@StoredModel
final class Track: StoredObject {
    override class var indexes: [ObjectIndex] { [ObjectIndex(\Track.seconds), ObjectIndex(\Track.album)] }
    var title = ""
    var seconds: UInt32 = 0
    var album: Album?

    override func indexedText() -> [String: String] { ["title": title] }
}

/// A hand-written class, stored beside the @StoredModel ones.
final class Note: StoredObject {
    @Stored var text = ""
    @Stored var song: Song?

    override func writeContent(to buffer: inout DataBuffer) {
        buffer.write(text)
        buffer.writeReference(song)
    }

    override func readContent(from buffer: inout DataBuffer, in store: Store) throws {
        text = try buffer.readString()
        song = try buffer.readReference(to: Song.self, in: store)
    }
}
