// PageSealing: how the pages of one class file are written and read. From format 5 every page
// is written whole: sealed with AES-256-GCM in an encrypted store (PageSeal), checksummed in a
// plaintext one (PageCheck), around plain envelopes (0x01). Reading opens such a page first and
// says which cipher opens the envelopes inside: none (the page's tag or checksum covered them),
// or, in a page of per-record envelopes (0x02, 0x03: written before), the store's.

/// The sealing of one class file's pages: the store's cipher (nil in a plaintext store), the
/// class's scope, and whether a plaintext store checksums pages whole.
package struct PageSealing {
    /// How a page is written.
    package enum Kind: Equatable {
        /// Records in envelopes of their own (LarderDocuments' tables, and class files before
        /// format 5).
        case unsealed
        /// Checksummed whole (PageCheck).
        case checked
        /// Encrypted whole (PageSeal).
        case sealed

        /// The kind of the stored page `page`.
        package init(of page: UnsafeRawBufferPointer) {
            self = PageSeal.isSealed(page) ? .sealed : PageCheck.isChecked(page) ? .checked : .unsealed
        }
    }

    /// Seals pages whole when set.
    package let cipher: RecordCipher?
    /// The class ID the pages are bound to.
    package let scope: UInt64
    /// How pages are written.
    package let kind: Kind

    /// Pages sealed with `cipher` when there is one; else checksummed whole with `checksPages`,
    /// or left unsealed.
    package init(cipher: RecordCipher?, scope: UInt64, checksPages: Bool = false) {
        self.cipher = cipher
        self.scope = scope
        kind = cipher != nil ? .sealed : checksPages ? .checked : .unsealed
    }

    /// Pages without encryption or sealing (LarderDocuments' tables, whose documents have
    /// envelopes of their own).
    package static var unsealed: PageSealing { PageSealing(cipher: nil, scope: 0) }

    /// Pages are written whole (sealed or checked), their records in plain envelopes.
    package var writesWholePages: Bool { kind != .unsealed }

    /// Calls `body` with the page inside `page` (page `number` of the file) and the cipher
    /// that opens its envelopes: `page` itself and the store's cipher for an unsealed page; the
    /// page inside and nil for a page sealed (decrypted into `scratch`) or checked whole.
    /// Throws ``RecordPage/Damage`` for a sealed page that does not authenticate or that this
    /// sealing has no key for, a checked page whose checksum does not match, and a checked
    /// (plaintext) page in an encrypted store.
    ///
    /// `isOpen` says that the call before opened these same bytes (`page` unchanged, `scratch`
    /// untouched since): the checksum is not computed again, nor the page decrypted again (one
    /// page read for several of its records).
    package func withOpenedPage<R>(_ page: UnsafeRawBufferPointer, number: UInt64, scratch: inout [UInt8],
                                   layout: PageLayout = .objects, isOpen: Bool = false,
                                   _ body: (_ page: UnsafeRawBufferPointer, _ envelopeCipher: RecordCipher?) throws -> R) throws -> R {
        let damage = RecordPage.Damage(firstRowID: layout.firstRowID(ofPage: number))
        switch Kind(of: page) {
        case .unsealed:
            return try body(page, cipher)
        case .checked:
            guard cipher == nil else { throw damage }
            let inner = isOpen ? PageCheck.contents(of: page) : PageCheck.open(page, number: number)
            guard let inner else { throw damage }
            return try body(inner, nil)
        case .sealed:
            guard let cipher else { throw damage }
            if !isOpen {
                do {
                    try PageSeal.open(page, number: number, cipher: cipher, scope: scope, into: &scratch)
                } catch {
                    throw damage
                }
            }
            return try scratch.withUnsafeBytes { try body($0, nil) }
        }
    }

    /// Seals or checks the finished `page` (page `number`) in place, as this sealing writes.
    func seal(_ page: inout [UInt8], number: UInt64, scratch: inout [UInt8]) throws {
        switch kind {
        case .unsealed:
            return
        case .checked:
            PageCheck.check(&page, number: number)
        case .sealed:
            guard let cipher else { return }
            do {
                try PageSeal.seal(&page, number: number, cipher: cipher, scope: scope, scratch: &scratch)
            } catch {
                throw StoreError.encryptionFailure(reason: "\(error)")
            }
        }
    }

    /// Appends the envelope of a record to be written into a page of this sealing: plain
    /// inside a page written whole, checksummed (over the 8-byte key at `keyStart`) otherwise.
    func appendEnvelope(version: UInt8, content: [UInt8], to bytes: inout [UInt8], keyStart: Int) throws(RecordEnvelope.Failure) {
        if writesWholePages {
            RecordEnvelope.appendPlain(version: version, content: content, to: &bytes)
        } else {
            try RecordEnvelope.append(version: version, content: content, to: &bytes, keyStart: keyStart, cipher: nil, scope: scope)
        }
    }
}
