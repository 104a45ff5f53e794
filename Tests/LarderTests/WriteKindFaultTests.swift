// Fault injection for every kind of write other than a save (named buffers, class registration,
// turning encryption on, rekey, rebuildTextIndex, the format upgrade): each write is failed at
// every file operation it performs in turn, and must either throw a StoreError or complete;
// a fresh open then finds the whole old state or the whole new one, and the write, retried,
// lands whole.

import Foundation
import Testing
@testable import Larder

/// A note whose indexed attribute a test renames, so that its index must be rebuilt. Only
/// ``WriteKindFaultTests`` uses it (the attribute is shared by the whole process).
final class RenamedAttributeNote: StoredObject {
    nonisolated(unsafe) static var attribute = "old"
    @Stored var body = ""

    convenience init(_ body: String) {
        self.init()
        self.body = body
    }

    override func writeContent(to buffer: inout DataBuffer) { buffer.write(body) }
    override func readContent(from buffer: inout DataBuffer, in store: Store) throws { body = try buffer.readString() }
    override func indexedText() -> [String: String] { [Self.attribute: body] }
}

@Suite struct WriteKindFaultTests {
    /// The writes a store makes outside `saveChanges()`.
    enum Kind: String, CaseIterable, CustomTestStringConvertible {
        case setDataBuffer, deleteDataBuffer, register, encryptOnOpen, rekey, rekeyToPlaintext, rebuildTextIndex, formatUpgrade

        var testDescription: String { rawValue }

        /// The key the store has before the write.
        var oldKey: String? { self == .rekey || self == .rekeyToPlaintext ? "old key" : nil }
        /// The key the store has after it.
        var newKey: String? {
            switch self {
            case .rekey, .encryptOnOpen: return "new key"
            case .rekeyToPlaintext: return nil
            default: return oldKey
            }
        }
    }

    private static func configuration(key: String?, durability: Store.Configuration.Durability = .full,
                                      readOnly: Bool = false) -> Store.Configuration {
        var configuration = Store.Configuration.quickKey(key)
        configuration.durability = durability
        configuration.readOnly = readOnly
        return configuration
    }

    /// Makes the store as it is before the write: a small library, a named buffer, and for
    /// the rebuild three notes indexed under the old attribute.
    private func prepare(_ kind: Kind, in directory: TemporaryDirectory) throws {
        let store = try Store(path: directory.path, configuration: Self.configuration(key: kind.oldKey, durability: .noSync))
        try store.register(Song.self)
        try store.register(Playlist.self)
        let (_, playlists) = try insertLibrary(into: store, songs: 10, perPlaylist: 5)
        var bookmark = DataBuffer()
        bookmark.write("old bookmark")
        bookmark.writeReference(playlists[0])
        try store.setDataBuffer(bookmark, forName: "bookmark")
        if kind == .rebuildTextIndex {
            RenamedAttributeNote.attribute = "old"
            try store.register(RenamedAttributeNote.self)
            for body in ["buy milk", "call mom", "milk the cow"] { try store.insert(RenamedAttributeNote(body)) }
            try store.saveChanges()
        }
        try store.close()
        if kind == .formatUpgrade {
            #expect(try rewriteAsFormat2(directory, passphrase: kind.oldKey) == ["Song": 10, "Playlist": 2])
        }
    }

    /// Opens the store durably and makes the write, with `injector` failing one of the write's
    /// file operations (none when nil).
    private func write(_ kind: Kind, in directory: TemporaryDirectory, failing injector: FaultInjector?) throws {
        let configuration = Self.configuration(key: kind == .encryptOnOpen ? kind.newKey : kind.oldKey)
        let backend = try TokyoCabinetBackend(path: directory.path, configuration: configuration.backend)
        defer { try? backend.close() }
        // Opening the store is the write itself for these two.
        let writesOnOpen = kind == .encryptOnOpen || kind == .formatUpgrade
        if writesOnOpen { backend.faultInjector = injector }
        let store = try Store(backend: backend, configuration: configuration)
        defer { try? store.close() }
        try store.register(Song.self)
        try store.register(Playlist.self)
        if kind == .rebuildTextIndex {
            RenamedAttributeNote.attribute = "new"
            try store.register(RenamedAttributeNote.self)
        }
        backend.faultInjector = injector
        defer { backend.faultInjector = nil }
        switch kind {
        case .setDataBuffer:
            var bookmark = DataBuffer()
            bookmark.write("new bookmark")
            bookmark.writeReference(try store.object(of: Playlist.self, rowID: 2))
            try store.setDataBuffer(bookmark, forName: "bookmark")
        case .deleteDataBuffer:
            try store.deleteDataBuffer(forName: "bookmark")
        case .register:
            try store.register(Artist.self)
        case .rekey, .rekeyToPlaintext:
            try store.rekey(to: kind.newKey, iterations: 1_000)
        case .rebuildTextIndex:
            try store.rebuildTextIndex(of: RenamedAttributeNote.self)
        case .encryptOnOpen, .formatUpgrade:
            break
        }
    }

    /// Everything the write may change, as a fresh reader sees it: the key that opens the
    /// store, its class registry, every object, every named buffer, text search results,
    /// `verify()`'s problems and, for the upgrade, every record of the class files as bytes.
    private func state(_ kind: Kind, of directory: TemporaryDirectory) throws -> [String] {
        // A writer's open finishes an interrupted commit (a reader refuses to): nothing else.
        let recovery = try TokyoCabinetBackend(path: directory.path, configuration: Self.configuration(key: nil).backend)
        var lines: [String] = []
        for table in ["Song", "Playlist"] where kind == .formatUpgrade {
            try recovery.forEachRecord(in: table) { key, value in
                lines.append("\(table) \(Array(key)): \(Array(value))")
                return true
            }
        }
        try recovery.close()
        lines.sort()   // file order is not state
        if kind == .rebuildTextIndex { RenamedAttributeNote.attribute = "new" }
        for key in [nil, "old key", "new key"] as [String?] {
            let store: Store
            do {
                store = try Store(path: directory.path, configuration: Self.configuration(key: key, readOnly: true))
            } catch StoreError.encryptionKeyRequired, StoreError.wrongEncryptionKey {
                continue
            } catch let StoreError.formatUpgradeRequired(version) {
                return lines + ["needs the upgrade from format \(version)"]
            }
            defer { try? store.close() }
            lines.append("opened with key \(key ?? "none")")
            return lines + (try contents(of: store, kind))
        }
        return lines + ["no key opens the store"]
    }

    private func contents(of store: Store, _ kind: Kind) throws -> [String] {
        var lines = store.records.map { "class \($0.key) \($0.value.classID)" }.sorted()
        try store.register(Song.self)
        try store.register(Playlist.self)
        lines += try store.allObjects(of: Song.self).map { "song \($0.rowID) \($0.title) \($0.seconds)" }
        lines += try store.allObjects(of: Playlist.self).map { "playlist \($0.rowID) \($0.title) \($0.songs.map(\.rowID))" }
        for name in try store.dataBufferNames() {
            var buffer = try #require(try store.dataBuffer(forName: name))
            let text = try buffer.readString()
            let reference = try buffer.readReference(to: Playlist.self, in: store)
            lines.append("buffer \(name): \(text) \(reference?.rowID ?? 0)")
        }
        if store.records["RenamedAttributeNote"] != nil {
            try store.register(RenamedAttributeNote.self)
            for attribute in ["old", "new"] {
                let found = try store.objects(of: RenamedAttributeNote.self, matchingText: "milk", forAttribute: attribute)
                lines.append("milk in \(attribute): \(found.map(\.rowID))")
            }
        }
        lines += try store.verify().problems.map { "problem \($0)" }.sorted()
        return lines
    }

    @Test(arguments: Kind.allCases)
    func aFailureAtAnyFileOperationLeavesTheOldStateOrTheNew(kind: Kind) throws {
        let sweep = try FaultSweep(
            prepare: {
                let directory = TemporaryDirectory("write-kind")
                try prepare(kind, in: directory)
                return directory
            },
            write: { try write(kind, in: $0, failing: $1) },
            state: { try state(kind, of: $0) }
        ).run()
        sweep.expectAllOrNothing(moreOperationsThan: 5)
        print("fault injection (\(kind)): \(sweep.outcomes.count) operations, \(sweep.outcomes.compactMap(\.failure).count) failed")
    }
}
