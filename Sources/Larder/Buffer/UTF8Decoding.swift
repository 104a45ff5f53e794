// UTF8Decoding: stored bytes to String, refusing invalid UTF-8. The standard library's
// validating initializer runs unspecialized generic code (most of the time of a document
// fetch went to its metadata lookups); ASCII, the common case, needs no validator at all.

/// Validated UTF-8 decoding for record readers.
package enum UTF8Decoding {
    /// The text in `utf8`, or nil when the bytes are not valid UTF-8.
    @inline(__always)
    package static func string(_ utf8: UnsafeBufferPointer<UInt8>) -> String? {
        guard isASCII(utf8) else { return String(validating: utf8, as: UTF8.self) }
        if utf8.count <= SmallASCIIString.capacity, SmallASCIIString.isAvailable { return SmallASCIIString.make(utf8) }
        return String(unsafeUninitializedCapacity: utf8.count) { buffer in
            guard let target = buffer.baseAddress, let source = utf8.baseAddress else { return 0 }
            target.update(from: source, count: utf8.count)
            return utf8.count
        }
    }

    /// The text in `bytes`, or nil when they are not valid UTF-8.
    @inline(__always)
    package static func string(_ bytes: UnsafeRawBufferPointer) -> String? {
        string(bytes.assumingMemoryBound(to: UInt8.self))
    }

    /// True when every byte is below 0x80, checked eight bytes at a time.
    @inline(__always)
    static func isASCII(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = utf8.baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        var position = 0
        var high: UInt64 = 0
        while position + 8 <= utf8.count {
            high |= raw.loadUnaligned(fromByteOffset: position, as: UInt64.self)
            position += 8
        }
        while position < utf8.count {
            high |= UInt64(utf8[position])
            position += 1
        }
        return high & 0x8080_8080_8080_8080 == 0
    }
}
