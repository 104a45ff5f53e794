// ObjectIndexRecord: the indexes of one class as the store keeps them in `_store` (key
// `index/<Class>`, sealed like all metadata in an encrypted store), so that a session knows
// which index tables exist, which to build and which to drop. docs/FORMAT.md, section 17.
//
//   [format 1][varint next table number][varint count]
//   ([varint table number][varint name size][name, UTF-8][flags: 1 = unique])...

/// The stored indexes of one class.
internal struct ObjectIndexRecord: Equatable {
    struct Index: Equatable {
        var number: UInt64
        var name: String
        var isUnique: Bool
    }

    static let format: UInt8 = 1
    var indexes: [Index] = []
    /// The table number the next new index gets (numbers are never reused, so a dropped
    /// index's table cannot be taken for a new one's).
    var nextNumber: UInt64 = 1

    static func key(for className: String) -> [UInt8] { Array(("index/" + className).utf8) }

    /// The table of index `number` of a class.
    static func table(number: UInt64, className: String) -> String { "_index\(number).\(className)" }

    init() {}

    init(decoding buffer: inout DataBuffer) throws {
        guard try buffer.readUInt8() == Self.format else { throw DataBufferError.valueOutOfRange(offset: 0) }
        nextNumber = try buffer.readVarInt()
        let count = try buffer.readVarInt()
        guard count <= UInt64(buffer.remainingCount / 3) else { throw DataBufferError.valueOutOfRange(offset: buffer.readPosition) }
        for _ in 0 ..< count {
            let number = try buffer.readVarInt()
            let name = try buffer.readString()
            let flags = try buffer.readUInt8()
            guard number < nextNumber, flags <= 1, !indexes.contains(where: { $0.number == number || $0.name == name }) else {
                throw DataBufferError.valueOutOfRange(offset: buffer.readPosition)
            }
            indexes.append(Index(number: number, name: name, isUnique: flags == 1))
        }
        guard buffer.remainingCount == 0 else { throw DataBufferError.valueOutOfRange(offset: buffer.readPosition) }
    }

    func encoded() -> DataBuffer {
        var buffer = DataBuffer()
        buffer.write(Self.format)
        buffer.writeVarInt(nextNumber)
        buffer.writeVarInt(UInt64(indexes.count))
        for index in indexes {
            buffer.writeVarInt(index.number)
            buffer.write(index.name)
            buffer.write(UInt8(index.isUnique ? 1 : 0))
        }
        return buffer
    }
}
