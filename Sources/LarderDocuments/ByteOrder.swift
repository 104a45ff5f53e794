// ByteOrder: the order of index keys, unsigned bytes compared lexically (Tokyo Cabinet's
// B+tree order, and so the order of IndexKey encodings).

import Foundation

/// Lexical comparison of byte strings.
enum ByteOrder {
    /// Negative, zero or positive as `left` sorts before, with or after `right`.
    @inline(__always)
    static func compare(_ left: UnsafeRawBufferPointer, _ right: UnsafeRawBufferPointer) -> Int {
        let common = min(left.count, right.count)
        if common > 0, let leftBase = left.baseAddress, let rightBase = right.baseAddress {
            let order = memcmp(leftBase, rightBase, common)
            if order != 0 { return Int(order) }
        }
        return left.count - right.count
    }

    static func compare(_ left: UnsafeRawBufferPointer, _ right: [UInt8]) -> Int {
        right.withUnsafeBytes { compare(left, $0) }
    }

    static func less(_ left: [UInt8], _ right: [UInt8]) -> Bool {
        left.withUnsafeBytes { left in right.withUnsafeBytes { compare(left, $0) < 0 } }
    }
}
