// PageLayout: how many consecutive rowIDs share a page (RecordPage). Class files use 32;
// LarderDocuments' collections (format 3) use 128, since a find reads many documents at once
// and every Tokyo Cabinet call costs more than the bytes it moves.

/// The number of rowIDs per page, a power of two up to 256 (a slot is one byte).
///
/// ```swift
/// let layout = PageLayout.objects
/// layout.number(of: 70)   // page 2: rowIDs 64 ... 95
/// ```
package struct PageLayout: Sendable, Equatable {
    /// log2 of the rowIDs per page.
    package let slotBits: UInt64

    /// A layout of `1 << slotBits` rowIDs per page; `slotBits` is at most 8.
    package init(slotBits: UInt64) {
        self.slotBits = min(slotBits, 8)
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
