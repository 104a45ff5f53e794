// PostingList: sorted rowIDs, their encoding in an index record (a count, then the gaps between
// successive rowIDs as varints) and the set operations queries are made of.

/// Operations on ascending, duplicate-free lists of rowIDs.
internal enum PostingList {
    /// The record content of `rowIDs` (ascending): varint count, then varint gaps from 0.
    static func encode(_ rowIDs: [UInt64]) -> [UInt8] {
        var buffer = DataBuffer()
        buffer.reserveCapacity(rowIDs.count * 2 + 4)
        buffer.writeVarInt(UInt64(rowIDs.count))
        var previous: UInt64 = 0
        for rowID in rowIDs {
            buffer.writeVarInt(rowID - previous)
            previous = rowID
        }
        return buffer.bytes
    }

    /// Decodes what ``encode(_:)`` wrote, appending to `rowIDs`; throws on malformed bytes and
    /// on rowIDs that are not ascending.
    static func decode(_ buffer: inout DataBuffer, appendingTo rowIDs: inout [UInt64]) throws {
        let count = try buffer.readVarInt()
        guard count <= UInt64(buffer.remainingCount) else { throw DataBufferError.valueOutOfRange(offset: buffer.readPosition) }
        rowIDs.reserveCapacity(rowIDs.count + Int(count))
        var previous: UInt64 = 0
        for position in 0 ..< count {
            let gap = try buffer.readVarInt()
            // Only the first gap may be 0 (a list starting at rowID 0): a later one repeats a rowID.
            guard gap > 0 || position == 0, gap <= UInt64.max - previous else {
                throw DataBufferError.valueOutOfRange(offset: buffer.readPosition)
            }
            previous += gap
            rowIDs.append(previous)
        }
    }

    /// Sorts and removes duplicates.
    static func normalized(_ rowIDs: [UInt64]) -> [UInt64] {
        var sorted = rowIDs
        var isSorted = true
        for index in sorted.indices.dropFirst() where sorted[index - 1] >= sorted[index] {
            isSorted = false
            break
        }
        if isSorted { return sorted }
        sorted.sort()
        var result: [UInt64] = []
        result.reserveCapacity(sorted.count)
        for rowID in sorted where result.last != rowID { result.append(rowID) }
        return result
    }

    static func intersection(_ a: [UInt64], _ b: [UInt64]) -> [UInt64] {
        var result: [UInt64] = []
        var i = 0, j = 0
        while i < a.count, j < b.count {
            if a[i] < b[j] { i += 1 } else if a[i] > b[j] { j += 1 } else {
                result.append(a[i])
                i += 1
                j += 1
            }
        }
        return result
    }

    static func union(_ a: [UInt64], _ b: [UInt64]) -> [UInt64] {
        var result: [UInt64] = []
        result.reserveCapacity(a.count + b.count)
        var i = 0, j = 0
        while i < a.count, j < b.count {
            if a[i] < b[j] { result.append(a[i]); i += 1 } else if a[i] > b[j] { result.append(b[j]); j += 1 } else {
                result.append(a[i])
                i += 1
                j += 1
            }
        }
        result.append(contentsOf: a[i...])
        result.append(contentsOf: b[j...])
        return result
    }

    /// The rowIDs of `a` not in `b`.
    static func subtracting(_ a: [UInt64], _ b: [UInt64]) -> [UInt64] {
        var result: [UInt64] = []
        var j = 0
        for rowID in a {
            while j < b.count, b[j] < rowID { j += 1 }
            if j < b.count, b[j] == rowID { continue }
            result.append(rowID)
        }
        return result
    }
}
