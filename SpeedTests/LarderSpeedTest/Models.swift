// The speed-test model, as a Larder user writes it.

import Larder

final class Song: StoredObject {
    @Stored var title = ""
    @Stored var seconds: UInt32 = 0

    override func writeContent(to buffer: inout DataBuffer) {
        buffer.write(title)
        buffer.write(seconds)
    }

    override func readContent(from buffer: inout DataBuffer, in store: Store) throws {
        title = try buffer.readString()
        seconds = try buffer.readUInt32()
    }
}

/// The same records as Playlist, its songs read as the natural `[Song]` (a fault per
/// reference), for the ComplexFetch phase that measures that spelling.
final class ArrayPlaylist: StoredObject {
    override class var storageName: String { "Playlist" }
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
}

final class Playlist: StoredObject {
    @Stored var title = ""
    /// Lazy: reading a playlist keeps its songs' rowIDs and makes an object only for the
    /// songs used (the recommended form for large ordered relationships).
    @Stored var songs: ReferenceList<Song> = []

    override func writeContent(to buffer: inout DataBuffer) {
        buffer.write(title)
        buffer.writeReferences(songs)
    }

    override func readContent(from buffer: inout DataBuffer, in store: Store) throws {
        title = try buffer.readString()
        songs = try buffer.readReferenceList(to: Song.self, in: store)
    }
}
