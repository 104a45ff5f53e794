// The classes the tool's tests make stores of. The tool never sees them: it reads the stores
// these tests write without any Swift class, as a user's shell would.

import Foundation
import Larder

final class Song: StoredObject {
    @Stored var title = ""
    @Stored var seconds: UInt32 = 0

    override class var indexes: [ObjectIndex] { [ObjectIndex(\Song.seconds)] }

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

final class Track: StoredObject {
    @Stored var title = ""
    @Stored var artist = ""

    convenience init(title: String, artist: String) {
        self.init()
        self.title = title
        self.artist = artist
    }

    override func writeContent(to buffer: inout DataBuffer) {
        buffer.write(title)
        buffer.write(artist)
    }

    override func readContent(from buffer: inout DataBuffer, in store: Store) throws {
        title = try buffer.readString()
        artist = try buffer.readString()
    }

    override func indexedText() -> [String: String] {
        ["title": title, "artist": artist]
    }
}
