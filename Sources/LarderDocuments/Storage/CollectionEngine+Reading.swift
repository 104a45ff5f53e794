// CollectionEngine+Reading: what the query executor reads through a collection's engine (its DocumentSource side):
// documents by rowID (through the cache), every document, and index entries by range.

import Foundation
import Larder

extension CollectionEngine {

    func document(_ rowID: Int64) throws -> JSON? {
        if let cached = cache.document(for: rowID) { return cached }
        let result = try documents.document(rowID)
        if let result { cache.store(result, for: rowID) }
        return result
    }

    func documents(_ rowIDs: [Int64]) throws -> [(rowID: Int64, document: JSON)] {
        var wanted = rowIDs
        if zip(wanted, wanted.dropFirst()).contains(where: { $0 >= $1 }) {
            // Sorted, then each rowID once (no set to build for the 20 rows of an ordered find).
            wanted.sort()
            var kept = 0
            for position in wanted.indices where kept == 0 || wanted[position] != wanted[kept - 1] {
                wanted[kept] = wanted[position]
                kept += 1
            }
            wanted.removeLast(wanted.count - kept)
        }
        var cached: [(rowID: Int64, document: JSON)] = []
        if cache.capacity > 0 {
            var missing: [Int64] = []
            for rowID in wanted {
                if let document = cache.document(for: rowID) { cached.append((rowID, document)) } else { missing.append(rowID) }
            }
            wanted = missing
        }
        let pageBound = Int(documents.layout.number(of: UInt64(max(definition.nextRowID, 1)))) + 1
        let batches = try documents.records(of: wanted, pageBound: pageBound)
        let name = name
        let cipher = cipher
        var found = try CopiedRecords.decode(batches, shapes: documents.shapes) { record, rowID, shapes in
            try DocumentTable.open(record, rowID: rowID, collection: name, cipher: cipher, shapes: shapes)
        }
        // Caching every document in turn would leave the last ones: cache only those.
        for position in max(0, found.count - cache.capacity) ..< found.count {
            cache.store(found[position].document, for: found[position].rowID)
        }
        if !cached.isEmpty {
            found += cached
            found.sort { $0.rowID < $1.rowID }
        }
        return found
    }

    func forEachDocument(_ body: (Int64, JSON) throws -> Bool) throws {
        try documents.forEachRecord { rowID, record in
            try body(rowID, cache.document(for: rowID) ?? documents.open(record, rowID: rowID))
        }
    }

    func forEachIndexEntry(_ index: IndexDefinition, in range: KeyRange, reverse: Bool,
                           _ body: (Int64) throws -> Bool) throws {
        try table(of: index).forEachEntry(from: range.start, through: range.end, reverse: reverse) { key in
            guard let rowID = IndexKey.rowID(in: key) else { return true }
            return try body(rowID)
        }
    }

    func countIndexEntries(_ index: IndexDefinition, in range: KeyRange) throws -> Int {
        try table(of: index).count(from: range.start, through: range.end)
    }
}
