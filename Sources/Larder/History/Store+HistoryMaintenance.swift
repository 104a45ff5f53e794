// History tables in the store's maintenance: verify() opens and decodes every version, and
// rekey (or encryption turned on at open) reseals every version with the new key, in the
// rekey's one batch. Compaction needs nothing of its own: history tables are files like others.

extension Store {
    /// The history tables of every class of the registry (registered in this session or not)
    /// that hold versions, declared ordered, with their class's name and next rowID as saved.
    internal func storedHistoryTables() throws -> [(table: String, className: String, nextRowID: UInt64)] {
        var tables: [(table: String, className: String, nextRowID: UInt64)] = []
        for (name, record) in records.sorted(by: { $0.key < $1.key }) {
            let table = HistoryRecord.table(forClass: name)
            backend.declareOrderedTable(table)
            guard try backend.recordCount(in: table) > 0 else { continue }
            tables.append((table, name, entriesByName[name]?.savedNextRowID ?? record.nextRowID))
        }
        return tables
    }

    /// Adds to `batch` every version of every history table, opened with `readCipher` (the key
    /// they are sealed with, nil for checksummed ones) and written anew, checksummed (nil) or
    /// sealed with `newCipher`.
    internal func addHistoryResealed(readingWith readCipher: RecordCipher?, with newCipher: RecordCipher?,
                                     to batch: inout WriteBatch) throws {
        for (table, className, nextRowID) in try storedHistoryTables() {
            try backend.forEachRecord(in: table, from: nil, through: nil, reverse: false) { key, value in
                let record = try openRecord(key: key, value: value, className: className, nextRowID: nextRowID,
                                            cipher: readCipher)
                batch.put(try record.encodedValue(table: table, cipher: newCipher), forKey: Array(key), in: table)
                return true
            }
        }
    }

    /// Checks every record of every history table: it opens, names a save the store made and
    /// rowIDs its class handed out, its versions decode with the class's `readContent` (for a
    /// class registered in this session), and the table holds the number of records the
    /// registry counts. Adds what is wrong to `report`.
    internal func verifyHistory(into report: inout VerificationReport) throws {
        let tables = try storedHistoryTables()
        // A history emptied (its file truncated, removed or replaced) has no table here.
        for (name, expected) in historyCounts.sorted(by: { $0.key < $1.key })
        where expected > 0 && !tables.contains(where: { $0.className == name }) {
            report.problems.append(.missingRecords(table: HistoryRecord.table(forClass: name), expected: Int(clamping: expected), found: 0))
        }
        for (table, className, nextRowID) in tables {
            let entry = entriesByName[className]
            var found = 0
            try backend.forEachRecord(in: table, from: nil, through: nil, reverse: false) { key, value in
                found += 1
                let sequence = HistoryRecord.parts(ofKey: key)?.sequence ?? 0
                do {
                    let record = try openRecord(key: key, value: value, className: className, nextRowID: nextRowID,
                                                cipher: cipher)
                    report.historyVersionCount += record.versions.count
                    guard let entry else { return true }
                    for version in record.versions {
                        do {
                            _ = try decodedObject(from: version, entry: entry)
                        } catch let StoreError.undecodableRecord(name, rowID, reason) {
                            report.problems.append(.corruptHistory(class: name, rowID: rowID, sequence: sequence,
                                                                   reason: "does not decode: \(reason)"))
                        }
                    }
                } catch let StoreError.corruptHistory(name, rowID, sequence, reason) {
                    report.problems.append(.corruptHistory(class: name, rowID: rowID, sequence: sequence, reason: reason))
                }
                return true
            }
            if let expected = historyCounts[className], UInt64(found) != expected {
                report.problems.append(.missingRecords(table: table, expected: Int(clamping: expected), found: found))
            }
        }
    }
}
