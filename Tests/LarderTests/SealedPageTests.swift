// Pages written whole: an encrypted store of format 3, whose records were sealed one by one, is
// sealed whole (format 4) by the first writer that opens it, a plaintext store of format 4 is
// checked whole (format 5), and both are read as they are by a reader; a record damaged before
// the upgrade stays reported as damaged after it; a sealed page means nothing to a store
// without its key, a checked (plaintext) page nothing to an encrypted store.

import Foundation
import Testing
@testable import Larder

@Suite struct SealedPageTests {
    private static let key = "sealed pages"

    private func open(_ directory: TemporaryDirectory, key: String? = SealedPageTests.key, readOnly: Bool = false) throws -> Store {
        let store = try Store(path: directory.path, configuration: .quickKey(key, readOnly: readOnly))
        try store.register(Song.self)
        try store.register(Playlist.self)
        return store
    }

    /// A store of 40 songs in 4 playlists, turned back into format 3.
    private func format3Store() throws -> TemporaryDirectory {
        let directory = TemporaryDirectory("sealed")
        let store = try open(directory)
        try insertLibrary(into: store, songs: 40, perPlaylist: 10)
        try store.close()
        try rewriteAsFormat3(directory, passphrase: Self.key)
        return directory
    }

    private func storedFormat(_ store: Store) throws -> UInt64? {
        try store.backend.withValue(forKey: Store.formatKey, in: Store.metadataTable) { value in
            guard let value else { return nil }
            var buffer = try store.openMetadata(value, key: Store.formatKey.withUnsafeBytes { UnsafeRawBufferPointer($0) }, name: "format")
            return try buffer.readVarInt()
        }
    }

    @Test func aFormat3EncryptedStoreIsSealedWholeByItsFirstWriter() throws {
        let directory = try format3Store()
        do {
            let reader = try open(directory, readOnly: true)
            let pages = try RawRecords(reader, "Song").pages()
            #expect(pages.count == 2 && pages.values.allSatisfy { $0.first == RecordPage.format })
            #expect(try RawRecords(reader, "Song").all().values.allSatisfy { $0.first == 0x03 })
            #expect(try reader.object(of: Song.self, rowID: 5)?.title == "Song 5")
            #expect(try reader.count(of: Song.self) == 40)
            try reader.close()
        }
        let writer = try open(directory)
        for table in ["Song", "Playlist"] {
            let pages = try RawRecords(writer, table).pages()
            #expect(!pages.isEmpty && pages.values.allSatisfy { $0.first == PageSeal.format }, "\(table)")
        }
        #expect(try storedFormat(writer) == Store.formatVersion)
        #expect(try writer.allObjects(of: Song.self).map(\.title) == (1 ... 40).map { "Song \($0)" })
        #expect(try writer.object(of: Playlist.self, rowID: 2)?.songs.count == 10)
        #expect(try writer.verify().isHealthy)
    }

    @Test func aRecordDamagedBeforeTheUpgradeIsStillReportedAfterIt() throws {
        let directory = try format3Store()
        do {
            let backend = try TokyoCabinetBackend(path: directory.path)
            var record = try #require(try RawRecords(backend: backend, table: "Song").record(5))
            record[record.count - 1] ^= 0x01   // a bit of its tag
            try RawRecords(backend: backend, table: "Song").write([5: record])
            try backend.close()
        }
        let store = try open(directory)
        #expect(try RawRecords(store, "Song").pages().values.allSatisfy { $0.first == PageSeal.format })
        #expect(throws: StoreError.corruptRecord(class: "Song", rowID: 5)) { _ = try store.object(of: Song.self, rowID: 5) }
        #expect(try store.object(of: Song.self, rowID: 6)?.title == "Song 6")
        #expect(try store.verify().problems == [.corruptRecord(class: "Song", rowID: 5)])
        // The page takes further saves; the damaged record is kept as it is until replaced.
        try store.object(of: Song.self, rowID: 6)?.title = "Six"
        try store.saveChanges()
        #expect(throws: StoreError.corruptRecord(class: "Song", rowID: 5)) { _ = try store.object(of: Song.self, rowID: 5) }
        #expect(try store.object(of: Song.self, rowID: 6)?.title == "Six")
    }

    @Test func aFormat4PlaintextStoreIsCheckedWholeByItsFirstWriter() throws {
        let directory = TemporaryDirectory("sealed")
        do {
            let store = try open(directory, key: nil)
            try insertLibrary(into: store, songs: 40, perPlaylist: 10)
            try store.close()
        }
        try rewriteAsFormat3(directory, passphrase: nil, format: 4)
        do {
            let reader = try open(directory, key: nil, readOnly: true)
            #expect(try RawRecords(reader, "Song").pages().values.allSatisfy { $0.first == RecordPage.format })
            #expect(try RawRecords(reader, "Song").all().values.allSatisfy { $0.first == 0x02 })
            #expect(try reader.count(of: Song.self) == 40)
            try reader.close()
        }
        let writer = try open(directory, key: nil)
        for table in ["Song", "Playlist"] {
            let pages = try RawRecords(writer, table).pages()
            #expect(!pages.isEmpty && pages.values.allSatisfy { $0.first == PageCheck.format }, "\(table)")
        }
        #expect(try RawRecords(writer, "Song").all().values.allSatisfy { $0.first == 0x01 })
        #expect(try storedFormat(writer) == Store.formatVersion)
        #expect(try writer.allObjects(of: Song.self).map(\.title) == (1 ... 40).map { "Song \($0)" })
        #expect(try writer.verify().isHealthy)
    }

    @Test func aCheckedPageInAnEncryptedStoreIsDamage() throws {
        let plain = TemporaryDirectory("sealed")
        let checkedPage: [UInt8]
        do {
            let store = try open(plain, key: nil)
            try insertLibrary(into: store, songs: 5, perPlaylist: 5)
            checkedPage = try #require(try RawRecords(store, "Song").pages()[0])
            #expect(checkedPage.first == PageCheck.format)
            try store.close()
        }
        let encrypted = TemporaryDirectory("sealed")
        let store = try open(encrypted)
        try insertLibrary(into: store, songs: 5, perPlaylist: 5)
        try RawRecords(store, "Song").putPage(checkedPage, number: 0)
        #expect(throws: StoreError.corruptRecord(class: "Song", rowID: 2)) { _ = try store.object(of: Song.self, rowID: 2) }
    }

    @Test func aSealedPageInAStoreWithoutItsKeyIsDamage() throws {
        let encrypted = TemporaryDirectory("sealed")
        let sealedPage: [UInt8]
        do {
            let store = try open(encrypted)
            try insertLibrary(into: store, songs: 5, perPlaylist: 5)
            sealedPage = try #require(try RawRecords(store, "Song").pages()[0])
            try store.close()
        }
        let plain = TemporaryDirectory("sealed")
        let store = try open(plain, key: nil)
        try insertLibrary(into: store, songs: 5, perPlaylist: 5)
        try RawRecords(store, "Song").putPage(sealedPage, number: 0)
        #expect(throws: StoreError.corruptRecord(class: "Song", rowID: 2)) { _ = try store.object(of: Song.self, rowID: 2) }
        #expect(try store.verify().problems.contains(.corruptRecord(class: "Song", rowID: 0)))
    }

    @Test func aPageSealedWithTheAssociatedDataOfTheFormatOpensAndNoOtherDoes() throws {
        // The associated data spelled out as docs/FORMAT.md gives it: the bytes stores were
        // written with, whatever builds them in the code.
        let cipher = try RecordCipher(key: Array(repeating: 7, count: 32))
        let classID: UInt64 = 0x0102_0304_0506_0708
        let number: UInt64 = 0x1122_3344_5566_7788
        let associatedData: [UInt8] = Array("larder/page".utf8)
            + [0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01]
            + [0x50, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88]
            + [0x52]
        let page: [UInt8] = [0x50, 0x03, 0x02, 0x01, 0x00]
        var sealed: [UInt8] = [PageSeal.format]
        try page.withUnsafeBytes { plaintext in
            try associatedData.withUnsafeBytes { associatedData in
                try cipher.seal(plaintext, nonce: Array(repeating: 9, count: 12), authenticating: associatedData, appendingTo: &sealed)
            }
        }
        var opened: [UInt8] = []
        try sealed.withUnsafeBytes { try PageSeal.open($0, number: number, cipher: cipher, scope: classID, into: &opened) }
        #expect(opened == page)
        // Another page number or another class does not open it.
        #expect(throws: RecordCipher.Failure.authenticationFailed) {
            try sealed.withUnsafeBytes { try PageSeal.open($0, number: number + 1, cipher: cipher, scope: classID, into: &opened) }
        }
        #expect(throws: RecordCipher.Failure.authenticationFailed) {
            try sealed.withUnsafeBytes { try PageSeal.open($0, number: number, cipher: cipher, scope: classID ^ 1, into: &opened) }
        }
        // And what PageSeal seals opens with the format's associated data.
        var resealed = page
        var scratch: [UInt8] = []
        try PageSeal.seal(&resealed, number: number, cipher: cipher, scope: classID, scratch: &scratch)
        var plaintext: [UInt8] = []
        try resealed.withUnsafeBytes { sealedPage in
            try associatedData.withUnsafeBytes { associatedData in
                try cipher.open(UnsafeRawBufferPointer(rebasing: sealedPage[1...]), authenticating: associatedData, into: &plaintext)
            }
        }
        #expect(plaintext == page)
    }
}
