// PageLayout: how many consecutive rowIDs share a page (RecordPage), and whether pages carry a
// directory of their entries. Class files use 32 without; LarderDocuments' collections use
// 128 (format 3), with a directory from format 4, since a find reads many documents at once,
// every Tokyo Cabinet call costs more than the bytes it moves, and an ordered find with a
// limit reads single documents out of many pages.

/// The number of rowIDs per page, a power of two up to 256 (a slot is one byte).
///
/// ```swift
/// let layout = PageLayout.objects
/// layout.number(of: 70)   // page 2: rowIDs 64 ... 95
/// ```
package struct PageLayout: Sendable, Equatable {
    /// log2 of the rowIDs per page.
    package let slotBits: UInt64
    /// Pages are written with a directory of their entries (RecordPage's indexed format),
    /// so that reading one record does not walk the records before it.
    package let hasDirectory: Bool

    /// A layout of `1 << slotBits` rowIDs per page; `slotBits` is at most 8.
    package init(slotBits: UInt64, hasDirectory: Bool = false) {
        self.slotBits = min(slotBits, 8)
        self.hasDirectory = hasDirectory
    }

    /// Class files: 32 rowIDs per page.
    package static let objects = PageLayout(slotBits: 5)

    /// RowIDs per page.
    @inline(__always)
    package var capacity: Int { 1 << Int(slotBits) }

    /// The page holding `rowID`.
    @inline(__always)
    package func number(of rowID: UInt64) -> UInt64 { rowID >> slotBits }

    /// The first rowID of page `number` (rowID 0 is never handed out, so page 0 holds one
    /// fewer).
    @inline(__always)
    package func firstRowID(ofPage number: UInt64) -> UInt64 { number << slotBits }

    /// The slot of `rowID` in its page.
    @inline(__always)
    package func slot(of rowID: UInt64) -> Int { Int(rowID & UInt64(capacity - 1)) }
}
