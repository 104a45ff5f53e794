// The record page and record envelope fuzz targets: a page of a class file or collection
// (RecordPage) and one record's envelope in it (RecordEnvelope), as read from a damaged or
// hostile file. A page either parses or throws Damage; when its walk succeeds, every other
// way of reading it (one record through the directory, the count) agrees with the walk.

extension FuzzTarget {
    /// The layouts a page can be read with: class files', and collections' without and with
    /// a directory.
    private static let pageLayouts = [PageLayout.objects, PageLayout(slotBits: 7), PageLayout(slotBits: 7, hasDirectory: true)]

    /// `[layout][page number][page bytes]`.
    package static let recordPage = FuzzTarget(name: "recordPage", seeds: recordPageSeeds) { input throws(FuzzViolation) in
        guard input.count >= 2 else { return false }
        let layout = pageLayouts[Int(input[0]) % pageLayouts.count]
        let number = UInt64(input[1])
        return try withExactBytes(Array(input[2...])) { page throws(FuzzViolation) in try checkPage(page, number: number, layout: layout) }
    }

    /// Whether `page` walks whole; throws when its readers disagree.
    private static func checkPage(_ page: UnsafeRawBufferPointer, number: UInt64, layout: PageLayout) throws(FuzzViolation) -> Bool {
        let first = layout.firstRowID(ofPage: number)
        var walked: [(rowID: UInt64, envelope: UnsafeRawBufferPointer)] = []
        var walkedWhole = true
        do {
            try RecordPage.forEachRecord(in: page, number: number, layout: layout) { rowID, envelope in
                walked.append((rowID, envelope))
            }
        } catch {
            walkedWhole = false
        }
        for (position, record) in walked.enumerated() {
            try FuzzViolation.check(lies(record.envelope, inside: page), "the envelope of rowID \(record.rowID) lies outside the page")
            try FuzzViolation.check(layout.number(of: record.rowID) == number, "rowID \(record.rowID) is not in page \(number)")
            try FuzzViolation.check(position == 0 || walked[position - 1].rowID < record.rowID, "rowIDs out of order")
        }
        let counted = try? RecordPage.recordCount(in: page, number: number, layout: layout)
        if walkedWhole {
            try FuzzViolation.check(counted == walked.count, "the walk found \(walked.count) records, the count \(String(describing: counted))")
        }
        for slot in 0 ..< layout.capacity {
            let rowID = first | UInt64(slot)
            RecordPage.prefetchDirectoryOffset(of: rowID, in: page, layout: layout)
            RecordPage.prefetchEntry(of: rowID, in: page, layout: layout)
            let found: UnsafeRawBufferPointer?
            do {
                found = try RecordPage.record(of: rowID, in: page, layout: layout)
            } catch {
                try FuzzViolation.check(!walkedWhole, "rowID \(rowID) is damage on a page whose walk succeeded")
                continue
            }
            if let found { try FuzzViolation.check(lies(found, inside: page), "the envelope of rowID \(rowID) lies outside the page") }
            guard walkedWhole else { continue }
            let expected = walked.first { $0.rowID == rowID }?.envelope
            try FuzzViolation.check(found?.baseAddress == expected?.baseAddress && found?.count == expected?.count,
                                    "rowID \(rowID): the read of one record and the walk disagree")
        }
        return walkedWhole
    }

    @Sendable private static func recordPageSeeds() -> [[UInt8]] {
        pageLayouts.indices.flatMap { layoutIndex -> [[UInt8]] in
            let layout = pageLayouts[layoutIndex]
            return [[1], [0, 3, 31], [5, 17, 200]].map { slots in
                var page: [UInt8] = []
                RecordPage.beginPage(in: &page, layout: layout)
                for slot in slots where slot < layout.capacity {
                    let envelope = sealedEnvelope(content: Array(repeating: UInt8(slot), count: slot % 9), rowID: UInt64(64 + slot),
                                                  cipher: nil)
                    envelope.withUnsafeBytes { RecordPage.appendEntry(slot: slot, envelope: $0, to: &page) }
                }
                RecordPage.finishPage(&page, layout: layout)
                return [UInt8(layoutIndex), UInt8(layout.number(of: 64))] + page
            }
        }
    }

    // MARK: Envelopes

    /// The key every fuzzed encrypted envelope is opened with.
    private static let envelopeKey = [UInt8](repeating: 0x5A, count: RecordCipher.keySize)
    /// The scope (class ID) every fuzzed envelope is opened in.
    private static let envelopeScope: UInt64 = 3

    /// `[flags][8-byte record key][record]`; flags bit 0: open with a cipher, bit 1: the
    /// cipher refuses plaintext.
    package static let recordEnvelope = FuzzTarget(name: "recordEnvelope", seeds: recordEnvelopeSeeds) { input throws(FuzzViolation) in
        guard input.count >= 9 else { return false }
        let cipher = input[0] & 1 == 0 ? nil : try? RecordCipher(key: envelopeKey)
        cipher?.rejectsPlaintext = input[0] & 2 != 0
        let key = Array(input[1 ..< 9])
        return try withExactBytes(Array(input[9...])) { record throws(FuzzViolation) in
            let opened: DataBuffer
            do {
                opened = try RecordEnvelope.open(record, key: key, cipher: cipher, scope: envelopeScope)
            } catch {
                return false
            }
            try FuzzViolation.check(opened.readPosition == 0, "an opened record is not read from its start")
            // A checked record is its content sealed again, byte for byte.
            guard record[0] == RecordEnvelope.checkedFormat else { return true }
            var resealed = key
            try? RecordEnvelope.append(version: opened.versionOfData, content: opened.bytes, to: &resealed, keyStart: 0,
                                       cipher: nil, scope: envelopeScope)
            try FuzzViolation.check(Array(resealed[key.count...]) == Array(record), "a checked record does not seal to its bytes")
            return true
        }
    }

    /// The envelope of `content` for `rowID`, sealed with `cipher` or checksummed.
    private static func sealedEnvelope(content: [UInt8], rowID: UInt64, cipher: RecordCipher?) -> [UInt8] {
        var bytes = RowIDKey.bytes(rowID)
        try? RecordEnvelope.append(version: 2, content: content, to: &bytes, keyStart: 0, cipher: cipher, scope: envelopeScope)
        return Array(bytes[RowIDKey.bytes(rowID).count...])
    }

    @Sendable private static func recordEnvelopeSeeds() -> [[UInt8]] {
        let key = RowIDKey.bytes(77)
        let content = Array("Blue in Green".utf8)
        let cipher = try? RecordCipher(key: envelopeKey)
        return [[0] + key + sealedEnvelope(content: content, rowID: 77, cipher: nil),
                [1] + key + sealedEnvelope(content: content, rowID: 77, cipher: cipher),
                [3] + key + sealedEnvelope(content: [], rowID: 77, cipher: cipher),
                [0] + key + [RecordEnvelope.plainFormat, 1] + content]
    }
}

extension FuzzTarget {
    /// `[store][page number][stored page]` opened as a page of the class of scope 3, in a store
    /// with the fuzzing key (`store` even) or a plaintext store (odd): a page written whole
    /// (sealed or checked) either fails to open (Damage, never a crash) or opens into a page
    /// every reader agrees on. The seeds are pages sealed with that key, checked, and unsealed.
    package static let sealedPage = FuzzTarget(name: "sealedPage", seeds: sealedPageSeeds) { input throws(FuzzViolation) in
        guard input.count >= 3, let cipher = try? RecordCipher(key: envelopeKey) else { return false }
        let number = UInt64(input[1])
        let sealing = PageSealing(cipher: input[0] & 1 == 0 ? cipher : nil, scope: envelopeScope, checksPages: true)
        var opened: [UInt8] = []
        return try withExactBytes(Array(input[2...])) { stored throws(FuzzViolation) in
            let result = Result { () throws -> Bool in
                try sealing.withOpenedPage(stored, number: number, scratch: &opened) { page, _ in
                    let walked = try checkPage(page, number: number, layout: .objects)
                    if PageSealing.Kind(of: stored) != .unsealed {
                        try FuzzViolation.check(PageSealing.Kind(of: page) == .unsealed, "a page written whole opened into another")
                    }
                    return walked
                }
            }
            switch result {
            case .success(let walked): return walked
            case .failure(let violation as FuzzViolation): throw violation
            case .failure(let error):
                try FuzzViolation.check(error is RecordPage.Damage, "a page failed to open with \(error), not Damage")
                return false
            }
        }
    }

    /// Pages sealed with the fuzzing key, checked, and unsealed (as format 4 wrote them), whose
    /// mutations reach the page walk.
    @Sendable private static func sealedPageSeeds() -> [[UInt8]] {
        guard let cipher = try? RecordCipher(key: envelopeKey) else { return [] }
        let kinds: [(store: UInt8, slots: [Int], kind: PageSealing.Kind)] = [
            (0, [1], .sealed), (0, [0, 3, 31], .sealed), (1, [1, 30], .checked), (1, [0, 7], .checked), (1, [2, 9], .unsealed),
        ]
        return kinds.compactMap { store, slots, kind in
            var page: [UInt8] = []
            RecordPage.beginPage(in: &page, layout: .objects)
            for slot in slots {
                var envelope: [UInt8] = []
                RecordEnvelope.appendPlain(version: 1, content: Array(repeating: UInt8(slot), count: slot % 9), to: &envelope)
                envelope.withUnsafeBytes { RecordPage.appendEntry(slot: slot, envelope: $0, to: &page) }
            }
            RecordPage.finishPage(&page, layout: .objects)
            switch kind {
            case .unsealed: break
            case .checked: PageCheck.check(&page, number: 2)
            case .sealed:
                var scratch: [UInt8] = []
                guard (try? PageSeal.seal(&page, number: 2, cipher: cipher, scope: envelopeScope, scratch: &scratch)) != nil else {
                    return nil
                }
            }
            return [store, 2] + page
        }
    }
}
