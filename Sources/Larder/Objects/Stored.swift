// Stored: a property wrapper for the fields of a StoredObject that faults the object in on read
// and marks it updated on write, so the explicit fetchContent/willUpdate calls are not needed.

/// A field of a ``StoredObject`` that loads the object's content when read and tells the
/// store it changed when written.
///
/// ```swift
/// final class Song: StoredObject {
///     @Stored var title = ""
///     ...
/// }
/// song.title = "Freddie Freeloader"   // faults the song in, then marks it updated
/// try store.saveChanges()
/// ```
///
/// Writes made while the object reads its own content in
/// ``StoredObject/readContent(from:in:)`` do not mark it updated. A read that fails to fault
/// the object in (a missing or damaged record) returns the in-memory value and records the
/// error in ``StoredObject/faultError``; call ``StoredObject/fetchContent()`` to have it thrown.
@propertyWrapper
public struct Stored<Value> {
    @usableFromInline internal var storedValue: Value

    /// Creates the field with its initial value.
    ///
    /// ```swift
    /// @Stored var seconds: UInt32 = 0
    /// ```
    @inlinable
    public init(wrappedValue: Value) {
        storedValue = wrappedValue
    }

    /// The field's value without faulting or change tracking. Only reachable through the
    /// enclosing-instance subscript, which is what `@Stored` properties use.
    @available(*, unavailable, message: "@Stored is only available on properties of StoredObject subclasses")
    public var wrappedValue: Value {
        get { storedValue }
        set { storedValue = newValue }
    }

    /// The access path used for `@Stored` properties of a ``StoredObject``.
    @inlinable
    public static subscript<Owner: StoredObject>(
        _enclosingInstance owner: Owner,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Owner, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Owner, Stored<Value>>
    ) -> Value {
        @inline(__always) get {
            if !owner.hasContent || ReadTracking.isActive { owner.prepareForRead() }
            return owner[keyPath: storageKeyPath].storedValue
        }
        @inline(__always) set {
            if !owner.isLoadingContent { owner.prepareForWrite() }
            owner[keyPath: storageKeyPath].storedValue = newValue
        }
    }
}
