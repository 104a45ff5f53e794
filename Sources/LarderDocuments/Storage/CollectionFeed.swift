// CollectionFeed: a collection's change feed and the count of its writes, kept by the store for
// the collection's name, so that every DocumentCollection value of that name, and the engine
// that replaces another (a rekey), share them. Commits publish under the collection's lock, so
// in order.

import Larder
import Synchronization

/// The subscribers of one collection's changes, and the number of its last write.
final class CollectionFeed: Sendable {
    let feed = ChangeFeed<DocumentChange>()
    private let lastSequence = Mutex<UInt64>(0)

    /// Sends a write's change to every subscriber (nothing for a write that changed no document).
    func publish(_ rows: ChangedDocuments) {
        guard !rows.isEmpty else { return }
        let sequence = lastSequence.withLock { last -> UInt64 in
            last += 1
            return last
        }
        feed.publish(DocumentChange(sequence: sequence, inserted: rows.inserted.sorted().map(RowID.init(clamping:)),
                                    updated: rows.updated.sorted().map(RowID.init(clamping:)),
                                    removed: rows.removed.sorted().map(RowID.init(clamping:))))
    }
}

/// The rowIDs one write inserts, updates and removes, as it stages them.
struct ChangedDocuments {
    var inserted: Set<Int64> = []
    var updated: Set<Int64> = []
    var removed: Set<Int64> = []

    var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && removed.isEmpty }

    /// Notes the staging of `rowID` from `old` to `new` (nil: absent).
    mutating func note(_ rowID: Int64, old: JSON?, new: JSON?) {
        switch (old, new) {
        case (nil, .some): inserted.insert(rowID)
        case (.some, .some): if !inserted.contains(rowID) { updated.insert(rowID) }
        case (.some, nil):
            updated.remove(rowID)
            if inserted.remove(rowID) == nil { removed.insert(rowID) }
        case (nil, nil): break
        }
    }
}
