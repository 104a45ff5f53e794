// Verification: read every record of every class, every named buffer, every change record and
// every history version, check checksums, decoding and references, and report what is wrong
// without changing anything.

extension Store {
    /// Reads every record of every class, every named buffer, every change record and every
    /// version of the classes' histories; checks checksums, that records of registered classes,
    /// of the change log and of the histories decode, and that references point at existing rows.
    /// Changes nothing, and reports problems instead of throwing them.
    ///
    /// ```swift
    /// let report = try store.verify()
    /// print(report.classes.map { "\($0.name): \($0.recordCount)" })
    /// assert(report.isHealthy, "\(report.problems)")
    /// ```
    public func verify() throws -> VerificationReport {
        try verify(progress: nil)
    }

    /// ``verify()``, telling `progress` how many object records it has checked and how many the
    /// registry says there are (after each page of a class file, and once at the end of each
    /// class); the rest of the checks (indexes, named buffers, change log, history) follow the
    /// last call. For tools that show a progress bar (the `larder` command's `verify`).
    ///
    /// ```swift
    /// let report = try store.verify { checked, expected in print("\(checked)/\(expected)") }
    /// ```
    package func verify(progress: ((_ checked: Int, _ expected: Int) -> Void)?) throws -> VerificationReport {
        try checkOpen()
        var report = VerificationReport()
        let expectedRecords = records.values.reduce(0) { $0 + $1.expectedRecordCount }
        var checkedRecords = 0
        var existing: [String: Set<UInt64>] = [:]
        var references: [(fromClass: String, fromRowID: UInt64, toClass: String, toRowID: UInt64)] = []
        var indexedTexts: [String: [UInt64: RowText]] = [:]
        // The entries each object gives its class's indexes, by class, in index order.
        var indexEntries: [String: [[[UInt8]]]] = [:]
        // Pages reported damaged, by class: references into them are not reported again.
        var damagedPages: [String: Set<UInt64>] = [:]

        for name in records.keys.sorted() {
            guard let record = records[name] else { continue }
            let entry = entriesByName[name]
            var summary = VerificationReport.ClassSummary(name: name, recordCount: 0, byteCount: 0, decoded: entry != nil)
            var rowIDs = Set<UInt64>()
            func check(_ rowID: UInt64, _ envelope: UnsafeRawBufferPointer, _ key: UnsafeRawBufferPointer,
                       _ envelopeCipher: RecordCipher?) {
                summary.recordCount += 1
                rowIDs.insert(rowID)
                if rowID >= (entry?.nextRowID ?? record.nextRowID) || record.deletedRowIDs.contains(rowID) {
                    report.problems.append(.unexpectedRowID(class: name, rowID: rowID))
                }
                var buffer: DataBuffer
                do {
                    buffer = try RecordEnvelope.open(envelope, key: key, cipher: envelopeCipher, scope: record.classID)
                } catch {
                    report.problems.append(.corruptRecord(class: name, rowID: rowID))
                    return
                }
                guard let entry else { return }
                referenceObserver = { target, targetRowID in
                    references.append((name, rowID, target.name, targetRowID))
                }
                defer { referenceObserver = nil }
                let scratch = entry.type.init()
                scratch.isLoadingContent = true
                do {
                    try scratch.readContent(from: &buffer, in: self)
                    if entry.textIndex != nil, let text = Self.normalizedText(of: scratch) {
                        indexedTexts[name, default: [:]][rowID] = text
                    }
                    if !entry.objectIndexes.isEmpty {
                        scratch.rowID = rowID
                        for (position, index) in entry.objectIndexes.enumerated() {
                            // Appended in place: copying the lists for every record made verify quadratic.
                            indexEntries[name, default: Array(repeating: [], count: entry.objectIndexes.count)][position]
                                .append(index.definition.entry(for: scratch).bytes)
                        }
                    }
                } catch {
                    report.problems.append(.undecodableRecord(class: name, rowID: rowID, reason: "\(error)"))
                }
            }
            let sealing = pageSealing(scope: record.classID)
            var opened: [UInt8] = []
            try backend.forEachRecord(in: name) { key, page in
                summary.byteCount += page.count
                guard let number = RecordPage.number(inKey: key) else {
                    report.problems.append(.malformedKey(table: name))
                    return true
                }
                do {
                    try sealing.withOpenedPage(page, number: number, scratch: &opened) { page, envelopeCipher in
                        try RecordPage.forEachRecord(in: page, number: number) { rowID, envelope in
                            withUnsafeBytes(of: rowID.bigEndian) { key in check(rowID, envelope, key, envelopeCipher) }
                        }
                    }
                } catch {
                    // The records before the damage were checked; the rest of the page cannot be.
                    report.problems.append(.corruptRecord(class: name, rowID: (error as? RecordPage.Damage)?.firstRowID ?? 0))
                    damagedPages[name, default: []].insert(number)
                }
                progress?(checkedRecords + summary.recordCount, expectedRecords)
                return true
            }
            checkedRecords += summary.recordCount
            progress?(checkedRecords, expectedRecords)
            if summary.recordCount < record.expectedRecordCount {
                report.problems.append(.missingRecords(table: name, expected: record.expectedRecordCount,
                                                       found: summary.recordCount))
            }
            existing[name] = rowIDs
            report.classes.append(summary)
        }
        for reference in references where existing[reference.toClass]?.contains(reference.toRowID) != true {
            if damagedPages[reference.toClass]?.contains(RecordPage.number(of: reference.toRowID)) == true { continue }
            // A reference to a deleted row reads as nil by design: worth knowing, not damage.
            if records[reference.toClass]?.deletedRowIDs.contains(reference.toRowID) == true {
                report.referencesToDeletedRows += 1
                continue
            }
            report.problems.append(.danglingReference(fromClass: reference.fromClass, fromRowID: reference.fromRowID,
                                                      toClass: reference.toClass, toRowID: reference.toRowID))
        }
        for entry in entriesByName.values.sorted(by: { $0.name < $1.name }) {
            guard let index = entry.textIndex, index.isRegistered else { continue }
            report.problems += verify(index, objectTexts: indexedTexts[entry.name] ?? [:])
        }
        for entry in entriesByName.values.sorted(by: { $0.name < $1.name }) where entry.pendingIndexBuild == nil {
            for (position, index) in entry.objectIndexes.enumerated() {
                let expected = indexEntries[entry.name]?[position] ?? []
                if let reason = try verify(index, expecting: expected) {
                    report.problems.append(.objectIndexMismatch(class: entry.name, index: index.name, reason: reason))
                }
            }
        }
        try backend.forEachRecord(in: Self.namesTable) { key, value in
            report.namedBufferCount += 1
            do {
                _ = try RecordEnvelope.open(value, key: key, cipher: cipher, scope: 0)
            } catch {
                let name = String(decoding: key, as: UTF8.self)
                report.problems.append(.corruptNamedBuffer(name: name))
            }
            return true
        }
        if let expected = namedBufferCount, report.namedBufferCount < expected {
            report.problems.append(.missingRecords(table: Self.namesTable, expected: expected, found: report.namedBufferCount))
        }
        try verifyChangeLog(into: &report)
        try verifyHistory(into: &report)
        return report
    }

    /// Checks that every change record the `sequence` record says is kept is there, opens and
    /// fits the store, and that no other is.
    private func verifyChangeLog(into report: inout VerificationReport) throws {
        let known = knownClasses()
        let kept = changeLog.kept
        var found = Set<UInt64>()
        try backend.forEachRecord(in: Self.metadataTable) { key, value in
            guard ChangeRecord.isChangeKey(key) else { return true }
            guard let number = ChangeRecord.sequence(inKey: key) else {
                report.problems.append(.malformedKey(table: Self.metadataTable))
                return true
            }
            guard kept?.contains(number) == true else {
                let range = kept.map { "\($0.lowerBound) to \($0.upperBound)" } ?? "none"
                report.problems.append(.corruptChangeLog(sequence: number, reason: "the record lies outside the saves kept (\(range))"))
                return true
            }
            found.insert(number)
            report.changeRecordCount += 1
            do {
                _ = try change(number: number, stored: value, classes: known)
            } catch let StoreError.corruptChangeLog(_, reason) {
                report.problems.append(.corruptChangeLog(sequence: number, reason: reason))
            }
            return true
        }
        guard let kept, UInt64(found.count) <= kept.upperBound - kept.lowerBound else { return }
        // Some are missing: the first one names them (the loop ends at it).
        var first = kept.lowerBound
        while found.contains(first) { first += 1 }
        let missing = kept.upperBound - kept.lowerBound + 1 - UInt64(found.count)
        report.problems.append(.corruptChangeLog(sequence: first, reason: "\(missing) of the records kept are missing"))
    }

    /// Why the entries of `index` differ from `expected` (the entries its class's objects
    /// give), or nil when they agree.
    private func verify(_ index: ObjectIndexState, expecting expected: [[UInt8]]) throws -> String? {
        var stored: [[UInt8]] = []
        do {
            try index.table.forEachEntry(from: nil, through: nil, reverse: false) { entry in
                stored.append(Array(entry))
                return true
            }
        } catch let error as StoreError {
            return "\(error)"
        }
        let wanted = expected.sorted(by: ByteOrder.less)
        guard stored != wanted else { return nil }
        let missing = Set(wanted).subtracting(stored).count
        let extra = Set(stored).subtracting(wanted).count
        return "\(missing) entr\(missing == 1 ? "y" : "ies") missing, \(extra) not matching an object"
    }
}
