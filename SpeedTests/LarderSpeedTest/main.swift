// LarderSpeedTest: the speed-test workloads on Larder, one per run (see SpeedSupport); the BNR
// workloads also on an etcd cluster, by Larder (EtcdBackend) or by the raw etcd client
// replaying Larder's backend calls (EngineMode, RawEtcdRun).

import Foundation
import Larder
import LarderEtcd
import SpeedSupport

let engineMode: EngineMode = {
    guard let mode = EngineMode.fromEnvironment() else { exit(2) }
    return mode
}()
let arguments = SpeedArguments.parse(engine: "Larder")
let reporter = SpeedReporter(engine: engineMode.engineName, arguments: arguments)
let rawRun = engineMode.rawEndpoint.map(RawEtcdRun.init)
let sizes = arguments.sizes
let complexPath = (arguments.directory as NSString).appendingPathComponent("complex.larder")
let simplePath = (arguments.directory as NSString).appendingPathComponent("simple.larder")

/// The store at `path`: its files, or (the etcd engines, unless `onFiles`) its keys on etcd
/// (EngineMode.etcdPrefix), or the raw engine's TracingBackend for the path.
func openStore(_ path: String, playlists: StoredObject.Type = Playlist.self,
               encryptionKey: String? = ProcessInfo.processInfo.environment["LARDER_ENCRYPTION_KEY"],
               onFiles: Bool = false) throws -> Store {
    var configuration = Store.Configuration()
    configuration.durability = arguments.durability == "full" ? .full : .noSync
    // LARDER_ENCRYPTION_KEY measures the cost of per-record encryption on every workload.
    configuration.encryptionKey = encryptionKey
    let store: Store
    switch engineMode {
    case let .larderOnEtcd(endpoints) where !onFiles:
        store = try Store(backend: EtcdBackend(endpoints: endpoints, prefix: EngineMode.etcdPrefix(forStoreAt: path)),
                          configuration: configuration)
    case .rawEtcd where !onFiles:
        store = try Store(backend: try rawRun.orThrow().backend(forStoreAt: path), configuration: configuration)
    default:
        store = try Store(path: path, configuration: configuration)
    }
    try store.register(Song.self)
    try store.register(playlists)
    return store
}

func complexInsert() throws {
    let store = try openStore(complexPath)
    var total = Timing(wall: 0, cpu: 0, count: 0, check: "")
    for round in 1 ... sizes.complexRounds {
        let timing = try measure(phase: "round\(round)", storePath: complexPath) { try insertComplexRound(into: store) }
        total.wall += timing.wall
        total.cpu += timing.cpu
    }
    let playlists = try store.count(of: Playlist.self)
    total.count = try store.count(of: Song.self)
    total.check = "\(playlists)_playlists"
    if rawRun?.isPreparing != true { reporter.report("total", total, complexPath) }
    try store.close()
}

func complexFetch() throws {
    try fetchPlaylists(phase: "fetch", as: Playlist.self) { $0.songs.first }
    // The same playlists with their songs as `[Song]`: a fault per reference.
    try fetchPlaylists(phase: "fetchArray", as: ArrayPlaylist.self) { $0.songs.first }
}

/// Reads every playlist of the complex store as `type` and the title of each one's first song
/// (`firstSong`), in a store opened (and closed) for the phase.
func fetchPlaylists<P: StoredObject>(phase: String, as type: P.Type, firstSong: (P) -> Song?) throws {
    var store: Store?
    try measure(phase: phase, storePath: complexPath) {
        let opened = try openStore(complexPath, playlists: type)
        store = opened
        let playlists = try opened.allObjects(of: type)
        var firstTitle = ""
        for playlist in playlists {
            let title = firstSong(playlist)?.title ?? ""
            if firstTitle.isEmpty { firstTitle = title }
        }
        return (playlists.count, firstTitle)
    }
    try store?.close()
}

/// The same songs inserted into, then fetched from, a plaintext and an encrypted store; each
/// store is opened (and the key derived) before its phase's clock starts.
func encryption() throws {
    for (name, key) in [("plain", nil), ("encrypted", "speed test passphrase")] as [(String, String?)] {
        let path = (arguments.directory as NSString).appendingPathComponent("\(name).larder")
        let store = try openStore(path, encryptionKey: key)
        try reporter.measure(phase: "insert_\(name)", storePath: path) {
            try insertSongs(sizes.encryptionSongs, into: store)
        }
        try store.close()
        let reader = try openStore(path, encryptionKey: key)
        try reporter.measure(phase: "fetch_\(name)", storePath: path) {
            let songs = try reader.allObjects(of: Song.self)
            var seconds: UInt64 = 0
            for song in songs { seconds += UInt64(song.seconds) }
            return (songs.count, "seconds_\(seconds)")
        }
        try reader.close()
    }
}

/// Inserts `count` songs titled "Test Song" (seconds 1, 2, ...) into `store` in one save.
func insertSongs(_ count: Int, into store: Store) throws -> (count: Int, check: String) {
    for i in 1 ... count {
        let song = Song()
        song.title = "Test Song"
        song.seconds = UInt32(i)
        try store.insert(song)
    }
    try store.saveChanges()
    return (try store.count(of: Song.self), "Test Song")
}

func simpleInsert() throws {
    let store = try openStore(simplePath)
    try measure(phase: "insert", storePath: simplePath) {
        try insertSongs(sizes.simpleSongs, into: store)
    }
    try store.close()
}

func simpleFetch() throws {
    try measure(phase: "fetch", storePath: simplePath) {
        let store = try openStore(simplePath)
        let songs = try store.allObjects(of: Song.self)
        var seconds: UInt64 = 0
        var titles = 0
        for song in songs {
            seconds += UInt64(song.seconds)
            titles += song.title.isEmpty ? 0 : 1
        }
        return (titles, "seconds_\(seconds)")
    }
}

func simpleFetchStreaming() throws {
    try reporter.measure(phase: "fetch", storePath: simplePath) {
        let store = try openStore(simplePath)
        var seconds: UInt64 = 0
        var titles = 0
        try store.forEachObject(of: Song.self) { song in
            seconds += UInt64(song.seconds)
            titles += song.title.isEmpty ? 0 : 1
        }
        return (titles, "seconds_\(seconds)")
    }
}

func simpleUpdate() throws {
    let store = try openStore(complexPath)
    try measure(phase: "update", storePath: complexPath) {
        let total = try store.count(of: Song.self)
        var updated = 0
        for rowID in stride(from: 3, through: total, by: 3) {
            guard let song = try store.object(of: Song.self, rowID: UInt64(rowID)) else { continue }
            song.title = "Updated Song \(rowID)"
            updated += 1
        }
        try store.saveChanges()
        return (updated, "Updated_Song_3")
    }
    // Compaction is the files' (an etcd cluster compacts its history itself).
    if case .tokyoCabinet = engineMode { try measureCompaction(at: complexPath, store.compact) }
    try store.close()
}

/// Compacts the store at `path` after the last phase of its chain of workloads (every
/// update and delete done): a "compact" phase whose size is the store's size after, and
/// whose check is its size before.
func measureCompaction(at path: String, _ compact: () throws -> Void) throws {
    let before = SpeedReporter.size(of: path)
    try reporter.measure(phase: "compact", storePath: path) {
        try compact()
        return (before, "before_bytes_\(before)")
    }
}

func pointRead() throws {
    let store = try openStore(simplePath)
    let keys = pointReadKeys(count: sizes.pointReads, max: sizes.simpleSongs)
    // Larder has no read transactions: both phases run the same lookups, so they line up with
    // SQLite's "autocommit" and "transaction" phases.
    try readPoints(keys, in: store, phasePrefix: "")
    if case .tokyoCabinet = engineMode { try measureCompaction(at: simplePath, store.compact) }
    try store.close()
    if case .larderOnEtcd = engineMode {
        // The same lookups on the Tokyo Cabinet backend at the same scale, its songs inserted
        // before the clock starts: the baseline of point reads of cached pages.
        let filePath = (arguments.directory as NSString).appendingPathComponent("pointread-baseline.larder")
        let fileStore = try openStore(filePath, onFiles: true)
        _ = try insertSongs(sizes.simpleSongs, into: fileStore)
        try fileStore.close()
        let reader = try openStore(filePath, onFiles: true)
        try readPoints(keys, in: reader, phasePrefix: "tokyocabinet_")
        try reader.close()
    }
}

/// PointRead's two phases (`<prefix>autocommit`, `<prefix>transaction`): the songs of `keys` by rowID.
func readPoints(_ keys: [Int64], in store: Store, phasePrefix: String) throws {
    for phase in ["autocommit", "transaction"] {
        try measure(phase: phasePrefix + phase, storePath: simplePath) {
            var found = 0
            var titleBytes = 0
            for key in keys {
                if let song = try store.object(of: Song.self, rowID: UInt64(key)) {
                    found += 1
                    titleBytes += song.title.utf8.count
                }
            }
            return (found, "title_bytes_\(titleBytes)")
        }
    }
}

do {
    try FileManager.default.createDirectory(atPath: arguments.directory, withIntermediateDirectories: true)
    if engineMode.etcdEndpoints != nil && !EngineMode.etcdWorkloads.contains(arguments.workload) {
        FileHandle.standardError.write(Data("LarderSpeedTest: \(arguments.workload.rawValue) is not an etcd workload\n".utf8))
        exit(2)
    }
    // The raw engine's store of a fetch or an update is the one its chain's first workload
    // wrote: made again in memory, unmeasured, so that its phase's calls can be recorded.
    if let rawRun {
        rawRun.isPreparing = true
        switch arguments.workload {
        case .complexFetch, .simpleUpdate: try complexInsert()
        case .simpleFetch, .pointRead: try simpleInsert()
        default: break
        }
        rawRun.isPreparing = false
    }
    switch arguments.workload {
    case .complexInsert: try complexInsert()
    case .complexFetch: try complexFetch()
    case .simpleInsert: try simpleInsert()
    case .simpleFetch: try simpleFetch()
    case .simpleFetchStreaming: try simpleFetchStreaming()
    case .simpleUpdate: try simpleUpdate()
    case .pointRead: try pointRead()
    case .fullText: try fullText()
    case .documents: try documents()
    case .queries: try queries()
    case .encryption: try encryption()
    case .changes: try changes()
    case .concurrency: try concurrency()
    case .model: try model()
    }
} catch {
    FileHandle.standardError.write(Data("LarderSpeedTest: \(error)\n".utf8))
    exit(1)
}
