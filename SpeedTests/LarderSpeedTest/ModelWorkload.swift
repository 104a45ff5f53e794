// Model: the cost of @StoredModel (issue 25's target: within 10% of the hand-written Song on
// SimpleInsert and SimpleFetch). The same songs go into two stores, one of the hand-written Song
// and one of ModelSong, its @StoredModel twin (both stored as "Song"); then each is fetched whole
// as SimpleFetch does. MODEL_PHASES=insert_model,… runs only the phases named (each fetch needs
// the store its insert wrote), so that callgrind counts one phase per process.

import Foundation
import LarderModel
import SpeedSupport

/// Song, its fields stored by @StoredModel (tagged) instead of hand-written code.
@StoredModel
final class ModelSong: StoredObject {
    override class var storageName: String { "Song" }
    var title = ""
    var seconds: UInt32 = 0
}

/// What the Model workload does with either song class.
protocol SpeedSong: StoredObject {
    var title: String { get set }
    var seconds: UInt32 { get set }
}

extension Song: SpeedSong {}
extension ModelSong: SpeedSong {}

func model() throws {
    let selected = ProcessInfo.processInfo.environment["MODEL_PHASES"].map { Set($0.split(separator: ",").map(String.init)) }
    func runs(_ phase: String) -> Bool { selected?.contains(phase) ?? true }
    try modelVariant("handwritten", Song.self, runs: runs)
    try modelVariant("model", ModelSong.self, runs: runs)
}

/// The insert and fetch phases of one song class, in a store of its own.
private func modelVariant<S: SpeedSong>(_ variant: String, _ type: S.Type, runs: (String) -> Bool) throws {
    let path = (arguments.directory as NSString).appendingPathComponent("model_\(variant).larder")
    func open() throws -> Store {
        var configuration = Store.Configuration()
        configuration.durability = arguments.durability == "full" ? .full : .noSync
        configuration.encryptionKey = ProcessInfo.processInfo.environment["LARDER_ENCRYPTION_KEY"]
        let store = try Store(path: path, configuration: configuration)
        try store.register(type)
        return store
    }
    if runs("insert_\(variant)") {
        try? FileManager.default.removeItem(atPath: path)
        let store = try open()
        try reporter.measure(phase: "insert_\(variant)", storePath: path) {
            for i in 1 ... sizes.simpleSongs {
                let song = S()
                song.title = "Test Song"
                song.seconds = UInt32(i)
                try store.insert(song)
            }
            try store.saveChanges()
            return (try store.count(of: type), "Test Song")
        }
        try store.close()
    }
    if runs("fetch_\(variant)") {
        try reporter.measure(phase: "fetch_\(variant)", storePath: path) {
            let store = try open()
            let songs = try store.allObjects(of: type)
            var seconds: UInt64 = 0
            var titles = 0
            for song in songs {
                seconds += UInt64(song.seconds)
                titles += song.title.isEmpty ? 0 : 1
            }
            return (titles, "seconds_\(seconds)")
        }
    }
}
