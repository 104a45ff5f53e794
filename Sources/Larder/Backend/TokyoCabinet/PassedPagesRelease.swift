// PassedPagesRelease: lets go of the pages of a mapped file that a walk in file order has left
// behind. Reading a class file whole in place (a fetch of every object) touched every page of
// its mapping, and they all stayed resident until the file closed: 19 MB of a million songs
// counted in the process's peak memory, on top of the objects made from them. The pages stay in
// the page cache; a later read maps them again at the cost of a minor fault per 16 pages.

import Foundation

/// Releases, a megabyte at a time, the pages of a file's shared mapping that a walk in
/// ascending address order has passed (`madvise(MADV_DONTNEED)`).
///
/// Only for `MAP_SHARED` file mappings, as Tokyo Cabinet's are: there, released pages keep
/// their bytes (written ones included) in the page cache. Pages before the walk's first
/// address (a file's header and buckets) are never released.
///
/// ```swift
/// var release = PassedPagesRelease(from: firstRecord.baseAddress)
/// release.passed(record.baseAddress! + record.count)
/// ```
internal struct PassedPagesRelease {
    /// How far a walk goes past the last release before the next.
    static let step = 1 << 20
    private static let pageMask = UInt(max(1, Int(sysconf(Int32(_SC_PAGESIZE)))) - 1)

    /// The first address not released yet, on a page boundary.
    private var start: UInt
    /// The address past which the next release is made.
    private var next: UInt

    /// A release of the pages a walk from `first` passes: the page holding `first` is the
    /// first that may go.
    init(from first: UnsafeRawPointer) {
        start = UInt(bitPattern: first) & ~Self.pageMask
        next = start + UInt(Self.step)
    }

    /// Tells the release the walk is done with every byte below `address`; every whole page
    /// below it goes once a step has been passed. An address below the last release (a walk
    /// not in address order) releases nothing.
    mutating func passed(_ address: UnsafeRawPointer) {
        let reached = UInt(bitPattern: address)
        guard reached >= next else { return }
        let end = reached & ~Self.pageMask
        if let pages = UnsafeMutableRawPointer(bitPattern: start) {
            // A failure only leaves the pages resident.
            _ = madvise(pages, Int(end - start), MADV_DONTNEED)
        }
        start = end
        next = end + UInt(Self.step)
    }
}
