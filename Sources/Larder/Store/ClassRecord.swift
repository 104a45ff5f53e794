// ClassRecord: a class's entry in the store registry (`_store`, key "class/<storage name>"):
// its classID, next rowID, version and deleted rowIDs. docs/FORMAT.md has the layout.

/// The persisted registry entry of one class.
internal struct ClassRecord: Equatable, Sendable {
    var classID: UInt64
    var nextRowID: UInt64
    var version: UInt8
    var deletedRowIDs: RowIDRanges

    /// The key of the record of the class named `name` in the metadata table.
    static func key(for name: String) -> [UInt8] { Array(("class/" + name).utf8) }

    /// The class name in a metadata key, or nil when the key is not a class record's.
    static func name(inKey key: UnsafeRawBufferPointer) -> String? {
        let prefix = Array("class/".utf8)
        guard key.count > prefix.count, key.starts(with: prefix) else { return nil }
        return String(validating: key[prefix.count...], as: UTF8.self)
    }

    /// How many records the class file holds: every rowID handed out and not deleted has one.
    var expectedRecordCount: Int { max(0, Int(clamping: nextRowID) - 1 - deletedRowIDs.count) }

    func encoded() -> DataBuffer {
        var buffer = DataBuffer()
        buffer.writeVarInt(classID)
        buffer.writeVarInt(nextRowID)
        buffer.write(version)
        deletedRowIDs.write(to: &buffer)
        return buffer
    }

    init(classID: UInt64, nextRowID: UInt64, version: UInt8, deletedRowIDs: RowIDRanges) {
        self.classID = classID
        self.nextRowID = nextRowID
        self.version = version
        self.deletedRowIDs = deletedRowIDs
    }

    /// Decodes a record; throws DataBufferError or a description of what is inconsistent.
    init(decoding buffer: inout DataBuffer) throws {
        classID = try buffer.readVarInt()
        nextRowID = try buffer.readVarInt()
        version = try buffer.readUInt8()
        deletedRowIDs = try RowIDRanges(reading: &buffer)
        guard classID >= 1, nextRowID >= 1 else { throw DataBufferError.valueOutOfRange(offset: 0) }
    }
}
