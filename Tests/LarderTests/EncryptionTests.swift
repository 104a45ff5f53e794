// Encryption: round trips, wrong and missing keys, tampering, copied pages, migration from
// plaintext, rekeying; and known-answer tests of the cipher primitives. Class files' pages are
// sealed whole (PageSeal); named buffers, metadata and text indexes record by record.

import Foundation
import LarderTestSupport
import Testing
@testable import Larder

@Suite struct EncryptionTests {
    private func open(_ directory: TemporaryDirectory, key: String?) throws -> Store {
        let store = try directory.store(configuration: Store.Configuration.quickKey(key))
        try store.register(Song.self)
        try store.register(Playlist.self)
        return store
    }

    /// Every byte of every file in the store directory.
    private func allBytes(_ directory: TemporaryDirectory) throws -> Data {
        var bytes = Data()
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            bytes.append(try Data(contentsOf: URL(fileURLWithPath: directory.file(name))))
        }
        return bytes
    }

    private static let secret = "Kind of Blue, a secret title"

    private func insertSecrets(into store: Store) throws {
        let playlist = Playlist()
        playlist.title = Self.secret
        playlist.songs = (1 ... 20).map { Song(title: "\(Self.secret) \($0)", seconds: UInt32($0)) }
        try store.insert(playlist)
        try store.saveChanges()
        var buffer = DataBuffer()
        buffer.write(Self.secret)
        try store.setDataBuffer(buffer, forName: "bookmark")
    }

    @Test func encryptedRecordsRoundTripAndNoPlaintextReachesTheFiles() throws {
        let directory = TemporaryDirectory("crypt")
        do {
            let store = try open(directory, key: "correct horse")
            try insertSecrets(into: store)
            try store.close()
        }
        let bytes = try allBytes(directory)
        #expect(bytes.range(of: Data(Self.secret.utf8)) == nil)
        #expect(bytes.range(of: Data("secret".utf8)) == nil)

        let store = try open(directory, key: "correct horse")
        let playlist = try #require(try store.object(of: Playlist.self, rowID: 1))
        #expect(playlist.title == Self.secret)
        #expect(playlist.songs.map(\.title).last == "\(Self.secret) 20")
        var bookmark = try #require(try store.dataBuffer(forName: "bookmark"))
        #expect(try bookmark.readString() == Self.secret)
        #expect(try store.verify().isHealthy)
    }

    @Test(arguments: BackendKind.allCases) func equalPagesEncryptToDifferentBytes(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory("crypt", backend: backend)
        let store = try open(directory, key: "k")
        let song = Song(title: "same", seconds: 1)
        try store.insert(song)
        try store.saveChanges()
        let first = try #require(try RawRecords(store, "Song").pages()[0])
        song.title = "other"
        try store.saveChanges()
        song.title = "same"
        try store.saveChanges()
        let again = try #require(try RawRecords(store, "Song").pages()[0])
        #expect(first[0] == PageSeal.format)
        #expect(first.count == again.count)
        #expect(first != again)   // a fresh nonce each time the page is sealed
        // Inside, the record needs no envelope of its own: format 01, version, content.
        #expect(try RawRecords(store, "Song").record(1)?.first == 0x01)
    }

    @Test(arguments: BackendKind.allCases) func aWrongKeyFailsAtOnceAndNoKeyIsRequired(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory("crypt", backend: backend)
        do {
            let store = try open(directory, key: "right")
            try insertSecrets(into: store)
            try store.close()
        }
        #expect(throws: StoreError.wrongEncryptionKey) { _ = try open(directory, key: "wrong") }
        #expect(throws: StoreError.encryptionKeyRequired) { _ = try open(directory, key: nil) }
        let store = try open(directory, key: "right")
        #expect(try store.count(of: Song.self) == 20)
    }

    @Test(arguments: BackendKind.allCases) func aTamperedCiphertextIsReportedNotDecoded(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory("crypt", backend: backend)
        let store = try open(directory, key: "k")
        try insertSecrets(into: store)
        for number in 21 ... 40 { try store.insert(Song(title: "\(Self.secret) \(number)", seconds: 1)) }
        try store.saveChanges()
        // Flip one ciphertext byte of page 0 (songs 1 to 20) behind the store's back.
        var page = try #require(try RawRecords(store, "Song").pages()[0])
        page[1 + 12 + 3] ^= 0x01
        try RawRecords(store, "Song").putPage(page, number: 0)
        try store.close()

        // The page's records are lost together (as SQLite's and SQLCipher's are with their
        // page), reported for the row asked for; page 1 is untouched.
        let reopened = try open(directory, key: "k")
        #expect(throws: StoreError.corruptRecord(class: "Song", rowID: 5)) { _ = try reopened.object(of: Song.self, rowID: 5) }
        #expect(throws: StoreError.corruptRecord(class: "Song", rowID: 6)) { _ = try reopened.object(of: Song.self, rowID: 6) }
        #expect(try reopened.object(of: Song.self, rowID: 33)?.title == "\(Self.secret) 33")
        let problems = try reopened.verify().problems
        #expect(problems == [.corruptRecord(class: "Song", rowID: 0), .missingRecords(table: "Song", expected: 40, found: 9)], "\(problems)")
    }

    @Test(arguments: BackendKind.allCases) func aPageCopiedToAnotherPageOrClassFailsAuthentication(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory("crypt", backend: backend)
        let store = try directory.store(configuration: Store.Configuration.quickKey("k"))
        try store.register(Song.self)
        try store.register(Strict.self)
        for number in 1 ... 40 { try store.insert(Song(title: "song \(number)", seconds: 1)) }
        try store.saveChanges()
        try handOutRowIDs(1, of: Strict.self, in: store)
        let first = try #require(try RawRecords(store, "Song").pages()[0])
        try RawRecords(store, "Song").putPage(first, number: 1)     // another page
        try RawRecords(store, "Strict").putPage(first, number: 0)   // another class, same page
        store.discardChanges()
        try store.close()

        let reopened = try directory.store(configuration: Store.Configuration.quickKey("k"))
        try reopened.register(Song.self)
        try reopened.register(Strict.self)
        #expect(try reopened.object(of: Song.self, rowID: 1)?.title == "song 1")
        #expect(throws: StoreError.corruptRecord(class: "Song", rowID: 33)) { _ = try reopened.object(of: Song.self, rowID: 33) }
        #expect(throws: StoreError.corruptRecord(class: "Strict", rowID: 1)) { _ = try reopened.object(of: Strict.self, rowID: 1) }
    }

    @Test(arguments: BackendKind.allCases) func aPlaintextStoresClassFilesAreSealedWhenEncryptionIsTurnedOn(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory("crypt", backend: backend)
        do {
            let store = try open(directory, key: nil)
            try insertLibrary(into: store, songs: 40, perPlaylist: 5)
            #expect(try RawRecords(store, "Song").pages().values.allSatisfy { $0.first == PageCheck.format })
            try store.close()
        }
        do {
            let store = try open(directory, key: "now secret")
            // Sealed by the open that turned encryption on.
            for table in ["Song", "Playlist"] {
                let pages = try RawRecords(store, table).pages()
                #expect(!pages.isEmpty && pages.values.allSatisfy { $0.first == PageSeal.format }, "\(table)")
            }
            #expect(try store.object(of: Song.self, rowID: 3)?.title == "Song 3")
            try store.object(of: Song.self, rowID: 4)?.title = "Re-saved"
            try store.saveChanges()
            try store.close()
        }
        #expect(throws: StoreError.encryptionKeyRequired) { _ = try open(directory, key: nil) }
        let store = try open(directory, key: "now secret")
        #expect(try store.object(of: Song.self, rowID: 4)?.title == "Re-saved")
        #expect(try store.object(of: Song.self, rowID: 40)?.title == "Song 40")
        #expect(try store.verify().isHealthy)
    }

    @Test func rekeyRewritesEverythingAtomicallyAndCanReturnToPlaintext() throws {
        let directory = TemporaryDirectory("crypt")
        do {
            let store = try open(directory, key: nil)
            try insertSecrets(into: store)
            try store.rekey(to: "first", iterations: 1_000)
            try store.close()
        }
        // Every record is encrypted now (old bytes may linger in Tokyo Cabinet's free space:
        // documented, and the reason a fresh store is encrypted from its first record).
        #expect(throws: StoreError.encryptionKeyRequired) { _ = try open(directory, key: nil) }
        do {
            let store = try open(directory, key: "first")
            for table in ["Song", "Playlist"] {
                let pages = try RawRecords(store, table).pages()
                #expect(!pages.isEmpty && pages.values.allSatisfy { $0[0] == PageSeal.format }, "\(table)")
            }
            try store.backend.forEachRecord(in: "_names") { _, value in
                #expect(value[0] == 0x03, "_names")
                return true
            }
            #expect(try store.object(of: Playlist.self, rowID: 1)?.title == Self.secret)
            store.discardChanges()
            try store.rekey(to: "second", iterations: 1_000)
            #expect(try store.object(of: Song.self, rowID: 20)?.title == "\(Self.secret) 20")
            try store.close()
        }
        #expect(throws: StoreError.wrongEncryptionKey) { _ = try open(directory, key: "first") }
        do {
            let store = try open(directory, key: "second")
            #expect(try store.verify().isHealthy)
            try store.rekey(to: nil)
            try store.close()
        }
        let store = try open(directory, key: nil)
        #expect(try store.object(of: Playlist.self, rowID: 1)?.songs.count == 20)
        var bookmark = try #require(try store.dataBuffer(forName: "bookmark"))
        #expect(try bookmark.readString() == Self.secret)
        #expect(try allBytes(directory).range(of: Data(Self.secret.utf8)) != nil)
        let song = try #require(try store.object(of: Song.self, rowID: 1))
        song.title = "dirty"
        #expect(throws: StoreError.unsavedChanges) { try store.rekey(to: "x", iterations: 1_000) }
    }

    @Test(arguments: BackendKind.allCases) func aFullyEncryptedStoreRefusesAPlaintextRecordSlippedIn(_ backend: BackendKind) throws {
        let directory = TemporaryDirectory("crypt", backend: backend)
        let store = try open(directory, key: "k")
        try insertSecrets(into: store)
        for number in 21 ... 40 { try store.insert(Song(title: "\(Self.secret) \(number)", seconds: 1)) }
        try store.saveChanges()
        // A forged plaintext record with a valid checksum, in an unsealed page put in place of
        // the sealed one behind the store's back.
        var content = DataBuffer()
        content.write("forged title")
        content.write(UInt32(0))
        try RawRecords(store, "Song").write([3: RawRecords.sealed(content, rowID: 3)])
        #expect(try RawRecords(store, "Song").pages()[0]?.first == RecordPage.format)
        store.discardChanges()
        try store.close()
        let reopened = try open(directory, key: "k")
        #expect(throws: StoreError.corruptRecord(class: "Song", rowID: 3)) { _ = try reopened.object(of: Song.self, rowID: 3) }
        #expect(try reopened.object(of: Song.self, rowID: 34)?.title == "\(Self.secret) 34")
    }

    @Test func theDefaultKeyDerivationIsAtLeast210000Iterations() {
        #expect(Store.Configuration().keyDerivationIterations >= 210_000)
    }
}

/// Known-answer tests of the AES-256-GCM and PBKDF2-HMAC-SHA256 wrappers.
@Suite struct CipherKnownAnswerTests {
    private func hex(_ string: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = string.startIndex
        while index < string.endIndex {
            let next = string.index(index, offsetBy: 2)
            bytes.append(UInt8(string[index ..< next], radix: 16) ?? 0)
            index = next
        }
        return bytes
    }

    /// NIST GCM test vectors (McGrew & Viega, "The Galois/Counter Mode of Operation",
    /// test cases 14 and 16: AES-256).
    @Test func aes256GCMMatchesTheNISTVectors() throws {
        // Test case 14: zero key, zero IV, one zero block.
        let key14 = [UInt8](repeating: 0, count: 32)
        let cipher14 = try RecordCipher(key: key14)
        var sealed14: [UInt8] = []
        try [UInt8](repeating: 0, count: 16).withUnsafeBytes { plaintext in
            try cipher14.seal(plaintext, nonce: [UInt8](repeating: 0, count: 12),
                              authenticating: UnsafeRawBufferPointer(start: nil, count: 0), appendingTo: &sealed14)
        }
        #expect(Array(sealed14[12 ..< 28]) == hex("cea7403d4d606b6e074ec5d3baf39d18"))
        #expect(Array(sealed14[28...]) == hex("d0d1c8a799996bf0265b98b5d48ab919"))

        // Test case 16: with associated data.
        let key16 = hex("feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308")
        let nonce16 = hex("cafebabefacedbaddecaf888")
        let plaintext16 = hex("d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39")
        let associatedData16 = hex("feedfacedeadbeeffeedfacedeadbeefabaddad2")
        let cipher16 = try RecordCipher(key: key16)
        var sealed16: [UInt8] = []
        try plaintext16.withUnsafeBytes { plaintext in
            try associatedData16.withUnsafeBytes { associatedData in
                try cipher16.seal(plaintext, nonce: nonce16, authenticating: associatedData, appendingTo: &sealed16)
            }
        }
        let ciphertext = Array(sealed16[12 ..< 12 + plaintext16.count])
        #expect(ciphertext == hex("522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662"))
        #expect(Array(sealed16.suffix(16)) == hex("76fc6ece0f4e1768cddf8853bb2d551b"))

        // And it opens again, but not with other associated data.
        let opened = try sealed16.withUnsafeBytes { sealed in
            try associatedData16.withUnsafeBytes { try cipher16.open(sealed, authenticating: $0) }
        }
        #expect(opened == plaintext16)
        #expect(throws: RecordCipher.Failure.authenticationFailed) {
            _ = try sealed16.withUnsafeBytes { sealed in
                try [UInt8]([1]).withUnsafeBytes { try cipher16.open(sealed, authenticating: $0) }
            }
        }
    }

    /// PBKDF2-HMAC-SHA256 vectors in the style of RFC 6070 (published for SHA-256, e.g. in
    /// RFC 7914 section 11 and widely reproduced).
    @Test func pbkdf2SHA256MatchesPublishedVectors() throws {
        let one = try RecordCipher.deriveKey(passphrase: "password", salt: Array("salt".utf8), iterations: 1)
        #expect(one == hex("120fb6cffcf8b32c43e7225256c4f837a86548c92ccc35480805987cb70be17b"))
        let two = try RecordCipher.deriveKey(passphrase: "password", salt: Array("salt".utf8), iterations: 2)
        #expect(two == hex("ae4d0c95af6b46d32d0adff928f06dd02a303f8ef3c251dfd6e2d85a95474c43"))
        let many = try RecordCipher.deriveKey(passphrase: "password", salt: Array("salt".utf8), iterations: 4_096)
        #expect(many == hex("c5e478d59288c841aa530db6845c4c8d962893a001ce4e11a4963873aa98134a"))
        let long = try RecordCipher.deriveKey(passphrase: "passwordPASSWORDpassword",
                                              salt: Array("saltSALTsaltSALTsaltSALTsaltSALTsalt".utf8), iterations: 4_096)
        #expect(long == hex("348c89dbcbd32b2f32d814b8116e84cf2b17347ebc1800181c4e2a1fb8dd53e1"))
    }
}
