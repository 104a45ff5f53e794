// The model the tests use: songs and ordered playlists as in BNRPersistence's speed tests,
// plus classes that exercise plain properties, versions and references of any class.

import Foundation
@testable import Larder

final class Song: StoredObject {
    @Stored var title = ""
    @Stored var seconds: UInt32 = 0
    /// Set by prepareForDelete: the playlists the song must leave.
    var playlistsToLeave: [Playlist] = []

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

    override func prepareForDelete() {
        for playlist in playlistsToLeave {
            playlist.songs.removeAll { $0 === self }
        }
    }
}

final class Playlist: StoredObject {
    @Stored var title = ""
    @Stored var songs: [Song] = []

    override func writeContent(to buffer: inout DataBuffer) {
        buffer.write(title)
        buffer.writeReferences(songs)
    }

    override func readContent(from buffer: inout DataBuffer, in store: Store) throws {
        title = try buffer.readString()
        songs = try buffer.readReferences(to: Song.self, in: store)
    }

    override func dissolveAllRelationships() {
        songs = []
    }
}

/// BNRPersistence style: plain properties, explicit fetchContent and willUpdate.
final class Artist: StoredObject {
    var name = ""
    var favorite: Song?

    override func writeContent(to buffer: inout DataBuffer) {
        buffer.write(name)
        buffer.writeReference(favorite)
    }

    override func readContent(from buffer: inout DataBuffer, in store: Store) throws {
        name = try buffer.readString()
        favorite = try buffer.readReference(to: Song.self, in: store)
    }
}

/// References objects of any registered class.
final class Bookmark: StoredObject {
    @Stored var label = ""
    @Stored var target: StoredObject?
    @Stored var extras: [StoredObject] = []

    override func writeContent(to buffer: inout DataBuffer) {
        buffer.write(label)
        buffer.writeAnyReference(target)
        buffer.writeAnyReferences(extras)
    }

    override func readContent(from buffer: inout DataBuffer, in store: Store) throws {
        label = try buffer.readString()
        target = try buffer.readAnyReference(in: store)
        extras = try buffer.readAnyReferences(in: store)
    }
}

/// Every DataBuffer type in one record.
final class Everything: StoredObject {
    @Stored var u8: UInt8 = 0
    @Stored var i64: Int64 = 0
    @Stored var int = 0
    @Stored var flag = false
    @Stored var float: Float = 0
    @Stored var double = 0.0
    @Stored var text = ""
    @Stored var optionalText: String?
    @Stored var data = Data()
    @Stored var date = Date(timeIntervalSinceReferenceDate: 1)
    @Stored var uuid = UUID()
    @Stored var blob: [UInt8] = []

    override func writeContent(to buffer: inout DataBuffer) {
        buffer.write(u8); buffer.write(i64); buffer.write(int); buffer.write(flag)
        buffer.write(float); buffer.write(double); buffer.write(text); buffer.write(optionalText)
        buffer.write(data); buffer.write(date); buffer.write(uuid); buffer.write(blob)
    }

    override func readContent(from buffer: inout DataBuffer, in store: Store) throws {
        u8 = try buffer.readUInt8(); i64 = try buffer.readInt64(); int = try buffer.readInt()
        flag = try buffer.readBool(); float = try buffer.readFloat(); double = try buffer.readDouble()
        text = try buffer.readString(); optionalText = try buffer.readOptionalString()
        data = try buffer.readData(); date = try buffer.readDate(); uuid = try buffer.readUUID()
        blob = try buffer.readBytes()
    }
}

/// Version 1 of a class whose version 2 adds a field; both use the storage name "Track".
class TrackV1: StoredObject {
    @Stored var title = ""
    override class var storageName: String { "Track" }
    override func writeContent(to buffer: inout DataBuffer) { buffer.write(title) }
    override func readContent(from buffer: inout DataBuffer, in store: Store) throws {
        title = try buffer.readString()
    }
}

final class TrackV2: StoredObject {
    @Stored var title = ""
    @Stored var rating: UInt8 = 0
    /// The versionOfData of the record this object was last read from.
    var readVersion: UInt8 = 0
    override class var storageName: String { "Track" }
    override class var version: UInt8 { 2 }
    override func writeContent(to buffer: inout DataBuffer) {
        buffer.write(title)
        buffer.write(rating)
    }
    override func readContent(from buffer: inout DataBuffer, in store: Store) throws {
        readVersion = buffer.versionOfData
        title = try buffer.readString()
        rating = buffer.versionOfData >= 2 ? try buffer.readUInt8() : 3
    }
}

/// Reads its record with a check that fails, to test decoding errors.
final class Strict: StoredObject {
    @Stored var value: UInt32 = 0
    override func writeContent(to buffer: inout DataBuffer) { buffer.write(value) }
    override func readContent(from buffer: inout DataBuffer, in store: Store) throws {
        value = try buffer.readUInt32()
    }
}

/// A linked list whose readContent reads the next node while decoding itself: a read of the
/// class inside a read of the class, usually from the same page.
final class ChainNode: StoredObject {
    @Stored var value: UInt32 = 0
    @Stored var next: ChainNode?
    /// The next node's value as seen while decoding.
    var nextValueWhenRead: UInt32?

    override func writeContent(to buffer: inout DataBuffer) {
        buffer.write(value)
        buffer.writeReference(next)
    }

    override func readContent(from buffer: inout DataBuffer, in store: Store) throws {
        value = try buffer.readUInt32()
        next = try buffer.readReference(to: ChainNode.self, in: store)
        nextValueWhenRead = next?.value
    }
}

/// Cascades its delete to its partner, the way an inverse relationship does, and can be told
/// to delete itself again from its own delete rule.
final class Partner: StoredObject {
    @Stored var name = ""
    @Stored var partner: Partner?
    /// Set by a test: the delete rule also deletes the object itself again.
    var deletesItselfAgain = false
    /// How many times the delete rule ran.
    var deleteRuleRuns = 0

    convenience init(name: String) {
        self.init()
        self.name = name
    }

    override func writeContent(to buffer: inout DataBuffer) {
        buffer.write(name)
        buffer.writeReference(partner)
    }

    override func readContent(from buffer: inout DataBuffer, in store: Store) throws {
        name = try buffer.readString()
        partner = try buffer.readReference(to: Partner.self, in: store)
    }

    override func prepareForDelete() {
        deleteRuleRuns += 1
        if deletesItselfAgain { try? store?.delete(self) }
        if let partner { try? store?.delete(partner) }
    }
}
