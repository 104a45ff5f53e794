// Where a test's store lives: a directory under the system temporary directory (removed when
// the test ends), or, for a test run against several backends, memory (a MemoryBackend that each
// open reopens, as a process reopening the directory would) or the etcd test cluster (a prefix
// of its own, which each open opens again).

import EtcdTestSupport
import Foundation
import LarderEtcd
import LarderTestSupport
@testable import Larder

final class TemporaryDirectory {
    let path: String
    /// The store's tables, when it lives in memory.
    private let memory: MemoryBackend?
    /// The store's key prefix, when it lives on the etcd test cluster.
    private let etcdPrefix: String?

    init(_ label: String = "store", backend: BackendKind = .tokyoCabinet) {
        path = NSTemporaryDirectory() + "larder-tests-\(label)-\(UUID().uuidString)"
        memory = backend == .memory ? MemoryBackend() : nil
        etcdPrefix = backend == .etcd ? "larder-tests-\(label)-\(UUID().uuidString)" : nil
    }

    /// The backend of a store in memory or on etcd (nil: the directory).
    private func backend() throws -> (any Backend)? {
        if let memory { return memory.reopened() }
        if let etcdPrefix { return try EtcdBackend(endpoints: EtcdCluster.shared.get().endpoints, prefix: etcdPrefix) }
        return nil
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// A store on this directory (or in its memory), opened with `configuration`.
    func store(configuration: Store.Configuration = .init()) throws -> Store {
        guard let backend = try backend() else { return try Store(path: path, configuration: configuration) }
        return try Store(backend: backend, configuration: configuration)
    }

    /// A store on this directory (or in its memory) with the test model registered.
    func openStore(_ types: [StoredObject.Type] = [Song.self, Playlist.self],
                   configuration: Store.Configuration = .init()) throws -> Store {
        let store = try store(configuration: configuration)
        for type in types {
            try store.register(type)
        }
        return store
    }

    /// A pool on this directory (or in its memory) with `types` registered.
    func openPool(_ types: [StoredObject.Type], configuration: Store.Configuration = .init(durability: .noSync),
                  maximumReaderCount: Int = StorePool.defaultMaximumReaderCount) throws -> StorePool {
        guard let backend = try backend() else {
            return try StorePool(path: path, configuration: configuration, classes: types, maximumReaderCount: maximumReaderCount)
        }
        return try StorePool(backend: backend, configuration: configuration, classes: types,
                             maximumReaderCount: maximumReaderCount)
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
