// ByteOrder: the order of ordered-table keys, unsigned bytes compared lexically: Tokyo
// Cabinet's default B+tree order (`tccmplexical`), which BTreeDatabase's range scans and
// LarderDocuments' index keys and runs follow.

import Foundation

/// Lexical comparison of byte strings.
@usableFromInline package enum ByteOrder {
    /// Negative, zero or positive as `left` sorts before, with or after `right`.
    @inlinable
    package static func compare(_ left: UnsafeRawBufferPointer, _ right: UnsafeRawBufferPointer) -> Int {
        let common = min(left.count, right.count)
        if common > 0, let leftBase = left.baseAddress, let rightBase = right.baseAddress {
            let order = memcmp(leftBase, rightBase, common)
            if order != 0 { return Int(order) }
        }
        return left.count - right.count
    }

    @inlinable
    package static func compare(_ left: UnsafeRawBufferPointer, _ right: [UInt8]) -> Int {
        right.withUnsafeBytes { compare(left, $0) }
    }

    @inlinable
    package static func less(_ left: [UInt8], _ right: [UInt8]) -> Bool {
        left.withUnsafeBytes { left in right.withUnsafeBytes { compare(left, $0) < 0 } }
    }

    /// How many leading bytes `left` and `right` have in common. Eight bytes at a time: index
    /// entries share most of their bytes with their neighbours.
    @inlinable
    package static func sharedPrefixCount(_ left: UnsafeRawBufferPointer, _ right: UnsafeRawBufferPointer) -> Int {
        let common = min(left.count, right.count)
        guard common > 0, let leftBase = left.baseAddress, let rightBase = right.baseAddress else { return 0 }
        var position = 0
        while position &+ 8 <= common {
            let difference = leftBase.loadUnaligned(fromByteOffset: position, as: UInt64.self)
                ^ rightBase.loadUnaligned(fromByteOffset: position, as: UInt64.self)
            // The lowest differing byte in memory is the first that differs.
            if difference != 0 { return position &+ UInt64(littleEndian: difference).trailingZeroBitCount / 8 }
            position &+= 8
        }
        while position < common, leftBase.load(fromByteOffset: position, as: UInt8.self) == rightBase.load(fromByteOffset: position, as: UInt8.self) {
            position &+= 1
        }
        return position
    }
}
