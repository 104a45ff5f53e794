// SmallASCIIString: builds a String of at most 15 ASCII bytes directly in its inline form.
// Documents are mostly short strings (names, countries, tags); the standard library's
// initializers reach them through a closure and a second validation (callgrind: building
// them here runs 5% fewer instructions in decoding the benchmark's documents). A decoder
// that knows 16 bytes around the string are readable has them read as two words, masked,
// instead of copied through memory. The inline form of a 64-bit String is part of Swift's
// stable ABI: the bytes in order, then in the last byte the discriminator of an immortal,
// small, ASCII string (0xE) and the count. A check at first use compares the results with
// the standard library's; on any other layout, or a 32-bit or big-endian platform, nothing
// is built this way.

/// Short ASCII strings without the standard library's initializers.
@usableFromInline package enum SmallASCIIString {
    /// The most bytes a String holds inline on 64-bit platforms.
    @inlinable package static var capacity: Int { 15 }

    /// True when ``make(_:)`` and ``make(reading:count:)`` give what the standard library
    /// gives, checked once.
    package static let isAvailable: Bool = {
        #if _endian(little) && _pointerBitWidth(_64)
        let samples = ["", "a", "UK", "tag7", "Last1500", "first_name12345", "~ !\u{7F}\t"]
        return samples.allSatisfy { sample in
            var sample = sample
            let made = sample.withUTF8 { make($0) }
            // The same bytes read as two words, with other ASCII bytes after them, then before.
            let count = sample.utf8.count
            let padding = Array(repeating: UInt8(ascii: "Z"), count: 16 - count)
            let read = (Array(sample.utf8) + padding).withUnsafeBytes { $0.baseAddress.flatMap { make(reading: $0, count: count) } }
            let readBack = (padding + Array(sample.utf8)).withUnsafeBytes {
                $0.baseAddress.flatMap { make(readingBackFrom: $0 + 16, count: count) }
            }
            return [made, read, readBack].allSatisfy { made in
                made == sample && made?.hashValue == sample.hashValue && made?.count == sample.count
                    && made?.utf8.elementsEqual(sample.utf8) == true && made?.unicodeScalars.elementsEqual(sample.unicodeScalars) == true
            }
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
        return assembled(words.0, words.1, count: min(utf8.count, capacity))
    }

    /// The string of the `count` (at most ``capacity``) bytes at `source`, read as two
    /// words, so `source` must have 16 readable bytes; nil when one of the `count` is not
    /// ASCII. Only when ``isAvailable``. (No copy through memory: a decoder reading a record
    /// knows when 16 bytes are left in it.)
    @inlinable @inline(__always)
    package static func make(reading source: UnsafeRawPointer, count: Int) -> String? {
        let count = min(count, capacity)
        var first = source.loadLittleEndian(UInt64.self)
        var second = source.loadLittleEndian(UInt64.self, at: 8)
        if count < 8 {
            first &= (1 &<< UInt64(truncatingIfNeeded: count &* 8)) &- 1
            second = 0
        } else {
            second &= (1 &<< UInt64(truncatingIfNeeded: (count &- 8) &* 8)) &- 1
        }
        return inline(first, second, count: count)
    }

    /// ``make(reading:count:)`` for `count` bytes that end at `end`, read as the two words
    /// before it, so the 16 bytes before `end` must be readable: for the last bytes of a
    /// record.
    @inlinable @inline(__always)
    package static func make(readingBackFrom end: UnsafeRawPointer, count: Int) -> String? {
        let count = min(count, capacity)
        let low = end.loadLittleEndian(UInt64.self, at: -16)
        let high = end.loadLittleEndian(UInt64.self, at: -8)
        // The wanted bytes are the last `count` of the 16: shifted down by the others.
        let shift = (16 - count) * 8
        if shift >= 64 { return inline(high >> (shift - 64), 0, count: count) }
        return inline((low >> shift) | (high << (64 - shift)), high >> shift, count: count)
    }

    /// The string whose `count` bytes are `first` then `second` (little-endian, zero above
    /// them), when all are ASCII.
    @usableFromInline @inline(__always)
    static func inline(_ first: UInt64, _ second: UInt64, count: Int) -> String? {
        guard (first | second) & 0x8080_8080_8080_8080 == 0 else { return nil }
        return assembled(first, second, count: count)
    }

    /// The string whose `count` bytes, all ASCII (unchecked), are `first` then `second`
    /// (little-endian, zero above them).
    @usableFromInline @inline(__always)
    static func assembled(_ first: UInt64, _ second: UInt64, count: Int) -> String {
        // Last byte: immortal (0x80), ASCII (0x40), small (0x20), then the count.
        let last = second | (0xE0 | UInt64(truncatingIfNeeded: count)) << 56
        return unsafeBitCast((first, last), to: String.self)
    }
}
