// ReferenceList: an ordered to-many relationship that reads as rowIDs and makes a fault only
// for the element asked for. A playlist of a thousand songs costs one small array when it is
// read, not a thousand objects; `readReferences` (an array of faults) stays for small lists.

/// An ordered list of references to objects of one class, loaded lazily: reading it from a
/// record keeps rowIDs, and each element becomes a live object (a fault until used) only when
/// it is accessed.
///
/// ```swift
/// final class Playlist: StoredObject {
///     @Stored var songs: ReferenceList<Song> = []
///     override func writeContent(to buffer: inout DataBuffer) { buffer.writeReferences(songs) }
///     override func readContent(from buffer: inout DataBuffer, in store: Store) throws {
///         songs = try buffer.readReferenceList(to: Song.self, in: store)
///     }
/// }
/// playlist.songs.append(song)
/// let first = playlist.songs.first?.title
/// ```
public struct ReferenceList<Element: StoredObject>: RandomAccessCollection, ExpressibleByArrayLiteral {
    // Non-generic storage, so that reading and copying a list is plain array work: the rowID
    // of each reference, and (once the list is edited) the objects in hand, nil for a saved
    // reference that was never touched.
    internal private(set) var rowIDs: [UInt64]
    internal private(set) var held: [StoredObject?]
    /// Where saved references are resolved.
    private let store: Store?
    private let entry: ClassEntry?

    /// An empty list.
    ///
    /// ```swift
    /// var songs = ReferenceList<Song>()
    /// ```
    public init() {
        self.init(rowIDs: [], held: [], store: nil, entry: nil)
    }

    /// A list of the given objects, in order.
    ///
    /// ```swift
    /// let songs = ReferenceList([intro, theme, coda])
    /// ```
    public init<S: Sequence>(_ objects: S) where S.Element == Element {
        let held = objects.map { $0 as StoredObject? }
        self.init(rowIDs: held.map { $0?.rowID ?? 0 }, held: held, store: nil, entry: nil)
    }

    /// A list from an array literal of objects.
    ///
    /// ```swift
    /// playlist.songs = [intro, coda]
    /// ```
    public init(arrayLiteral elements: Element...) {
        // `= []` is how every model declares the property: skip the generic copy for it.
        guard !elements.isEmpty else {
            self.init()
            return
        }
        self.init(elements)
    }

    internal init(rowIDs: [UInt64], held: [StoredObject?], store: Store?, entry: ClassEntry?) {
        self.rowIDs = rowIDs
        self.held = held
        self.store = store
        self.entry = entry
    }

    /// The position of the first element: 0.
    public var startIndex: Int { 0 }
    /// One past the last position: the number of references.
    ///
    /// ```swift
    /// playlist.songs.count   // endIndex
    /// ```
    public var endIndex: Int { rowIDs.count }

    /// The element at `position`: the object in hand, or the live instance (a fault if it was
    /// not in memory) of a saved reference.
    ///
    /// ```swift
    /// let third = playlist.songs[2]
    /// ```
    public subscript(position: Int) -> Element {
        if !held.isEmpty, let object = held[position] {
            return unsafeDowncast(object, to: Element.self)
        }
        return resolve(rowIDs[position])
    }

    /// The rowID at `position` without making an object (0 for an object not inserted yet).
    ///
    /// ```swift
    /// let ids = playlist.songs.indices.map { playlist.songs.rowID(at: $0) }
    /// ```
    public func rowID(at position: Int) -> RowID {
        if !held.isEmpty, let object = held[position] { return object.rowID }
        return rowIDs[position]
    }

    /// Adds `object` at the end.
    ///
    /// ```swift
    /// playlist.songs.append(song)
    /// ```
    public mutating func append(_ object: Element) {
        insert(object, at: rowIDs.count)
    }

    /// Inserts `object` at `position`.
    ///
    /// ```swift
    /// playlist.songs.insert(song, at: 0)
    /// ```
    public mutating func insert(_ object: Element, at position: Int) {
        holdObjects()
        rowIDs.insert(object.rowID, at: position)
        held.insert(object, at: position)
    }

    /// Removes and returns the element at `position`.
    ///
    /// ```swift
    /// playlist.songs.remove(at: 0)
    /// ```
    @discardableResult
    public mutating func remove(at position: Int) -> Element {
        let element = self[position]
        holdObjects()
        rowIDs.remove(at: position)
        held.remove(at: position)
        return element
    }

    /// Removes every reference to `object` (compared by identity, without loading others).
    ///
    /// ```swift
    /// playlist.songs.removeAll(referringTo: song)
    /// ```
    public mutating func removeAll(referringTo object: Element) {
        holdObjects()
        var position = rowIDs.count - 1
        while position >= 0 {
            let matches = held[position].map { $0 === object }
                ?? (object.rowID != 0 && object.rowID == rowIDs[position] && object.store === store && store != nil)
            if matches {
                rowIDs.remove(at: position)
                held.remove(at: position)
            }
            position -= 1
        }
    }

    /// The elements as an array of live objects (faults until used).
    ///
    /// ```swift
    /// let songs: [Song] = playlist.songs.objects
    /// ```
    public var objects: [Element] { map { $0 } }

    /// Makes `held` as long as `rowIDs`, for an edit.
    private mutating func holdObjects() {
        if held.count != rowIDs.count { held = Array(repeating: nil, count: rowIDs.count) }
    }

    private func resolve(_ rowID: UInt64) -> Element {
        guard let store, let entry, let object = store.reference(rowID: rowID, entry: entry) else {
            // Only rows that may exist are kept when a list is read; a row deleted since reads
            // as a detached, deleted object rather than crashing.
            let placeholder = Element()
            placeholder.rowID = rowID
            placeholder.isDeleted = true
            return placeholder
        }
        return unsafeDowncast(object, to: Element.self)
    }
}

extension DataBuffer {
    /// Writes a ``ReferenceList`` in the same format as `writeReferences(_:)`: a varint count
    /// and each rowID. Saved references are written without loading them.
    ///
    /// ```swift
    /// buffer.writeReferences(songs)   // a ReferenceList<Song>
    /// ```
    public mutating func writeReferences<T: StoredObject>(_ list: ReferenceList<T>) {
        writeVarInt(UInt64(list.rowIDs.count))
        for position in 0 ..< list.rowIDs.count {
            if !list.held.isEmpty, let object = list.held[position] {
                writeReference(object)
            } else {
                writeVarInt(list.rowIDs[position])
            }
        }
    }

    /// Reads references written by `writeReferences(_:)` as a lazy ``ReferenceList``:
    /// rowIDs only, each made an object when accessed. References to rows that do not exist
    /// are left out, as in ``readReferences(to:in:)``.
    ///
    /// ```swift
    /// songs = try buffer.readReferenceList(to: Song.self, in: store)
    /// ```
    public mutating func readReferenceList<T: StoredObject>(to type: T.Type, in store: Store) throws -> ReferenceList<T> {
        let count = try readCount()
        let entry = try store.entry(for: type)
        var (rowIDs, smallest, largest) = try readVarIntArray(count: count)
        // Usually every reference is to a saved row that exists: nothing to look up.
        let allSaved = smallest >= 1 && largest < entry.savedNextRowID && entry.deletedRowIDs.isEmpty
        if !allSaved || store.referenceObserver != nil {
            let observer = store.referenceObserver
            rowIDs.removeAll { rowID in
                observer?(entry, rowID)
                return rowID == 0 || (entry.liveObject(rowID) == nil && !entry.savedRowMayExist(rowID))
            }
        }
        return ReferenceList(rowIDs: rowIDs, held: [], store: store, entry: entry)
    }
}
