// ByteKey: bytes as a dictionary key, hashed as one block of memory. An [UInt8] or
// ArraySlice<UInt8> key hashes byte by byte: that was the largest cost of indexing a save's
// text (tokens), and a fifth of what a pool's commit cost its readers (undo lookups by key).

import Foundation

/// Bytes (a token, a record's key) as a hashable key.
internal struct ByteKey: Hashable {
    let bytes: ArraySlice<UInt8>

    init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }
    init(_ bytes: [UInt8]) { self.bytes = bytes[...] }

    func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }

    static func == (lhs: ByteKey, rhs: ByteKey) -> Bool {
        lhs.bytes.count == rhs.bytes.count && lhs.bytes.withUnsafeBytes { left in
            rhs.bytes.withUnsafeBytes { right in
                guard let leftBase = left.baseAddress, let rightBase = right.baseAddress else { return true }
                return memcmp(leftBase, rightBase, left.count) == 0
            }
        }
    }
}
