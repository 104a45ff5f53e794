// ObjectState: a stored object's bookkeeping in one word: the address of its class's
// EntryAnchor (aligned to 64 bytes, so its low six bits are zero) with the object's flags in
// those bits. A StoredObject's own fields are then its rowID and this word, 16 bytes after the
// object header.

/// A stored object's flags and its ``EntryAnchor``, packed in one word.
@usableFromInline
internal struct ObjectState {
    @usableFromInline internal var bits: UInt

    /// False while the object is a fault.
    @inlinable static var hasContentBit: UInt { 1 }
    /// The object's deletion was saved (or it was inserted and deleted before a save).
    @inlinable static var isDeletedBit: UInt { 2 }
    /// The object is reading its content: writes to its fields are not updates.
    @inlinable static var isLoadingContentBit: UInt { 4 }
    /// ``Store/delete(_:)`` runs the object's delete rules.
    @inlinable static var isBeingDeletedBit: UInt { 8 }
    /// The two bits of the object's ``PendingChange``.
    private static let pendingChangeShift: UInt = 4
    private static let pendingChangeMask: UInt = 3 << pendingChangeShift
    /// Every bit that is a flag rather than the anchor's address.
    private static let flagMask = UInt(EntryAnchor.alignment - 1)

    /// A new object's state: with content, no pending change, in no store.
    init() {
        bits = Self.hasContentBit
    }

    /// Whether the flag `bit` is set.
    @inlinable
    func contains(_ bit: UInt) -> Bool {
        bits & bit != 0
    }

    /// Sets or clears the flag `bit`.
    @inlinable
    mutating func set(_ bit: UInt, to value: Bool) {
        bits = value ? bits | bit : bits & ~bit
    }

    /// What a save must do with the object.
    var pendingChange: PendingChange {
        @inline(__always) get {
            // Two bits hold every case; the fallback is never taken.
            PendingChange(rawValue: UInt8(truncatingIfNeeded: (bits & Self.pendingChangeMask) >> Self.pendingChangeShift)) ?? .none
        }
        @inline(__always) set {
            bits = (bits & ~Self.pendingChangeMask) | (UInt(newValue.rawValue) << Self.pendingChangeShift)
        }
    }

    /// The anchor of the object's class entry, or nil when the object is in no store.
    var anchor: EntryAnchor? {
        @inline(__always) get {
            UnsafeMutableRawPointer(bitPattern: bits & ~Self.flagMask).map(EntryAnchor.init(address:))
        }
        @inline(__always) set {
            bits = (bits & Self.flagMask) | UInt(bitPattern: newValue?.address)
        }
    }
}
