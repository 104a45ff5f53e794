// TokenKey: a token's bytes as a dictionary key, hashed as one block of memory (an
// ArraySlice<UInt8> key hashes byte by byte, which was the largest cost of indexing a save).

import Foundation

/// A token (normalized UTF-8 bytes) as a hashable key.
internal struct TokenKey: Hashable {
    let bytes: ArraySlice<UInt8>

    init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }
    init(_ bytes: [UInt8]) { self.bytes = bytes[...] }

    func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }

    static func == (lhs: TokenKey, rhs: TokenKey) -> Bool {
        lhs.bytes.count == rhs.bytes.count && lhs.bytes.withUnsafeBytes { left in
            rhs.bytes.withUnsafeBytes { right in
                guard let leftBase = left.baseAddress, let rightBase = right.baseAddress else { return true }
                return memcmp(leftBase, rightBase, left.count) == 0
            }
        }
    }
}
