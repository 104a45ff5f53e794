// An import whose file operations fail, each in turn (FaultSweep): every failure leaves the
// store as empty as it was (pages written before the failure are invisible, and the retry
// removes them) or imported whole (the last batch rolled forward), and a retry of a failed
// import lands whole. The import writes in several batches here (40 records each).

import Foundation
import Testing
@testable import Larder

@Suite struct InterchangeFaultTests {
    @Test func aFailureAtAnyFileOperationOfAnImportLeavesTheStoreEmptyOrImported() throws {
        let text = try Self.sourceText()
        let sweep = try FaultSweep(
            prepare: {
                let directory = TemporaryDirectory("interchange-fault")
                try Store(path: directory.path).close()
                return directory
            },
            write: { directory, injector in
                let backend = try TokyoCabinetBackend(path: directory.path)
                defer { try? backend.close() }
                let store = try Store(backend: backend)
                backend.faultInjector = injector
                try store.importInterchange(reading: { JSONTextReader(bytes: text) }, batchRecords: 40)
            },
            state: { try Self.state(of: $0) }
        ).run()
        sweep.expectAllOrNothing(moreOperationsThan: 10)
        // The store's whole export is the file.
        let directory = TemporaryDirectory("interchange-fault-check")
        let store = try Store(path: directory.path)
        try store.importInterchange(reading: { JSONTextReader(bytes: text) }, batchRecords: 40)
        #expect(try InterchangeTests.exportText(of: store) == text)
        print("interchange import fault injection: \(sweep.outcomes.count) operations, \(sweep.outcomes.compactMap(\.failure).count) failed")
    }

    /// 150 songs (every seventh deleted) and two named buffers, exported.
    private static func sourceText() throws -> [UInt8] {
        let directory = TemporaryDirectory("interchange-fault-source", backend: .memory)
        let store = try directory.openStore([Song.self])
        let songs = (0 ..< 150).map { Song(title: "song \($0)", seconds: UInt32($0)) }
        for song in songs { try store.insert(song) }
        try store.saveChanges()
        for song in songs where song.rowID % 7 == 0 { try store.delete(song) }
        try store.saveChanges()
        try store.setDataBuffer(DataBuffer(bytes: [1, 2, 3]), forName: "a")
        try store.setDataBuffer(DataBuffer(bytes: [4]), forName: "b")
        return try InterchangeTests.exportText(of: store)
    }

    /// What a fresh writer's open finds: the registry, every object's record, the named buffers,
    /// and what verify() finds once the class is registered.
    private static func state(of directory: TemporaryDirectory) throws -> [String] {
        let store = try Store(path: directory.path)
        defer { try? store.close() }
        var lines: [String] = []
        for registered in try store.registryEntries() {
            lines.append("class \(registered.name) \(registered.classID) \(registered.nextRowID) \(registered.deletedRowIDs)")
            try store.forEachRawRecord(ofClassNamed: registered.name) { lines.append("\($0.rowID) \($0.version) \($0.content)") }
        }
        for name in try store.dataBufferNames() {
            lines.append("buffer \(name) \(try store.dataBuffer(forName: name)?.bytes ?? [])")
        }
        if !store.records.isEmpty {
            try store.register(Song.self)
            lines += try store.verify().problems.map { "problem \($0)" }
        }
        return lines
    }
}
