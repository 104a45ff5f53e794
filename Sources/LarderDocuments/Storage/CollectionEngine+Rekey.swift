// CollectionEngine+Rekey: one collection's share of a document store's rekey: every document
// and index entry opened with the store's cipher and sealed again with the new one (or none).

import Larder

extension CollectionEngine {
    /// Adds to `batch` every document page and index run of the collection, sealed with
    /// `newCipher` (nil: plaintext). The definition, in `_store`, is the store's to reseal.
    func reseal(into batch: inout WriteBatch, with newCipher: DocumentCipher?) throws {
        var records = PendingRecords(layout: documents.layout)
        let name = name
        try documents.forEachRecord { rowID, record in
            let key = DocumentTable.recordKey(rowID)
            let content: [UInt8]
            do {
                content = try key.withUnsafeBytes { key in
                    try DocumentRecord.withContent(record, key: key, cipher: cipher, scope: name) { Array($0) }
                }
            } catch let failure as JSONBinary.DecodingFailure {
                throw DocumentError.corruptDocument(collection: name, rowID: rowID, reason: failure.reason)
            }
            let sealed = try DocumentRecord.seal(content: content, key: key, cipher: newCipher, scope: name)
            sealed.withUnsafeBytes { records.add(envelope: $0, rowID: UInt64(rowID)) }
            return true
        }
        if !records.isEmpty { _ = try documents.write(records, firstNewRowID: definition.nextRowID, into: &batch) }
        for index in definition.indexes {
            var entries = IndexChanges(replacesAll: true)
            try table(of: index).forEachEntry(from: nil, through: nil, reverse: false) { entry in
                entries.appended.append(Array(entry))
                return true
            }
            var resealed = tableToReplace(index, sealingWith: .some(newCipher))
            try resealed.write(entries, into: &batch)
        }
    }
}
