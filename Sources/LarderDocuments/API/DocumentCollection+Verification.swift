// DocumentCollection+Verification: recomputes every index entry from the documents and
// compares with the B+tree files, to prove (in tests, or after a crash) that documents and
// indexes agree.

import Larder

extension DocumentCollection {
    /// The definitions of the indexes whose entries differ from what the documents give;
    /// empty when every index agrees with the documents. Reads every document and entry.
    ///
    /// ```swift
    /// let damaged = try people.inconsistentIndexes()
    /// if !damaged.isEmpty { print("indexes to rebuild: \(damaged)") }
    /// ```
    public func inconsistentIndexes() throws -> [String] {
        try withState { state in
            var inconsistent: [String] = []
            for index in state.definition.indexes {
                var expected = Set<[UInt8]>()
                try state.forEachDocument { rowID, document in
                    for entry in index.entries(for: document, rowID: rowID, defaults: state.defaults).entries {
                        expected.insert(entry.key)
                    }
                    return true
                }
                var actual = Set<[UInt8]>()
                try state.table(of: index).forEachEntry(from: nil, through: nil, reverse: false) { key in
                    actual.insert(Array(key))
                    return true
                }
                if expected != actual { inconsistent.append(index.name) }
            }
            return inconsistent
        }
    }
}
