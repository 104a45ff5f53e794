// Named data buffers: bookmarks written at once, outside the unit of work.

import Foundation
import LarderTestSupport
import Testing
@testable import Larder

@Suite struct NamedBufferTests {
    @Test(arguments: BackendKind.withEtcd) func namedBuffersAreWrittenAtOnceAndSurviveReopening(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory(backend: backend)
        do {
            let store = try directory.openStore()
            let (_, playlists) = try insertLibrary(into: store, songs: 20, perPlaylist: 10)
            var bookmark = DataBuffer()
            bookmark.write("last played")
            bookmark.writeReference(playlists[1])
            try store.setDataBuffer(bookmark, forName: "current")
            var other = DataBuffer()
            other.write(UInt32(7))
            try store.setDataBuffer(other, forName: "volume")
            try store.setDataBuffer(DataBuffer(), forName: "empty")
            store.discardChanges()   // named buffers are not part of the unit of work
            try store.close()
        }
        let store = try directory.openStore()
        #expect(try store.dataBufferNames() == ["current", "empty", "volume"])
        var bookmark = try #require(try store.dataBuffer(forName: "current"))
        #expect(try bookmark.readString() == "last played")
        let playlist = try #require(try bookmark.readReference(to: Playlist.self, in: store))
        #expect(playlist.title == "Playlist 2")
        #expect(try store.dataBuffer(forName: "empty")?.bytes == [])
        #expect(try store.dataBuffer(forName: "missing") == nil)
        try store.deleteDataBuffer(forName: "volume")
        try store.deleteDataBuffer(forName: "never there")
        #expect(try store.dataBufferNames() == ["current", "empty"])
        #expect(throws: StoreError.invalidBufferName("")) { try store.setDataBuffer(DataBuffer(), forName: "") }
    }

    @Test(arguments: BackendKind.withEtcd) func replacingANamedBufferKeepsTheLatest(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory(backend: backend)
        let store = try directory.openStore([])
        for value in UInt64(1) ... 5 {
            var buffer = DataBuffer()
            buffer.write(value)
            try store.setDataBuffer(buffer, forName: "counter")
        }
        var buffer = try #require(try store.dataBuffer(forName: "counter"))
        #expect(try buffer.readUInt64() == 5)
        #expect(try store.dataBufferNames() == ["counter"])
    }
}
