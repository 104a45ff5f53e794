// EntryAnchor: where a stored object finds its class entry and its store. The anchor's address
// is aligned to 64 bytes, so an object keeps it and its six flags in one word (ObjectState):
// 8 bytes instead of two pointers and five flag bytes, which puts a Song (a String and a UInt32)
// in a 64-byte malloc chunk instead of an 80-byte one.

/// A class entry and its store, neither retained, at an address aligned to ``alignment``.
/// The entry allocates its anchor and frees it when it goes; an object holding the address
/// relies on the entry outliving it, as the store detaches every live object before it closes.
internal struct EntryAnchor {
    /// The anchor's alignment: the low bits of its address are free for an object's flags.
    static let alignment = 64
    private static let entryOffset = 0
    private static let storeOffset = MemoryLayout<UnsafeRawPointer>.stride

    /// The anchor's memory: the entry's address, then the store's.
    let address: UnsafeMutableRawPointer

    init(address: UnsafeMutableRawPointer) {
        self.address = address
    }

    /// Memory for an anchor, not bound yet (``bind(entry:store:)``).
    static func allocateMemory() -> UnsafeMutableRawPointer {
        let address = UnsafeMutableRawPointer.allocate(byteCount: 2 * MemoryLayout<UnsafeRawPointer>.stride,
                                                       alignment: alignment)
        address.initializeMemory(as: UInt8.self, repeating: 0, count: 2 * MemoryLayout<UnsafeRawPointer>.stride)
        return address
    }

    /// Makes the anchor lead to `entry` of `store`, neither retained.
    func bind(entry: ClassEntry, store: Store) {
        address.storeBytes(of: Unmanaged.passUnretained(entry).toOpaque(), toByteOffset: Self.entryOffset,
                           as: UnsafeMutableRawPointer.self)
        address.storeBytes(of: Unmanaged.passUnretained(store).toOpaque(), toByteOffset: Self.storeOffset,
                           as: UnsafeMutableRawPointer.self)
    }

    /// Frees the anchor's memory: no object may lead to it any more.
    func deallocate() {
        address.deallocate()
    }

    /// The entry's address, neither retained nor released.
    var entryAddress: UnsafeMutableRawPointer {
        @inline(__always) get { address.load(fromByteOffset: Self.entryOffset, as: UnsafeMutableRawPointer.self) }
    }

    /// The class entry, unretained.
    var unmanagedEntry: Unmanaged<ClassEntry> {
        @inline(__always) get { Unmanaged.fromOpaque(entryAddress) }
    }

    /// The store, unretained.
    var unmanagedStore: Unmanaged<Store> {
        @inline(__always) get {
            Unmanaged.fromOpaque(address.load(fromByteOffset: Self.storeOffset, as: UnsafeMutableRawPointer.self))
        }
    }
}
