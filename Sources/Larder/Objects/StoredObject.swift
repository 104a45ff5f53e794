// StoredObject: the base class of everything a Store saves. A subclass writes its fields into a
// DataBuffer and reads them back; the store gives it a rowID, uniques it, faults it in lazily
// and tracks whether it changed.

/// The base class of every object a ``Store`` persists.
///
/// There is no schema: a subclass writes its fields in ``writeContent(to:)`` and reads them
/// back, in the same order, in ``readContent(from:in:)``. Relationships are references to
/// other stored objects, written with ``DataBuffer/writeReference(_:)`` and
/// `DataBuffer.writeReferences(_:)`, and read back as faults that load on first use.
///
/// ```swift
/// final class Song: StoredObject {
///     @Stored var title = ""
///     @Stored var seconds: UInt32 = 0
///
///     override func writeContent(to buffer: inout DataBuffer) {
///         buffer.write(title)
///         buffer.write(seconds)
///     }
///     override func readContent(from buffer: inout DataBuffer, in store: Store) throws {
///         title = try buffer.readString()
///         seconds = try buffer.readUInt32()
///     }
/// }
/// ```
///
/// Fields declared with ``Stored`` fault the object in when read and mark it updated when
/// written. Plain properties work too: call ``fetchContent()`` before reading them and
/// ``Store/willUpdate(_:)`` before changing them, as in BNRPersistence.
///
/// Or let the `@StoredModel` macro (library `LarderModel`) write both methods, in records
/// tagged by field (<doc:StoredModels>):
///
/// ```swift
/// @StoredModel
/// final class Song: StoredObject {
///     var title = ""
///     var seconds: UInt32 = 0
/// }
/// ```
open class StoredObject {
    /// The object's key within its class: 0 until the object is inserted, then fixed. RowIDs
    /// start at 1 and are never handed out twice within a class, even after a delete.
    @exclusivity(unchecked) public final internal(set) var rowID: RowID = 0

    /// The object's flags and the anchor of its class entry and store, in one word: with
    /// ``rowID``, all a stored object adds to its header (16 bytes), so a subclass's fields
    /// start 32 bytes in (a Song of a String and a UInt32 takes a 64-byte malloc chunk). The
    /// properties below are final: a read is a load and a mask, not a call through the class's
    /// table.
    @exclusivity(unchecked) @usableFromInline internal final var storedState = ObjectState()

    /// The store the object belongs to, or nil before it is inserted, after it is deleted and
    /// saved, or once the store is closed.
    public var store: Store? { attachedStore }

    /// The error of the last failed automatic fault-in made by a ``Stored`` property (whose
    /// getter cannot throw), or nil. Call ``fetchContent()`` to see such an error thrown.
    public var faultError: (any Error)? {
        attachedStore?.faultErrors[ObjectIdentifier(self)]
    }

    // Not retained: a store detaches every object it knows (they are all in its identity
    // map) before it goes away, so these are never left dangling.
    internal final var attachedStore: Store? {
        @inline(__always) get { storedState.anchor?.unmanagedStore.takeUnretainedValue() }
    }
    /// The class's entry, unretained (it outlives its live objects).
    internal final var entry: ClassEntry? {
        @inline(__always) get { storedState.anchor?.unmanagedEntry.takeUnretainedValue() }
    }
    /// The address of the class's entry, neither retained nor released: what a loop over many
    /// objects compares to find runs of one class (the change feed's rowIDs of a save).
    internal final var entryAddress: UnsafeMutableRawPointer? {
        @inline(__always) get { storedState.anchor?.entryAddress }
    }
    internal final var pendingChange: PendingChange {
        @inline(__always) get { storedState.pendingChange }
        @inline(__always) set { storedState.pendingChange = newValue }
    }
    @usableFromInline internal final var isLoadingContent: Bool {
        @inlinable get { storedState.contains(ObjectState.isLoadingContentBit) }
        @inline(__always) set { storedState.set(ObjectState.isLoadingContentBit, to: newValue) }
    }
    /// True while ``Store/delete(_:)`` runs the object's delete rules.
    internal final var isBeingDeleted: Bool {
        @inline(__always) get { storedState.contains(ObjectState.isBeingDeletedBit) }
        @inline(__always) set { storedState.set(ObjectState.isBeingDeletedBit, to: newValue) }
    }

    /// False while the object is a fault: its rowID is known but its fields are not loaded.
    public final internal(set) var hasContent: Bool {
        @inlinable get { storedState.contains(ObjectState.hasContentBit) }
        @inline(__always) set { storedState.set(ObjectState.hasContentBit, to: newValue) }
    }

    /// True once the object's deletion has been saved (or it was inserted and deleted before
    /// any save).
    public final internal(set) var isDeleted: Bool {
        @inlinable get { storedState.contains(ObjectState.isDeletedBit) }
        @inline(__always) set { storedState.set(ObjectState.isDeletedBit, to: newValue) }
    }

    /// Creates a new object with content and no rowID; ``Store/insert(_:)`` adds it to a store.
    ///
    /// ```swift
    /// let song = Song()
    /// song.title = "So What"
    /// try store.insert(song)
    /// ```
    public required init() {}

    deinit {
        // The entry and the store reached without retaining them: once per object freed, a
        // retain and release of each is measurable.
        guard let anchor = storedState.anchor else { return }
        anchor.unmanagedEntry._withUnsafeGuaranteedRef { $0.forget(self) }
        anchor.unmanagedStore._withUnsafeGuaranteedRef { store in
            if !store.faultErrors.isEmpty { store.faultErrors[ObjectIdentifier(self)] = nil }
        }
    }

    /// Loads a fault's content from the store; does nothing when the object has content.
    ///
    /// ```swift
    /// let playlist = try store.object(of: Playlist.self, rowID: 1)
    /// let first = playlist?.songs.first
    /// try first?.fetchContent()   // throws if the record is missing or does not decode
    /// ```
    public func fetchContent() throws {
        guard !hasContent else { return }
        guard let store = attachedStore else {
            throw StoreError.objectNotInStore(class: String(describing: type(of: self)))
        }
        try store.loadContent(of: self)
    }

    /// The version of the class, written into every record of it; default 1.
    ///
    /// Raise it when ``writeContent(to:)`` changes, and branch on
    /// ``DataBuffer/versionOfData`` in ``readContent(from:in:)`` to keep reading old records:
    ///
    /// ```swift
    /// override class var version: UInt8 { 2 }
    /// ```
    open class var version: UInt8 { 1 }

    /// The name of the class's file and registry entry; default: the type's name.
    ///
    /// Override it to rename a class without losing its records. It may contain letters,
    /// digits, `_`, `-` and `.`, must not start with `_` or `.`, and is at most 200 bytes.
    ///
    /// ```swift
    /// override class var storageName: String { "Song" }
    /// ```
    open class var storageName: String { String(describing: self) }

    /// The indexes of the class's properties, used by queries (``Store/objects(of:where:orderBy:limit:offset:)``)
    /// and kept with every save. Adding one builds it when the class is next registered;
    /// removing one drops it. None by default.
    ///
    /// ```swift
    /// override class var indexes: [ObjectIndex] {
    ///     [ObjectIndex(\Song.seconds), ObjectIndex(\Song.isrc, unique: true)]
    /// }
    /// ```
    open class var indexes: [ObjectIndex] { [] }

    /// Whether the store keeps every version of the class's objects: each save of an object
    /// (insert or update) and its deletion is appended to the class's history in the save's
    /// own commit, for ``Store/history(of:)``, ``Store/object(of:rowID:asOf:)`` and
    /// ``Store/pruneHistory(of:before:)``. False by default: a class without history pays
    /// nothing for it.
    ///
    /// ```swift
    /// final class Note: StoredObject {
    ///     override class var keepsHistory: Bool { true }
    /// }
    /// ```
    open class var keepsHistory: Bool { false }

    /// The fields of a `@StoredModel` class, which the macro declares and the store keeps in its
    /// registry (``Store/schema(ofClassNamed:)``); nil for a class that writes its own content.
    ///
    /// ```swift
    /// Song.storedModelSchema?.fields.map(\.name)   // ["title", "seconds"]
    /// ```
    open class var storedModelSchema: StoredModelSchema? { nil }

    /// Reads the object's fields from `buffer`, in the order ``writeContent(to:)`` wrote them.
    ///
    /// ```swift
    /// override func readContent(from buffer: inout DataBuffer, in store: Store) throws {
    ///     title = try buffer.readString()
    ///     songs = try buffer.readReferences(to: Song.self, in: store)
    /// }
    /// ```
    open func readContent(from buffer: inout DataBuffer, in store: Store) throws {}

    /// Writes the object's fields into `buffer`.
    ///
    /// ```swift
    /// override func writeContent(to buffer: inout DataBuffer) {
    ///     buffer.write(title)
    ///     buffer.writeReferences(songs)
    /// }
    /// ```
    open func writeContent(to buffer: inout DataBuffer) {}

    /// Called by ``Store/delete(_:)`` before the object is deleted: the place for delete rules,
    /// such as removing the object from the relationships that hold it. It runs once per
    /// delete: deleting this object again from a rule (directly, or through objects whose
    /// rules delete it back) does nothing.
    ///
    /// ```swift
    /// override func prepareForDelete() {
    ///     for playlist in playlists { playlist.songs.removeAll { $0 === self } }
    /// }
    /// ```
    open func prepareForDelete() {}

    /// The text to index for full-text search, by attribute name; empty by default (the class
    /// is not indexed, and its saves pay nothing for the index). The store indexes it at every
    /// save of the object, in the same atomic commit; search it with
    /// ``Store/objects(of:matchingText:forAttribute:)``.
    ///
    /// ```swift
    /// override func indexedText() -> [String: String] {
    ///     ["title": title, "artist": artist]
    /// }
    /// ```
    ///
    /// When it changes (another attribute, another text for the same fields), call
    /// ``Store/rebuildTextIndex(of:)``.
    open func indexedText() -> [String: String] {
        // Tells declaresIndexedText() that this implementation was reached.
        if rowID == Self.indexedTextProbe { rowID = 0 }
        return [:]
    }

    /// Called by ``Store/dissolveAllRelationships()`` and ``Store/close()``: release every
    /// stored object this object holds, so reference cycles between objects are broken.
    /// Changes made here are not saved.
    ///
    /// ```swift
    /// override func dissolveAllRelationships() { songs = [] }
    /// ```
    open func dissolveAllRelationships() {}

    // MARK: Internal

    /// A rowID no object has, set on a probe object by ``declaresIndexedText()``.
    internal static let indexedTextProbe = UInt64.max

    /// Whether the class overrides ``indexedText()`` (or returns text for a new object).
    internal class func declaresIndexedText() -> Bool {
        let probe = self.init()
        probe.rowID = indexedTextProbe
        let text = probe.indexedText()
        let reachedDefault = probe.rowID != indexedTextProbe
        probe.rowID = 0
        return !text.isEmpty || !reachedDefault
    }

    /// Makes the object belong to the store of the class `entry`, as `rowID`.
    internal func attach(to entry: ClassEntry, rowID: UInt64) {
        storedState.anchor = entry.anchor
        self.rowID = rowID
    }

    /// Cuts the object loose from its store (after a saved delete, a discarded insert, a close).
    internal func detach() {
        storedState.anchor = nil
        pendingChange = .none
    }

    /// Faults the object in for a read through a `Stored` property; a failure is kept in
    /// ``faultError`` because a getter cannot throw.
    @usableFromInline
    internal func fetchContentForRead() {
        guard !hasContent, !isLoadingContent else { return }
        fetchFaultForRead()
    }

    private func fetchFaultForRead() {
        do {
            try fetchContent()
        } catch {
            // Kept by the store rather than in every object: errors are rare, objects many.
            attachedStore?.faultErrors[ObjectIdentifier(self)] = error
        }
    }

    /// Faults the object in for a read through a `Stored` property, and tells the store its
    /// class was read while an observation's fetch runs.
    @usableFromInline
    internal func prepareForRead() {
        if ReadTracking.isActive, let store = attachedStore, let entry { store.readDependencies?.noteClass(entry.name) }
        fetchContentForRead()
    }

    /// Faults the object in and marks it updated, for a write through a `Stored` property.
    @usableFromInline
    internal func prepareForWrite() {
        guard !isLoadingContent, let store = attachedStore, !store.isDissolvingRelationships else { return }
        fetchContentForRead()
        store.markUpdated(self)
    }
}

/// What a save must do with an object.
internal enum PendingChange: UInt8 {
    case none, inserted, updated, deleted
}
