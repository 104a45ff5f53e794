// Appending raw memory to a byte array with one copy. `Array.append(contentsOf:)` with an
// UnsafeRawBufferPointer goes element by element; a typed UInt8 buffer is copied at once.

extension Array where Element == UInt8 {
    /// Appends the bytes of `raw` with a single copy.
    @inline(__always)
    internal mutating func appendBytes(_ raw: UnsafeRawBufferPointer) {
        guard let base = raw.baseAddress, raw.count > 0 else { return }
        append(contentsOf: UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: raw.count))
    }
}
