// CollectionFeed: a collection's change feed and the count of its writes, kept by the store for
// the collection's name, so that every DocumentCollection value of that name, and the engine
// that replaces another (a rekey), share them. Commits publish under the collection's lock, so
// in order. A write's change is derived from what it staged, after it commits: its writes pay
// nothing for the feed while no one subscribes.

import Larder
import Synchronization

/// The subscribers of one collection's changes, and the number of its last write.
final class CollectionFeed: Sendable {
    let feed = ChangeFeed<DocumentChange>()
    private let lastSequence = Mutex<UInt64>(0)

    /// Numbers a committed write and sends its change to every subscriber: the rowIDs it
    /// inserted (`inserted`, handed out in order) and those it replaced or removed (`staged`:
    /// their documents as the write left them, nil when removed). A write that changed no
    /// document gets no number; with no subscriber, nothing is gathered.
    func publish(inserted: Range<Int64>, staged: [Int64: JSON?]) {
        guard !inserted.isEmpty || !staged.isEmpty else { return }
        let sequence = lastSequence.withLock { last -> UInt64 in
            last += 1
            return last
        }
        guard feed.hasSubscribers else { return }
        var updated: [RowID] = [], removed: [RowID] = []
        for (rowID, document) in staged {
            if document == nil { removed.append(RowID(clamping: rowID)) } else { updated.append(RowID(clamping: rowID)) }
        }
        feed.publish(DocumentChange(sequence: sequence, inserted: inserted.map(RowID.init(clamping:)),
                                    updated: updated.sorted(), removed: removed.sorted()))
    }

    /// Numbers the writes of other clients that a refresh took in (which documents they
    /// changed is not known) and sends every subscriber a gap marker for them: read again.
    func publishChangesOfOtherClients() {
        let sequence = lastSequence.withLock { last -> UInt64 in
            last += 1
            return last
        }
        guard feed.hasSubscribers else { return }
        feed.publish(DocumentChange(missed: sequence ... sequence))
    }
}
