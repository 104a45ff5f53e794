// References between stored objects: a rowID (and, for any-class references, a classID) as
// varints. Reading gives the live instance or a fault: nothing is loaded until it is used.

extension DataBuffer {
    /// Writes a reference to `object` (of the class the reader will name), or nil.
    ///
    /// While a save encodes objects, a new object referenced here is inserted into the store
    /// by the save itself.
    ///
    /// ```swift
    /// buffer.writeReference(album)   // an Album?
    /// ```
    public mutating func writeReference(_ object: StoredObject?) {
        writeVarInt(referencedRowID(object))
    }

    /// Reads a reference written by ``writeReference(_:)``: the live instance, a fault, or nil
    /// for nil and for a row that does not exist (deleted or never saved).
    ///
    /// ```swift
    /// album = try buffer.readReference(to: Album.self, in: store)
    /// ```
    public mutating func readReference<T: StoredObject>(to type: T.Type, in store: Store) throws -> T? {
        try store.reference(to: type, rowID: try readVarInt())
    }

    /// Writes an ordered list of references to objects of one class: a varint count, then each
    /// rowID.
    ///
    /// ```swift
    /// buffer.writeReferences(songs)
    /// ```
    public mutating func writeReferences(_ objects: [StoredObject]) {
        writeVarInt(UInt64(objects.count))
        for object in objects {
            writeVarInt(referencedRowID(object))
        }
    }

    /// Reads a list written by `writeReferences(_:)`, in order, as live instances or faults.
    /// References to rows that do not exist are left out.
    ///
    /// ```swift
    /// songs = try buffer.readReferences(to: Song.self, in: store)
    /// ```
    public mutating func readReferences<T: StoredObject>(to type: T.Type, in store: Store) throws -> [T] {
        let count = try readCount()
        let entry = try store.entry(for: type)
        let rowIDs = try readVarIntArray(count: count).values
        // Written in place: an array of T compiled here is unspecialized, and its `append`
        // cost 75 instructions a reference (a fifth of making a fault).
        return [T](unsafeUninitializedCapacity: rowIDs.count) { objects, initialized in
            guard let base = objects.baseAddress else { return }
            for rowID in rowIDs {
                guard let object = store.reference(rowID: rowID, entry: entry) else { continue }
                (base + initialized).initialize(to: unsafeDowncast(object, to: T.self))
                initialized += 1
            }
        }
    }

    /// Writes a reference to an object of any registered class: its classID and rowID.
    ///
    /// ```swift
    /// buffer.writeAnyReference(attachment)   // a Song, a Playlist, ...
    /// ```
    public mutating func writeAnyReference(_ object: StoredObject?) {
        let rowID = referencedRowID(object)
        guard rowID != 0, let classID = object?.entry?.classID else {
            writeVarInt(0)
            return
        }
        writeVarInt(classID)
        writeVarInt(rowID)
    }

    /// Reads a reference written by ``writeAnyReference(_:)``. A class that is not registered
    /// in this session throws ``StoreError/classNotRegistered(_:)``.
    ///
    /// ```swift
    /// let attachment = try buffer.readAnyReference(in: store)
    /// ```
    public mutating func readAnyReference(in store: Store) throws -> StoredObject? {
        let classID = try readVarInt()
        guard classID != 0 else { return nil }
        let entry = try store.entry(forClassID: classID)
        return store.reference(rowID: try readVarInt(), entry: entry)
    }

    /// Writes an ordered list of references to objects of any registered classes.
    ///
    /// ```swift
    /// buffer.writeAnyReferences(items)
    /// ```
    public mutating func writeAnyReferences(_ objects: [StoredObject]) {
        writeVarInt(UInt64(objects.count))
        for object in objects {
            writeAnyReference(object)
        }
    }

    /// Reads a list written by ``writeAnyReferences(_:)``; nil references and rows that do
    /// not exist are left out.
    ///
    /// ```swift
    /// items = try buffer.readAnyReferences(in: store)
    /// ```
    public mutating func readAnyReferences(in store: Store) throws -> [StoredObject] {
        let count = try readCount()
        var objects: [StoredObject] = []
        objects.reserveCapacity(count)
        for _ in 0 ..< count {
            if let object = try readAnyReference(in: store) { objects.append(object) }
        }
        return objects
    }

    /// The rowID to write for `object`, inserting it first when a save is encoding and it is new.
    private mutating func referencedRowID(_ object: StoredObject?) -> UInt64 {
        guard let object else { return 0 }
        encodingContext?.prepareReference(to: object)
        return object.rowID
    }

    /// Reads a varint element count; each element takes at least one byte, so a count larger
    /// than the bytes left is damage, reported before anything is allocated.
    /// Reads `count` varints in one pass over the bytes (a list of references), with the
    /// smallest and largest of them. A truncated or malformed varint throws the error
    /// ``readVarInt()`` throws, with the read position at that varint.
    internal mutating func readVarIntArray(count: Int) throws -> (values: [UInt64], smallest: UInt64, largest: UInt64) {
        var position = readPosition
        var failedAt: Int?
        var smallest = UInt64.max
        var largest: UInt64 = 0
        let values = bytes.withUnsafeBufferPointer { all in
            [UInt64](unsafeUninitializedCapacity: count) { out, initialized in
                for index in 0 ..< count {
                    let start = position
                    guard case let .value(result) = Self.decodeVarInt(all, at: &position) else {
                        failedAt = start
                        return
                    }
                    out[index] = result
                    initialized = index &+ 1
                    smallest = min(smallest, result)
                    largest = max(largest, result)
                }
            }
        }
        if let failedAt {
            readPosition = failedAt
            _ = try readVarInt()   // throws the typed error for these bytes
        }
        readPosition = position
        return (values, smallest, largest)
    }

    internal mutating func readCount() throws -> Int {
        let offset = readPosition
        let raw = try readVarInt()
        guard raw <= UInt64(remainingCount) else {
            readPosition = offset
            throw DataBufferError.truncated(offset: offset, needed: Int(clamping: raw), available: remainingCount)
        }
        return Int(raw)
    }
}
