// What one write does to an index table, sorted for the commit (IndexChanges.sorted()): every
// entry once, in key order, as the last stage that named it left it.

import Larder
import Testing

@Suite struct IndexChangesTests {
    private static func entry(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func theLastStageOfAnEntryWinsAndEveryEntryComesOnceInOrder() {
        var changes = IndexChanges(appended: [Self.entry("new b"), Self.entry("new a")])
        changes.change(Self.entry("kept"), isAdded: true)
        changes.change(Self.entry("flipped, long enough to tie on 16 bytes 1"), isAdded: false)
        changes.change(Self.entry("flipped, long enough to tie on 16 bytes 2"), isAdded: true)
        changes.change(Self.entry("flipped, long enough to tie on 16 bytes 1"), isAdded: true)
        changes.change(Self.entry("gone"), isAdded: true)
        changes.change(Self.entry("gone"), isAdded: false)
        changes.change(Self.entry("back"), isAdded: false)
        changes.change(Self.entry("back"), isAdded: true)
        changes.change(Self.entry("back"), isAdded: false)
        let sorted = changes.sorted()
        #expect(sorted.map { String(decoding: $0.entry, as: UTF8.self) } == [
            "back", "flipped, long enough to tie on 16 bytes 1", "flipped, long enough to tie on 16 bytes 2",
            "gone", "kept", "new a", "new b",
        ])
        #expect(sorted.map(\.isAdded) == [false, true, true, false, true, true, true])
    }

    @Test func noChangesSortToNone() {
        #expect(IndexChanges().sorted().isEmpty)
        #expect(IndexChanges(replacesAll: true).sorted().isEmpty)
    }
}
