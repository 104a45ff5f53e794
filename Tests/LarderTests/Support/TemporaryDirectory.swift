// A store directory under the system temporary directory, removed when the test ends.

import Foundation
@testable import Larder

final class TemporaryDirectory {
    let path: String

    init(_ label: String = "store") {
        path = NSTemporaryDirectory() + "larder-tests-\(label)-\(UUID().uuidString)"
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// A store on this directory with the test model registered.
    func openStore(_ types: [StoredObject.Type] = [Song.self, Playlist.self]) throws -> Store {
        let store = try Store(path: path)
        for type in types {
            try store.register(type)
        }
        return store
    }

    func file(_ name: String) -> String {
        (path as NSString).appendingPathComponent(name)
    }
}

/// Builds `count` songs titled "Song i" with seconds i, and playlists of `perPlaylist`
/// consecutive songs, inserts the playlists (the songs come along) and saves.
@discardableResult
func insertLibrary(into store: Store, songs count: Int, perPlaylist: Int) throws -> (songs: [Song], playlists: [Playlist]) {
    let songs = (1 ... count).map { Song(title: "Song \($0)", seconds: UInt32($0)) }
    var playlists: [Playlist] = []
    for start in stride(from: 0, to: count, by: perPlaylist) {
        let playlist = Playlist()
        playlist.title = "Playlist \(playlists.count + 1)"
        playlist.songs = Array(songs[start ..< min(start + perPlaylist, count)])
        try store.insert(playlist)
        playlists.append(playlist)
    }
    try store.saveChanges()
    return (songs, playlists)
}
