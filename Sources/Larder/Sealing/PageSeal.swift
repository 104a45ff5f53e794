// PageSeal: a class-file page of an encrypted store sealed whole, as one AES-256-GCM message
// (store format 4). Sealing each object apart cost a round of OpenSSL calls per record of 20 to
// 60 bytes, several times the cost of the AES itself; a page costs one round per 32 records.
//
//   value:  [0x52][nonce, 12 bytes][ciphertext of the page][tag, 16 bytes]
//   associated data: "larder/page" | scope (the class ID, 8 bytes LE) | page key (9 bytes) | 0x52
//
// The page inside is an ordinary page (RecordPage) whose entries are plain envelopes (0x01):
// the tag authenticates every byte of it, so a record needs no checksum or tag of its own. A
// sealed page moved under another page number or into another class file, a page of another
// key, and any changed byte all fail to open. As with SQLCipher's pages, an older sealing of the
// same page put back in its place is not told from the current one (docs/FORMAT.md 6.2).

/// The whole-page encryption of class files.
package enum PageSeal {
    /// The first byte of a sealed page (RecordPage's own formats are 0x50 and 0x51).
    package static let format: UInt8 = 0x52
    /// Bytes a sealed page adds to the page inside it.
    package static let overhead = 1 + RecordCipher.overhead
    /// Sets page associated data apart from every per-record envelope's (which starts with
    /// the scope).
    private static let label = Array("larder/page".utf8)

    /// True when `page` is sealed whole.
    @inline(__always)
    package static func isSealed(_ page: UnsafeRawBufferPointer) -> Bool { page.first == format }

    /// Replaces `page` (a page as RecordPage writes it) with its sealing under `cipher`, bound
    /// to page `number` of the class file of `scope`. `scratch` is reused storage. Throws
    /// ``RecordCipher/Failure``.
    static func seal(_ page: inout [UInt8], number: UInt64, cipher: RecordCipher, scope: UInt64,
                     scratch: inout [UInt8]) throws {
        scratch.removeAll(keepingCapacity: true)
        scratch.append(format)
        let associatedData = self.associatedData(number: number, scope: scope)
        try page.withUnsafeBytes { plaintext in
            try associatedData.withUnsafeBytes { associatedData in
                try cipher.seal(plaintext, authenticating: associatedData, appendingTo: &scratch)
            }
        }
        swap(&page, &scratch)
    }

    /// Replaces the contents of `plaintext` with the page sealed in `sealed`, page `number` of
    /// the class file of `scope`; throws ``RecordCipher/Failure`` when it does not authenticate.
    static func open(_ sealed: UnsafeRawBufferPointer, number: UInt64, cipher: RecordCipher, scope: UInt64,
                     into plaintext: inout [UInt8]) throws {
        guard isSealed(sealed) else { throw RecordCipher.Failure.authenticationFailed }
        let associatedData = self.associatedData(number: number, scope: scope)
        try associatedData.withUnsafeBytes { associatedData in
            try cipher.open(UnsafeRawBufferPointer(rebasing: sealed[1...]), authenticating: associatedData, into: &plaintext)
        }
    }

    private static func associatedData(number: UInt64, scope: UInt64) -> [UInt8] {
        var data: [UInt8] = []
        data.reserveCapacity(label.count + 8 + RecordPage.keySize + 1)
        data.append(contentsOf: label)
        data.appendLittleEndian(scope)
        data.append(contentsOf: RecordPage.key(forPage: number))
        data.append(format)
        return data
    }
}
