// Where a test's store lives (a directory removed when the test ends), and the stores the tests
// make: a music library of objects, a few tracks with full-text search, a document store.

import Foundation
import Larder
import LarderDocuments

final class TestStore {
    let path: String

    init(_ label: String = "tool") {
        path = NSTemporaryDirectory() + "larder-tool-tests-\(label)-\(UUID().uuidString)"
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    func file(_ name: String) -> String {
        (path as NSString).appendingPathComponent(name)
    }

    /// A store with `songs` songs ("Song i", i seconds), playlists of 10, a named buffer
    /// "greeting" ("hello") and, with `passphrase`, encrypted.
    @discardableResult
    func makeLibrary(songs count: Int = 30, passphrase: String? = nil) throws -> [Song] {
        var configuration = Store.Configuration(durability: .noSync, encryptionKey: passphrase)
        configuration.keyDerivationIterations = 1_000
        let store = try Store(path: path, configuration: configuration)
        try store.register(Song.self)
        try store.register(Playlist.self)
        let songs = (1 ... count).map { Song(title: "Song \($0)", seconds: UInt32($0)) }
        for start in stride(from: 0, to: count, by: 10) {
            let playlist = Playlist()
            playlist.title = "Playlist \(start / 10 + 1)"
            playlist.songs = Array(songs[start ..< min(start + 10, count)])
            try store.insert(playlist)
        }
        try store.saveChanges()
        var greeting = DataBuffer()
        greeting.write("hello")
        try store.setDataBuffer(greeting, forName: "greeting")
        try store.close()
        return songs
    }

    /// A store of tracks with a full-text index of their titles and artists.
    func makeTracks() throws {
        let store = try Store(path: path, configuration: .init(durability: .noSync))
        try store.register(Track.self)
        for (title, artist) in [("Blue in Green", "Miles Davis"), ("Bluebird", "Charlie Parker"),
                                ("Café Blue", "Patricia Barber"), ("So What", "Miles Davis")] {
            try store.insert(Track(title: title, artist: artist))
        }
        try store.saveChanges()
        try store.close()
    }

    /// A document store with a collection "people" (indexes on [age] and a unique [email],
    /// an alias) of four people.
    func makePeople(passphrase: String? = nil) throws {
        var configuration = Store.Configuration(durability: .noSync, encryptionKey: passphrase)
        configuration.keyDerivationIterations = 1_000
        let store = try DocumentStore(path: path, configuration: configuration)
        let people = try store.collection("people")
        try people.addIndex("[age]")
        try people.addUniqueIndex("[email]")
        try people.setAliases(["country": "[address.country]"])
        for (name, age, country) in [("Ada", 36, "UK"), ("Alan", 41, "UK"), ("Grace", 85, "US"), ("Linus", 28, "FI")] {
            _ = try people.insert(["name": .string(name), "age": .int(Int64(age)), "email": .string("\(name.lowercased())@example.com"),
                                   "address": ["country": .string(country)]])
        }
        try store.close()
    }
}
