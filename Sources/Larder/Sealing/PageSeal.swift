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
        try page.withUnsafeBytes { plaintext in
            try withAssociatedData(number: number, scope: scope) { associatedData in
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
        try withAssociatedData(number: number, scope: scope) { associatedData in
            try cipher.open(UnsafeRawBufferPointer(rebasing: sealed[1...]), authenticating: associatedData, into: &plaintext)
        }
    }

    /// Bytes of the associated data: label, scope, page key, format.
    private static let associatedDataSize = label.count + 8 + RecordPage.keySize + 1

    /// Calls `body` with the associated data of page `number` of the class file of `scope`,
    /// built on the stack: every page read or written has its own (two arrays a page, and their
    /// allocations, cost about 500 instructions a page, a tenth of what opening one costs).
    private static func withAssociatedData<R>(number: UInt64, scope: UInt64,
                                              _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withUnsafeTemporaryAllocation(byteCount: associatedDataSize, alignment: 1) { data in
            label.withUnsafeBytes { data.copyMemory(from: $0) }
            var at = label.count
            data.storeBytes(of: scope.littleEndian, toByteOffset: at, as: UInt64.self)
            at += 8
            RecordPage.storeKey(forPage: number, in: data, at: at)
            at += RecordPage.keySize
            data.storeBytes(of: format, toByteOffset: at, as: UInt8.self)
            return try body(UnsafeRawBufferPointer(data))
        }
    }
}
