// The tag of a field, derived from its name: the same function as Larder's
// StoredField.tag(forName:) (a test checks they agree), computed here at compile time.

enum FieldTag {
    /// The 32-bit FNV-1a hash of the name's UTF-8 bytes, shifted right by 3 (29 bits).
    static func tag(forName name: String) -> UInt32 {
        var hash: UInt32 = 0x811c_9dc5
        for byte in name.utf8 {
            hash ^= UInt32(byte)
            hash = hash &* 0x0100_0193
        }
        return hash >> 3
    }

    /// The wire numbers of Larder's StoredFieldWire.
    enum Wire: UInt32 {
        case byte = 0, fixed16, fixed32, fixed64, varint, bytes, null, sequence
    }

    /// The key `tag << 3 | wire`, as a hexadecimal literal.
    static func keyLiteral(tag: UInt32, wire: Wire) -> String {
        "0x" + String(tag << 3 | wire.rawValue, radix: 16)
    }
}
