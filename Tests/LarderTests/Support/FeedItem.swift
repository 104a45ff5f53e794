// FeedItem: the change-feed tests' class with a unique index, so that a test can make a save
// fail (two items with one code) and check that it makes no change and takes no number.

@testable import Larder

final class FeedItem: StoredObject {
    @Stored var code: UInt64 = 0
    @Stored var note = ""

    override class var indexes: [ObjectIndex] { [ObjectIndex(\FeedItem.code, unique: true)] }

    convenience init(code: UInt64, note: String = "") {
        self.init()
        self.code = code
        self.note = note
    }

    override func writeContent(to buffer: inout DataBuffer) {
        buffer.write(code)
        buffer.write(note)
    }

    override func readContent(from buffer: inout DataBuffer, in store: Store) throws {
        code = try buffer.readUInt64()
        note = try buffer.readString()
    }
}

extension StoreChange {
    /// The change the tests expect: save `sequence` with these rowIDs by class storage name
    /// (inserted, updated, deleted) and named buffers.
    static func expected(_ sequence: UInt64, _ classes: [String: (inserted: [UInt64], updated: [UInt64], deleted: [UInt64])] = [:],
                         buffers: Set<String> = []) -> StoreChange {
        StoreChange(sequence: sequence, classes: classes.mapValues {
            ChangedRowIDs(inserted: RowIDRanges(sorting: $0.inserted), updated: RowIDRanges(sorting: $0.updated),
                          deleted: RowIDRanges(sorting: $0.deleted))
        }.filter { !$0.value.isEmpty }, namedBuffers: buffers)
    }
}

/// Every change `stream` delivers until it finishes (the store closes).
func collect(_ stream: AsyncStream<StoreChange>) async -> [StoreChange] {
    var changes: [StoreChange] = []
    for await change in stream { changes.append(change) }
    return changes
}
