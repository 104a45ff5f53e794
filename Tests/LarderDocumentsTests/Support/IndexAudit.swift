// Recomputes every index entry from the documents and compares with the B+tree files.

import Larder
@testable import LarderDocuments

extension DocumentCollection {
    /// Index tables whose entries differ from what the documents give (empty: consistent).
    func inconsistentIndexes() throws -> [String] {
        try withState { state in
            var bad: [String] = []
            for index in state.definition.indexes {
                var expected = Set<[UInt8]>()
                try state.forEachDocument { rowID, document in
                    for entry in index.entries(for: document, rowID: rowID, defaults: state.defaults).entries {
                        var key = entry.prefix
                        IndexKey.appendRowID(rowID, to: &key)
                        expected.insert(key)
                    }
                    return true
                }
                var actual = Set<[UInt8]>()
                try state.backend.forEachRecord(in: index.table(in: state.name), from: nil, through: nil, reverse: false) { key, _ in
                    actual.insert(Array(key))
                    return true
                }
                if expected != actual { bad.append(index.name) }
            }
            return bad
        }
    }
}
