// SmallASCIIString: builds a String of at most 15 ASCII bytes directly in its inline form.
// Documents are mostly short strings (names, countries, tags); the standard library's
// initializers reach them through a closure and a second validation (callgrind: building
// them here runs 5% fewer instructions in decoding the benchmark's documents). The inline
// form of a 64-bit String is part of Swift's stable ABI: the bytes in order, then in the last byte the
// discriminator of an immortal, small, ASCII string (0xE) and the count. A check at first
// use compares the result with the standard library's; on any other layout, or a 32-bit or
// big-endian platform, nothing is built this way.

/// Short ASCII strings without the standard library's initializers.
package enum SmallASCIIString {
    /// The most bytes a String holds inline on 64-bit platforms.
    package static let capacity = 15

    /// True when ``make(_:)`` gives what the standard library gives, checked once.
    package static let isAvailable: Bool = {
        #if _endian(little) && _pointerBitWidth(_64)
        let samples = ["", "a", "UK", "tag7", "Last1500", "first_name12345", "~ !\u{7F}\t"]
        return samples.allSatisfy { sample in
            var sample = sample
            let made = sample.withUTF8 { make($0) }
            return made == sample && made.hashValue == sample.hashValue && made.count == sample.count
                && made.utf8.elementsEqual(sample.utf8) && made.unicodeScalars.elementsEqual(sample.unicodeScalars)
        }
        #else
        return false
        #endif
    }()

    /// The string of `utf8`: at most ``capacity`` bytes, all below 0x80 (unchecked).
    /// Only when ``isAvailable``.
    @inline(__always)
    package static func make(_ utf8: UnsafeBufferPointer<UInt8>) -> String {
        var words: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &words) { words in
            if let source = utf8.baseAddress, utf8.count > 0 {
                words.baseAddress?.copyMemory(from: source, byteCount: min(utf8.count, capacity))
            }
        }
        // Last byte: immortal (0x80), ASCII (0x40), small (0x20), then the count.
        words.1 |= (0xE0 | UInt64(min(utf8.count, capacity))) << 56
        return unsafeBitCast(words, to: String.self)
    }
}
