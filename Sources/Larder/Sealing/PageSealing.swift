// PageSealing: how the pages of one class file are written and read. A plaintext store writes
// pages whose entries are checksummed envelopes (0x02); an encrypted one seals each page whole
// (PageSeal) around plain envelopes (0x01). Reading opens a sealed page first and says which
// cipher opens the envelopes inside: none in a sealed page (its tag covered them), the store's
// in a page of per-record envelopes (0x03, written before format 4).

/// The sealing of one class file's pages: the store's cipher (nil in a plaintext store) and
/// the class's scope.
package struct PageSealing {
    /// Seals pages whole when set; pages are written unsealed otherwise.
    package let cipher: RecordCipher?
    /// The class ID the pages are bound to.
    package let scope: UInt64

    package init(cipher: RecordCipher?, scope: UInt64) {
        self.cipher = cipher
        self.scope = scope
    }

    /// Pages without encryption or sealing (LarderDocuments' tables, whose documents have
    /// envelopes of their own).
    package static var unsealed: PageSealing { PageSealing(cipher: nil, scope: 0) }

    /// Pages are written sealed whole.
    package var sealsPages: Bool { cipher != nil }

    /// Calls `body` with the page inside `page` (page `number` of the file) and the cipher
    /// that opens its envelopes: `page` itself and the store's cipher for an unsealed page, the
    /// plaintext (decrypted into `scratch`) and nil for a sealed one. Throws
    /// ``RecordPage/Damage`` for a sealed page that does not authenticate, or one this
    /// sealing has no key for, and for an unsealed page where only sealed ones are allowed.
    package func withOpenedPage<R>(_ page: UnsafeRawBufferPointer, number: UInt64, scratch: inout [UInt8],
                                   layout: PageLayout = .objects,
                                   _ body: (_ page: UnsafeRawBufferPointer, _ envelopeCipher: RecordCipher?) throws -> R) throws -> R {
        guard PageSeal.isSealed(page) else { return try body(page, cipher) }
        guard let cipher else { throw RecordPage.Damage(firstRowID: layout.firstRowID(ofPage: number)) }
        do {
            try PageSeal.open(page, number: number, cipher: cipher, scope: scope, into: &scratch)
        } catch {
            throw RecordPage.Damage(firstRowID: layout.firstRowID(ofPage: number))
        }
        return try scratch.withUnsafeBytes { try body($0, nil) }
    }

    /// Seals the finished `page` (page `number`) in place when this sealing seals pages.
    func seal(_ page: inout [UInt8], number: UInt64, scratch: inout [UInt8]) throws {
        guard let cipher else { return }
        do {
            try PageSeal.seal(&page, number: number, cipher: cipher, scope: scope, scratch: &scratch)
        } catch {
            throw StoreError.encryptionFailure(reason: "\(error)")
        }
    }

    /// Appends the envelope of a record to be written into a page of this sealing: plain
    /// inside a sealed page, checksummed (over the 8-byte key at `keyStart`) otherwise.
    func appendEnvelope(version: UInt8, content: [UInt8], to bytes: inout [UInt8], keyStart: Int) throws(RecordEnvelope.Failure) {
        if sealsPages {
            RecordEnvelope.appendPlain(version: version, content: content, to: &bytes)
        } else {
            try RecordEnvelope.append(version: version, content: content, to: &bytes, keyStart: keyStart, cipher: nil, scope: scope)
        }
    }
}
