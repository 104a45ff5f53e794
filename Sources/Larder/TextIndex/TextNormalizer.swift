// TextNormalizer: how indexed text and query words are compared. Text is case-folded and put in
// Unicode normalization form C, as UTF-8 bytes; a token is a maximal run of word characters
// (letters, digits and combining marks) in those bytes.

import Foundation

/// Case folding, normalization and tokenization of indexed text and queries.
internal enum TextNormalizer {
    /// `text` case-folded and in normalization form C, as UTF-8: "Café", "CAFÉ" and
    /// "cafe\u{301}" all become the bytes of "café".
    static func normalize(_ text: String) -> [UInt8] {
        // Fast path: ASCII text only needs A-Z lowered.
        var ascii: [UInt8] = []
        let isASCII = text.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            ascii.reserveCapacity(bytes.count)
            for byte in bytes {
                guard byte < 0x80 else { return false }
                ascii.append(byte &- 0x41 < 26 ? byte | 0x20 : byte)
            }
            return true
        }
        if isASCII == true { return ascii }
        let folded = text.folding(options: [.caseInsensitive], locale: nil).precomposedStringWithCanonicalMapping
        return Array(folded.utf8)
    }

    /// The byte ranges of the tokens of normalized text, in order.
    static func tokenRanges(_ bytes: [UInt8]) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var start = -1
        var index = 0
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            let length: Int
            let isWord: Bool
            if byte < 0x80 {
                length = 1
                isWord = (byte &- 0x61 < 26) || (byte &- 0x30 < 10) || (byte &- 0x41 < 26)
            } else {
                (isWord, length) = nonASCIIScalar(in: bytes, at: index)
            }
            if isWord {
                if start < 0 { start = index }
            } else if start >= 0 {
                ranges.append(start ..< index)
                start = -1
            }
            index += length
        }
        if start >= 0 { ranges.append(start ..< count) }
        return ranges
    }

    /// The tokens of normalized text, each once, in order of first appearance.
    static func uniqueTokens(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var tokens: [ArraySlice<UInt8>] = []
        for range in tokenRanges(bytes) {
            let token = bytes[range]
            if !tokens.contains(token) { tokens.append(token) }
        }
        return tokens
    }

    /// Whether the scalar starting at `index` (a non-ASCII lead byte) is a word character, and
    /// its length in bytes. Malformed UTF-8 (which normalized text never holds) is a separator.
    private static func nonASCIIScalar(in bytes: [UInt8], at index: Int) -> (isWord: Bool, length: Int) {
        let lead = bytes[index]
        let length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1
        guard length > 1, index + length <= bytes.count else { return (false, 1) }
        var value = UInt32(lead) & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07)
        for offset in 1 ..< length {
            let next = bytes[index + offset]
            guard next & 0xC0 == 0x80 else { return (false, 1) }
            value = value << 6 | UInt32(next & 0x3F)
        }
        guard let scalar = Unicode.Scalar(value) else { return (false, length) }
        return (isWordCharacter(scalar), length)
    }

    /// Letters, digits and marks (accents kept apart by normalization) are word characters.
    static func isWordCharacter(_ scalar: Unicode.Scalar) -> Bool {
        let properties = scalar.properties
        if properties.isAlphabetic { return true }
        switch properties.generalCategory {
        case .decimalNumber, .letterNumber, .otherNumber, .nonspacingMark, .spacingMark, .enclosingMark:
            return true
        default:
            return false
        }
    }

    /// Whether `needle` occurs in `haystack` (bytes).
    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty else { return true }
        guard haystack.count >= needle.count else { return false }
        return haystack.withUnsafeBufferPointer { hay in
            needle.withUnsafeBufferPointer { pattern in
                ByteSearch.firstOccurrence(of: pattern, in: hay, from: 0) != nil
            }
        }
    }
}

/// Finding a byte pattern in a byte buffer, memchr for the first byte then a compare.
internal enum ByteSearch {
    /// The offset of the first occurrence of `pattern` in `buffer` at or after `start`.
    static func firstOccurrence(of pattern: UnsafeBufferPointer<UInt8>, in buffer: UnsafeBufferPointer<UInt8>,
                                from start: Int) -> Int? {
        guard let base = buffer.baseAddress, let patternBase = pattern.baseAddress, !pattern.isEmpty else { return nil }
        let first = Int32(pattern[0])
        let last = buffer.count - pattern.count
        var position = start
        while position <= last {
            guard let found = memchr(base + position, first, last - position + 1) else { return nil }
            let offset = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            if memcmp(base + offset, patternBase, pattern.count) == 0 { return offset }
            position = offset + 1
        }
        return nil
    }
}
