// ObjectState: a stored object's flags and its class's anchor, packed in one word; and the size
// that buys (a StoredObject adds 16 bytes to its header, so a Song takes a 64-byte chunk).

#if canImport(Glibc)
import Glibc
#endif
import LarderTestSupport
import Testing
@testable import Larder

/// A Song's fields and nothing more (the tests' Song also keeps playlists for its delete rule).
private final class PlainSong: StoredObject {
    @Stored var title = ""
    @Stored var seconds: UInt32 = 0
}

@Suite struct ObjectStateTests {
    @Test func aNewStateHasContentNoChangeAndNoAnchor() {
        let state = ObjectState()
        #expect(state.contains(ObjectState.hasContentBit))
        #expect(!state.contains(ObjectState.isDeletedBit))
        #expect(!state.contains(ObjectState.isLoadingContentBit))
        #expect(!state.contains(ObjectState.isBeingDeletedBit))
        #expect(state.pendingChange == .none)
        #expect(state.anchor == nil)
    }

    @Test func flagsPendingChangeAndAnchorDoNotDisturbEachOther() {
        let address = EntryAnchor.allocateMemory()
        defer { address.deallocate() }
        #expect(UInt(bitPattern: address) % UInt(EntryAnchor.alignment) == 0)
        var state = ObjectState()
        state.anchor = EntryAnchor(address: address)
        for change in [PendingChange.inserted, .updated, .deleted, .none] {
            state.pendingChange = change
            #expect(state.pendingChange == change)
            #expect(state.anchor?.address == address)
            #expect(state.contains(ObjectState.hasContentBit))
        }
        state.set(ObjectState.isLoadingContentBit, to: true)
        state.set(ObjectState.hasContentBit, to: false)
        state.set(ObjectState.isBeingDeletedBit, to: true)
        state.pendingChange = .updated
        #expect(state.anchor?.address == address)
        state.anchor = nil
        #expect(state.anchor == nil)
        #expect(state.contains(ObjectState.isLoadingContentBit))
        #expect(state.contains(ObjectState.isBeingDeletedBit))
        #expect(!state.contains(ObjectState.hasContentBit))
        #expect(!state.contains(ObjectState.isDeletedBit))
        #expect(state.pendingChange == .updated)
        state.set(ObjectState.isBeingDeletedBit, to: false)
        #expect(!state.contains(ObjectState.isBeingDeletedBit))
        #expect(state.contains(ObjectState.isLoadingContentBit))
    }

    @Test func anObjectReachesItsStoreAndEntryThroughTheAnchor() throws {
        let directory = TemporaryDirectory()
        let store = try directory.openStore()
        let song = Song(title: "So What", seconds: 545)
        #expect(song.store == nil)
        #expect(song.entry == nil)
        try store.insert(song)
        #expect(song.store === store)
        #expect(song.entry === (try store.entry(for: Song.self)))
        #expect(song.pendingChange == .inserted)
        #expect(song.hasContent)
        try store.saveChanges()
        #expect(song.pendingChange == .none)
        #expect(song.store === store)
        try store.delete(song)
        try store.saveChanges()
        #expect(song.isDeleted)
        #expect(song.store == nil)
        #expect(song.entry == nil)
        #expect(song.rowID == 1)
        #expect(song.title == "So What")
    }

    @Test func aFaultKeepsItsAnchorWhileItLoads() throws {
        let directory = TemporaryDirectory()
        do {
            let store = try directory.openStore()
            try store.insert(Song(title: "Blue in Green", seconds: 337))
            try store.saveChanges()
            try store.close()
        }
        let store = try directory.openStore()
        let playlist = Playlist()
        try store.insert(playlist)
        let fault = try #require(try store.reference(to: Song.self, rowID: 1))
        #expect(!fault.hasContent)
        #expect(fault.store === store)
        #expect(fault.title == "Blue in Green")
        #expect(fault.hasContent)
        #expect(fault.pendingChange == .none)
        #expect(fault.store === store)
        #expect(try store.object(of: Song.self, rowID: 1) === fault)
    }

    #if canImport(Glibc)
    @Test func aSongOfAStringAndAUInt32TakesASixtyFourByteChunk() throws {
        // 16 (header) + 8 (rowID) + 8 (state) + 16 (title) + 4 (seconds) = 52 bytes: a 64-byte
        // chunk, 56 of it usable (two pointers and five flag bytes made it 68, an 80-byte chunk).
        typealias UsableSize = @convention(c) (UnsafeMutableRawPointer?) -> Int
        let symbol = try #require(dlsym(dlopen(nil, RTLD_NOW), "malloc_usable_size"))
        let usableSize = unsafeBitCast(symbol, to: UsableSize.self)
        let song = PlainSong()
        let usable = withExtendedLifetime(song) { usableSize(Unmanaged.passUnretained(song).toOpaque()) }
        #expect(usable == 56)
    }
    #endif
}
