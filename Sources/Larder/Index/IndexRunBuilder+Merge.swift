// IndexRunBuilder+Merge: a stored run's entries with a write's changes applied, appended to a
// builder the way IndexTable's commit rewrites a run. An entry the changes leave between the
// same neighbours keeps the count of bytes it shares with the one before it as the run stores
// it, so only the entries next to a change (and restart points) are compared: the bytes are
// the same as appending every resulting entry one by one.

extension IndexRunBuilder {
    /// Appends the entries of the run stored as `key` and `value`, with `changes` (sorted)
    /// applied: additions merged in, removals left out, an addition equal to an entry kept once.
    /// The changes may reach past the run's last entry: those after it follow it.
    package mutating func append(run key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer,
                                 merging changes: ArraySlice<(entry: [UInt8], isAdded: Bool)>) throws {
        var next = changes.startIndex
        // Whether the entry appended last is the stored entry before the one read: then the
        // count of bytes the run stores the one read sharing with it holds here too.
        var followsStoredEntry = false
        try IndexRun.forEachEntryWithSharedCount(key: key, value: value) { entry, shared in
            var order = 1
            while next < changes.endIndex {
                order = changes[next].entry.withUnsafeBytes { ByteOrder.compare(entry, $0) }
                guard order > 0 else { break }
                if changes[next].isAdded {
                    append(changes[next].entry)
                    followsStoredEntry = false
                }
                next += 1
            }
            // A change replaces the entry it equals.
            if order == 0 {
                let isAdded = changes[next].isAdded
                next += 1
                guard isAdded else {
                    followsStoredEntry = false
                    return true
                }
            }
            // A restart point is stored sharing nothing, whatever it has in common.
            if followsStoredEntry && shared > 0 { append(entry, sharing: shared) } else { append(entry) }
            followsStoredEntry = true
            return true
        }
        for change in changes[next...] where change.isAdded { append(change.entry) }
    }
}
