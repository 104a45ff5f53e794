// The DataBuffer fuzz target: an input is a script of reads and the bytes they read. Every
// read either returns, moving the read position forward inside the bytes, or throws a
// DataBufferError and leaves the read position where it was (DataBuffer's promise).

import Foundation

extension FuzzTarget {
    /// `[n][n read opcodes][bytes to read]`: the reads, in order, on the bytes.
    package static let dataBuffer = FuzzTarget(name: "dataBuffer", seeds: dataBufferSeeds) { input throws(FuzzViolation) in
        guard let first = input.first else { return false }
        let opcodeCount = min(Int(first % 32), input.count - 1)
        let opcodes = input[1 ..< 1 + opcodeCount]
        var buffer = DataBuffer(bytes: Array(input[(1 + opcodeCount)...]))
        var accepted = true
        for opcode in opcodes {
            let before = buffer.readPosition
            do {
                try read(opcode, from: &buffer)
            } catch {
                try FuzzViolation.check(error is DataBufferError, "read \(opcode) threw \(error), not a DataBufferError")
                try FuzzViolation.check(buffer.readPosition == before,
                                        "read \(opcode) threw \(error) and moved the read position from \(before) to \(buffer.readPosition)")
                accepted = false
                continue
            }
            try FuzzViolation.check(buffer.readPosition >= before && buffer.readPosition <= buffer.bytes.count,
                                    "read \(opcode) moved the read position from \(before) to \(buffer.readPosition)")
        }
        return accepted
    }

    /// The number of read opcodes; an opcode byte picks one modulo this.
    static let dataBufferReadCount = 27

    /// Performs read number `opcode` (modulo ``dataBufferReadCount``).
    private static func read(_ opcode: UInt8, from buffer: inout DataBuffer) throws {
        switch Int(opcode) % dataBufferReadCount {
        case 0: _ = try buffer.readUInt8()
        case 1: _ = try buffer.readUInt16()
        case 2: _ = try buffer.readUInt32()
        case 3: _ = try buffer.readUInt64()
        case 4: _ = try buffer.readInt8()
        case 5: _ = try buffer.readInt16()
        case 6: _ = try buffer.readInt32()
        case 7: _ = try buffer.readInt64()
        case 8: _ = try buffer.readInt()
        case 9: _ = try buffer.readBool()
        case 10: _ = try buffer.readFloat()
        case 11: _ = try buffer.readDouble()
        case 12: _ = try buffer.readDate()
        case 13: _ = try buffer.readUUID()
        case 14: _ = try buffer.readString()
        case 15: _ = try buffer.readData()
        case 16: _ = try buffer.readBytes()
        case 17: _ = try buffer.readVarInt()
        case 18: _ = try buffer.readOptionalString()
        case 19: _ = try buffer.readOptionalData()
        case 20: _ = try buffer.readOptionalDate()
        case 21: _ = try buffer.readOptionalUUID()
        case 22: _ = try buffer.readOptionalInt()
        case 23: _ = try buffer.readOptionalDouble()
        case 24: _ = try buffer.readOptional { try $0.readOptional { try $0.readString() } }
        case 25: _ = try buffer.readCount()
        default:
            // A list of references as readReferences reads it (without a store to resolve them).
            let start = buffer.readPosition
            do {
                let count = try buffer.readCount()
                let list = try buffer.readVarIntArray(count: count)
                if let smallest = list.values.min(), let largest = list.values.max() {
                    guard smallest == list.smallest, largest == list.largest else {
                        throw FuzzViolation("readVarIntArray gave bounds \(list.smallest)...\(list.largest) for \(list.values)")
                    }
                }
            } catch let error as DataBufferError {
                buffer.readPosition = start
                throw error
            }
        }
    }

    @Sendable private static func dataBufferSeeds() -> [[UInt8]] {
        var values = DataBuffer()
        values.write(UInt8(7))
        values.write(UInt32(337))
        values.write(-1.5)
        values.write(true)
        values.write("Blue in Green")
        values.write(Optional("Kind of Blue"))
        values.write(Optional<String>.none)
        values.write(UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)))
        values.write([UInt8](repeating: 0xAB, count: 5))
        values.writeVarInt(300)
        values.write("é∑😀")
        values.writeVarInt(3)
        for rowID: UInt64 in [1, 200, 70_000] { values.writeVarInt(rowID) }
        // Opcodes that read the values above in order.
        let opcodes: [UInt8] = [0, 2, 11, 9, 14, 18, 18, 13, 16, 17, 14, 26]
        return [[UInt8(opcodes.count)] + opcodes + values.bytes,
                [3, 14, 18, 24, 5, 0x68, 0x65, 0x6C, 0x6C, 0x6F, 1, 2, 0xC3, 0xA9, 1, 1, 0],
                [2, 17, 8, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 1, 2, 3, 4, 5, 6, 7, 8]]
    }
}
