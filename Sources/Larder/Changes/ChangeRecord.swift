// ChangeRecord: one save in the change log, the record `change/<sequence as 16 hex digits>` of
// `_store`, written in the save's own batch (so it exists exactly when the save does) and
// sealed or checksummed like every metadata record. docs/FORMAT.md, section 8.6.
//
//   [format 1][varint class count]
//   ([varint classID][inserted ranges][updated ranges][deleted ranges])...   classIDs ascending
//   [varint name count]([varint size][name, UTF-8])...                       names ascending by bytes
//
// Each set of rowIDs is written as a class record writes its deleted rowIDs (RowIDRanges): a
// save of 100,000 consecutive inserts costs a few bytes.

/// One save as the change log keeps it.
internal struct ChangeRecord: Equatable {
    /// The rowIDs one class changed, under its classID.
    struct ClassChange: Equatable {
        var classID: UInt64
        var rows: ChangedRowIDs
    }

    static let format: UInt8 = 1
    static let keyPrefix = Array("change/".utf8)
    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Ascending classIDs, each with at least one rowID.
    var classes: [ClassChange] = []
    /// Distinct, non-empty names, ascending by their UTF-8 bytes.
    var namedBuffers: [String] = []

    /// The key of the record of save `sequence`: `change/` and the sequence as 16 lowercase hex
    /// digits, so that the keys sort as the saves do.
    static func key(for sequence: UInt64) -> [UInt8] {
        var key = keyPrefix
        for shift in stride(from: 60, through: 0, by: -4) {
            key.append(hexDigits[Int((sequence >> UInt64(shift)) & 0xf)])
        }
        return key
    }

    /// Whether `key` is in the change log's key space (`change/...`), well formed or not.
    static func isChangeKey(_ key: UnsafeRawBufferPointer) -> Bool { key.starts(with: keyPrefix) }

    /// The sequence number in a change record's key, or nil when the key is not one.
    static func sequence(inKey key: UnsafeRawBufferPointer) -> UInt64? {
        guard key.count == keyPrefix.count + 16, key.starts(with: keyPrefix) else { return nil }
        var sequence: UInt64 = 0
        for byte in key[keyPrefix.count...] {
            guard let digit = hexDigits.firstIndex(of: byte) else { return nil }
            sequence = sequence << 4 | UInt64(digit)
        }
        return sequence
    }

    init() {}

    /// The record of `change`, its classes named by `classID` (nil for a class the store does
    /// not know, which a save cannot produce).
    init(_ change: StoreChange, classID: (String) -> UInt64?) {
        classes = change.classes.compactMap { name, rows in
            classID(name).map { ClassChange(classID: $0, rows: rows) }
        }.sorted { $0.classID < $1.classID }
        namedBuffers = change.namedBuffers.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// Decodes a record; throws `DataBufferError` for bytes that are not one: another format,
    /// truncated, classIDs not ascending or 0, a class with no rowID or with rowID 0, names
    /// empty, not UTF-8 or not ascending, or trailing bytes.
    init(decoding buffer: inout DataBuffer) throws {
        guard try buffer.readUInt8() == Self.format else { throw DataBufferError.valueOutOfRange(offset: 0) }
        let classCount = try buffer.readVarInt()
        // A class takes at least 4 bytes: its ID and three range counts.
        guard classCount <= UInt64(buffer.remainingCount / 4) else {
            throw DataBufferError.valueOutOfRange(offset: buffer.readPosition)
        }
        for _ in 0 ..< classCount {
            let offset = buffer.readPosition
            let classID = try buffer.readVarInt()
            let rows = ChangedRowIDs(inserted: try RowIDRanges(reading: &buffer), updated: try RowIDRanges(reading: &buffer),
                                     deleted: try RowIDRanges(reading: &buffer))
            guard classID > (classes.last?.classID ?? 0), !rows.isEmpty, rows.smallestRowID >= 1 else {
                throw DataBufferError.valueOutOfRange(offset: offset)
            }
            classes.append(ClassChange(classID: classID, rows: rows))
        }
        let nameCount = try buffer.readVarInt()
        guard nameCount <= UInt64(buffer.remainingCount / 2) else {
            throw DataBufferError.valueOutOfRange(offset: buffer.readPosition)
        }
        for _ in 0 ..< nameCount {
            let offset = buffer.readPosition
            let name = try buffer.readString()
            guard !name.isEmpty, namedBuffers.last.map({ $0.utf8.lexicographicallyPrecedes(name.utf8) }) ?? true else {
                throw DataBufferError.valueOutOfRange(offset: offset)
            }
            namedBuffers.append(name)
        }
        guard buffer.remainingCount == 0 else { throw DataBufferError.valueOutOfRange(offset: buffer.readPosition) }
    }

    func encoded() -> DataBuffer {
        var buffer = DataBuffer()
        buffer.write(Self.format)
        buffer.writeVarInt(UInt64(classes.count))
        for change in classes {
            buffer.writeVarInt(change.classID)
            change.rows.inserted.write(to: &buffer)
            change.rows.updated.write(to: &buffer)
            change.rows.deleted.write(to: &buffer)
        }
        buffer.writeVarInt(UInt64(namedBuffers.count))
        for name in namedBuffers { buffer.write(name) }
        return buffer
    }

    /// The change this record describes as save `sequence`, its classes named through `classes`
    /// (a classID's storage name and next rowID); throws a description of what does not fit: a
    /// classID the store does not know, a rowID the class never handed out.
    func change(sequence: UInt64, classes known: [UInt64: (name: String, nextRowID: UInt64)]) throws(ChangeRecordMismatch)
        -> StoreChange {
        var named: [String: ChangedRowIDs] = [:]
        for change in classes {
            guard let (name, nextRowID) = known[change.classID] else {
                throw ChangeRecordMismatch(reason: "no class has ID \(change.classID)")
            }
            guard change.rows.largestRowID < nextRowID else {
                throw ChangeRecordMismatch(reason: "\(name) never handed out rowID \(change.rows.largestRowID)")
            }
            named[name] = change.rows
        }
        return StoreChange(sequence: sequence, classes: named, namedBuffers: Set(namedBuffers))
    }
}

/// Why a change record that decodes does not fit the store it is in.
internal struct ChangeRecordMismatch: Error {
    var reason: String
}
