// Tests for DataBuffer: the little-endian byte layout of every type, round trips, bounds
// checks with their typed errors, and fuzzing that no byte string can crash a read.

import Foundation
import Testing
@testable import Larder
import LarderTestSupport

@Suite struct DataBufferTests {
    // MARK: Byte order

    @Test func unsignedIntegersAreLittleEndian() {
        #expect(encoded { $0.write(UInt8(0x7f)) } == [0x7f])
        #expect(encoded { $0.write(UInt16(0x0102)) } == [0x02, 0x01])
        #expect(encoded { $0.write(UInt32(0x0102_0304)) } == [0x04, 0x03, 0x02, 0x01])
        #expect(encoded { $0.write(UInt64(0x0102_0304_0506_0708)) } == [0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01])
        #expect(encoded { $0.write(UInt64(1)) } == [0x01, 0, 0, 0, 0, 0, 0, 0])
        #expect(encoded { $0.write(UInt16.max) } == [0xff, 0xff])
    }

    @Test func signedIntegersAreTwosComplementLittleEndian() {
        #expect(encoded { $0.write(Int8(-1)) } == [0xff])
        #expect(encoded { $0.write(Int8.min) } == [0x80])
        #expect(encoded { $0.write(Int16(-2)) } == [0xfe, 0xff])
        #expect(encoded { $0.write(Int16(0x0102)) } == [0x02, 0x01])
        #expect(encoded { $0.write(Int32(-3)) } == [0xfd, 0xff, 0xff, 0xff])
        #expect(encoded { $0.write(Int32(0x0102_0304)) } == [0x04, 0x03, 0x02, 0x01])
        #expect(encoded { $0.write(Int64(-1)) } == [UInt8](repeating: 0xff, count: 8))
        #expect(encoded { $0.write(Int64.min) } == [0, 0, 0, 0, 0, 0, 0, 0x80])
        #expect(encoded { $0.write(Int64(0x0102_0304_0506_0708)) } == [0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01])
    }

    @Test func intIsAlwaysEightBytes() {
        #expect(encoded { $0.write(42) } == [42, 0, 0, 0, 0, 0, 0, 0])
        #expect(encoded { $0.write(Int(-1)) } == [UInt8](repeating: 0xff, count: 8))
        #expect(encoded { $0.write(Int(0x0102_0304)) } == [0x04, 0x03, 0x02, 0x01, 0, 0, 0, 0])
        #expect(encoded { $0.write(Int.min) } == [0, 0, 0, 0, 0, 0, 0, 0x80])
        #expect(encoded { $0.write(Int.max) } == [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f])
    }

    @Test func floatingPointIsLittleEndianBitPattern() {
        // 1.5f = 0x3FC00000
        #expect(encoded { $0.write(Float(1.5)) } == [0x00, 0x00, 0xc0, 0x3f])
        // -2.0f = 0xC0000000
        #expect(encoded { $0.write(Float(-2)) } == [0x00, 0x00, 0x00, 0xc0])
        // 3.25 = 0x400A000000000000
        #expect(encoded { $0.write(3.25) } == [0, 0, 0, 0, 0, 0, 0x0a, 0x40])
        // 1.0 = 0x3FF0000000000000
        #expect(encoded { $0.write(Double(1)) } == [0, 0, 0, 0, 0, 0, 0xf0, 0x3f])
        #expect(encoded { $0.write(-0.0 as Double) } == [0, 0, 0, 0, 0, 0, 0, 0x80])
        #expect(encoded { $0.write(Double.infinity) } == [0, 0, 0, 0, 0, 0, 0xf0, 0x7f])
        // A value whose eight bytes all differ, so any byte swap is visible.
        let d = Double(bitPattern: 0x4001_0203_0405_0607)
        #expect(encoded { $0.write(d) } == [0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01, 0x40])
        let f = Float(bitPattern: 0x4001_0203)
        #expect(encoded { $0.write(f) } == [0x03, 0x02, 0x01, 0x40])
    }

    @Test func boolDateUUIDLayouts() throws {
        #expect(encoded { $0.write(true) } == [1])
        #expect(encoded { $0.write(false) } == [0])
        // Dates: seconds since 2001-01-01 as a Double; the reference date is eight zero bytes.
        #expect(encoded { $0.write(Date(timeIntervalSinceReferenceDate: 0)) } == [0, 0, 0, 0, 0, 0, 0, 0])
        #expect(encoded { $0.write(Date(timeIntervalSinceReferenceDate: 1.5)) } == [0, 0, 0, 0, 0, 0, 0xf8, 0x3f])
        #expect(encoded { $0.write(Date(timeIntervalSince1970: 978_307_200)) } == [0, 0, 0, 0, 0, 0, 0, 0])
        // UUIDs: 16 bytes in the order of the string form.
        let uuid = try #require(UUID(uuidString: "00112233-4455-6677-8899-AABBCCDDEEFF"))
        #expect(encoded { $0.write(uuid) } == [0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
                                               0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff])
    }

    @Test func lengthPrefixedLayouts() {
        #expect(encoded { $0.write("") } == [0])
        #expect(encoded { $0.write("Café") } == [0x05, 0x43, 0x61, 0x66, 0xc3, 0xa9])
        #expect(encoded { $0.write("a\u{0}b") } == [0x03, 0x61, 0x00, 0x62])
        #expect(encoded { $0.write(Data()) } == [0])
        #expect(encoded { $0.write(Data([1, 2, 3])) } == [0x03, 0x01, 0x02, 0x03])
        #expect(encoded { $0.write([0xde, 0xad] as [UInt8]) } == [0x02, 0xde, 0xad])
        #expect(encoded { $0.write([] as [UInt8]) } == [0])
        // A length of 200 takes a two-byte varint prefix.
        let long = String(repeating: "x", count: 200)
        let bytes = encoded { $0.write(long) }
        #expect(bytes.count == 202)
        #expect(Array(bytes.prefix(2)) == [0xc8, 0x01])
        // 100_000 bytes: prefix a0 8d 06.
        let big = encoded { $0.write(Data(repeating: 7, count: 100_000)) }
        #expect(big.count == 100_003)
        #expect(Array(big.prefix(3)) == [0xa0, 0x8d, 0x06])
    }

    // MARK: Varints

    @Test func varIntLayouts() {
        #expect(encoded { $0.writeVarInt(0) } == [0x00])
        #expect(encoded { $0.writeVarInt(1) } == [0x01])
        #expect(encoded { $0.writeVarInt(127) } == [0x7f])
        #expect(encoded { $0.writeVarInt(128) } == [0x80, 0x01])
        #expect(encoded { $0.writeVarInt(300) } == [0xac, 0x02])
        #expect(encoded { $0.writeVarInt(16_383) } == [0xff, 0x7f])
        #expect(encoded { $0.writeVarInt(16_384) } == [0x80, 0x80, 0x01])
        #expect(encoded { $0.writeVarInt(1 << 63) } == [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01])
        #expect(encoded { $0.writeVarInt(UInt64.max) } == [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01])
    }

    @Test func varIntLengthGrowsEverySevenBits() throws {
        for bits in 0 ... 64 {
            let values: [UInt64] = bits == 0 ? [0] : [UInt64(1) << (bits - 1), bits == 64 ? .max : (UInt64(1) << bits) - 1]
            for value in values {
                let bytes = encoded { $0.writeVarInt(value) }
                let expectedLength = max(1, (bits + 6) / 7)
                #expect(bytes.count == expectedLength, "varint \(value)")
                var reader = DataBuffer(bytes: bytes)
                #expect(try reader.readVarInt() == value)
                #expect(reader.remainingCount == 0)
            }
        }
    }

    @Test func varIntRoundTripsInSequence() throws {
        let values: [UInt64] = [0, 1, 127, 128, 255, 256, 300, 16_383, 16_384, 2_097_151, 2_097_152,
                                UInt64(UInt32.max), UInt64(UInt32.max) + 1, UInt64(Int64.max), 1 << 63, .max - 1, .max]
        var writer = DataBuffer()
        for value in values { writer.writeVarInt(value) }
        var reader = DataBuffer(bytes: writer.bytes)
        for value in values {
            #expect(try reader.readVarInt() == value)
        }
        #expect(reader.remainingCount == 0)
    }

    @Test func nonCanonicalVarIntsAreAccepted() throws {
        // Padding with zero continuation groups does not change the value.
        var reader = DataBuffer(bytes: [0x80, 0x00, 0x81, 0x80, 0x00])
        #expect(try reader.readVarInt() == 0)
        #expect(try reader.readVarInt() == 1)
        #expect(reader.remainingCount == 0)
    }

    // MARK: Round trips

    @Test func integerRoundTrips() throws {
        var writer = DataBuffer()
        let u8: [UInt8] = [0, 1, 0x7f, 0x80, .max]
        let u16: [UInt16] = [0, 1, 0x0102, 0x8000, .max]
        let u32: [UInt32] = [0, 1, 0x0102_0304, 0x8000_0000, .max]
        let u64: [UInt64] = [0, 1, 0x0102_0304_0506_0708, 1 << 63, .max]
        let i8: [Int8] = [0, 1, -1, .min, .max]
        let i16: [Int16] = [0, 1, -1, -2, .min, .max]
        let i32: [Int32] = [0, 1, -1, -3, .min, .max]
        let i64: [Int64] = [0, 1, -1, -4, .min, .max]
        let ints: [Int] = [0, 1, -1, 42, -42, .min, .max, Int(Int32.max) + 1]
        u8.forEach { writer.write($0) }
        u16.forEach { writer.write($0) }
        u32.forEach { writer.write($0) }
        u64.forEach { writer.write($0) }
        i8.forEach { writer.write($0) }
        i16.forEach { writer.write($0) }
        i32.forEach { writer.write($0) }
        i64.forEach { writer.write($0) }
        ints.forEach { writer.write($0) }
        let expectedCount = u8.count + 2 * u16.count + 4 * u32.count + 8 * u64.count
            + i8.count + 2 * i16.count + 4 * i32.count + 8 * i64.count + 8 * ints.count
        #expect(writer.bytes.count == expectedCount)

        var reader = DataBuffer(bytes: writer.bytes)
        for value in u8 { #expect(try reader.readUInt8() == value) }
        for value in u16 { #expect(try reader.readUInt16() == value) }
        for value in u32 { #expect(try reader.readUInt32() == value) }
        for value in u64 { #expect(try reader.readUInt64() == value) }
        for value in i8 { #expect(try reader.readInt8() == value) }
        for value in i16 { #expect(try reader.readInt16() == value) }
        for value in i32 { #expect(try reader.readInt32() == value) }
        for value in i64 { #expect(try reader.readInt64() == value) }
        for value in ints { #expect(try reader.readInt() == value) }
        #expect(reader.remainingCount == 0)
        #expect(reader.readPosition == expectedCount)
    }

    @Test func boolRoundTrips() throws {
        var writer = DataBuffer()
        writer.write(true)
        writer.write(false)
        writer.write(true)
        var reader = DataBuffer(bytes: writer.bytes)
        #expect(try reader.readBool() == true)
        #expect(try reader.readBool() == false)
        #expect(try reader.readBool() == true)
        #expect(reader.remainingCount == 0)
    }

    @Test func floatRoundTripsKeepBitPatterns() throws {
        let payloadNaN = Float(nan: 0x1234, signaling: false)
        let signalingNaN = Float(nan: 0x55, signaling: true)
        let values: [Float] = [0, -0.0, 1.5, -1.5, .pi, .infinity, -.infinity, .leastNonzeroMagnitude,
                               .greatestFiniteMagnitude, .ulpOfOne, payloadNaN, signalingNaN, -payloadNaN]
        var writer = DataBuffer()
        values.forEach { writer.write($0) }
        #expect(writer.bytes.count == 4 * values.count)
        var reader = DataBuffer(bytes: writer.bytes)
        for value in values {
            let read = try reader.readFloat()
            #expect(read.bitPattern == value.bitPattern, "\(value)")
        }
        #expect(reader.remainingCount == 0)
        #expect(payloadNaN.bitPattern & 0x3f_ffff == 0x1234)
    }

    @Test func doubleRoundTripsKeepBitPatterns() throws {
        let payloadNaN = Double(nan: 0xdead_beef, signaling: false)
        let signalingNaN = Double(nan: 0x42, signaling: true)
        let values: [Double] = [0, -0.0, 1, -1, 3.25, .pi, 0.1, .infinity, -.infinity, .leastNonzeroMagnitude,
                                .leastNormalMagnitude, .greatestFiniteMagnitude, .ulpOfOne, payloadNaN, signalingNaN]
        var writer = DataBuffer()
        values.forEach { writer.write($0) }
        #expect(writer.bytes.count == 8 * values.count)
        var reader = DataBuffer(bytes: writer.bytes)
        for value in values {
            let read = try reader.readDouble()
            #expect(read.bitPattern == value.bitPattern, "\(value)")
        }
        #expect(reader.remainingCount == 0)

        // -0.0 keeps its sign.
        var negativeZero = DataBuffer(bytes: encoded { $0.write(-0.0 as Double) })
        let readZero = try negativeZero.readDouble()
        #expect(readZero == 0 && readZero.sign == .minus)
        #expect(payloadNaN.bitPattern & 0x000f_ffff_ffff_ffff == 0x0008_0000_dead_beef)
    }

    @Test func stringRoundTrips() throws {
        let values = ["", "a", "Blue in Green", "Café ☕ 日本語", "a\u{0}b", "\u{0}", "🎷🎺 e\u{301}",
                      String(repeating: "x", count: 127), String(repeating: "y", count: 128),
                      String(repeating: "ü", count: 5_000)]
        var writer = DataBuffer()
        values.forEach { writer.write($0) }
        var reader = DataBuffer(bytes: writer.bytes)
        for value in values {
            let read = try reader.readString()
            #expect(read == value)
            #expect(Array(read.utf8) == Array(value.utf8))
        }
        #expect(reader.remainingCount == 0)
        // The embedded NUL is kept, not treated as a terminator.
        var nul = DataBuffer(bytes: [0x03, 0x61, 0x00, 0x62])
        #expect(try nul.readString().utf8.count == 3)
    }

    @Test func dataAndByteBlobRoundTrips() throws {
        let datas = [Data(), Data([0]), Data([1, 2, 3]), Data((0 ..< 300).map { UInt8(truncatingIfNeeded: $0) })]
        let blobs: [[UInt8]] = [[], [0xde, 0xad, 0xbe, 0xef], [UInt8](repeating: 0xff, count: 129)]
        var writer = DataBuffer()
        datas.forEach { writer.write($0) }
        blobs.forEach { writer.write($0) }
        var reader = DataBuffer(bytes: writer.bytes)
        for value in datas { #expect(try reader.readData() == value) }
        for value in blobs { #expect(try reader.readBytes() == value) }
        #expect(reader.remainingCount == 0)
        // Data read back starts at index 0 (not a slice of the buffer) and is independent.
        var sliceCheck = DataBuffer(bytes: [0x09, 0x02, 0xaa, 0xbb])
        _ = try sliceCheck.readUInt8()
        let data = try sliceCheck.readData()
        #expect(data == Data([0xaa, 0xbb]))
        #expect(data[data.startIndex] == 0xaa)
    }

    @Test func dateRoundTripsExactly() throws {
        let values = [
            Date(timeIntervalSinceReferenceDate: 0),
            Date(timeIntervalSince1970: 0),
            Date.distantPast,
            Date.distantFuture,
            Date(timeIntervalSinceReferenceDate: 765_432_109.876_543_21),
            Date(timeIntervalSinceReferenceDate: -0.000_001),
            Date(timeIntervalSinceReferenceDate: 0.1),
            Date(timeIntervalSince1970: 1_700_000_000.123_456),
            Date(timeIntervalSinceReferenceDate: .leastNonzeroMagnitude),
        ]
        var writer = DataBuffer()
        values.forEach { writer.write($0) }
        #expect(writer.bytes.count == 8 * values.count)
        var reader = DataBuffer(bytes: writer.bytes)
        for value in values {
            let read = try reader.readDate()
            #expect(read == value)
            #expect(read.timeIntervalSinceReferenceDate.bitPattern == value.timeIntervalSinceReferenceDate.bitPattern)
        }
        #expect(reader.remainingCount == 0)
    }

    @Test func uuidRoundTrips() throws {
        let values = [
            try #require(UUID(uuidString: "00000000-0000-0000-0000-000000000000")),
            try #require(UUID(uuidString: "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF")),
            try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")),
            UUID(), UUID(),
        ]
        var writer = DataBuffer()
        values.forEach { writer.write($0) }
        #expect(writer.bytes.count == 16 * values.count)
        var reader = DataBuffer(bytes: writer.bytes)
        for value in values { #expect(try reader.readUUID() == value) }
        #expect(reader.remainingCount == 0)
    }

    // MARK: Optionals

    @Test func optionalStringDistinguishesNilFromEmpty() throws {
        #expect(encoded { $0.write(nil as String?) } == [0])
        #expect(encoded { $0.write("" as String?) } == [1, 0])
        #expect(encoded { $0.write("hi" as String?) } == [1, 2, 0x68, 0x69])

        var writer = DataBuffer()
        writer.write(nil as String?)
        writer.write("" as String?)
        writer.write("Café ☕ 日本語" as String?)
        var reader = DataBuffer(bytes: writer.bytes)
        let first = try reader.readOptionalString()
        let second = try reader.readOptionalString()
        let third = try reader.readOptionalString()
        #expect(first == nil)
        #expect(second != nil)
        #expect(second == "")
        #expect(third == "Café ☕ 日本語")
        #expect(reader.remainingCount == 0)
    }

    @Test func optionalLayouts() throws {
        #expect(encoded { $0.write(nil as Data?) } == [0])
        #expect(encoded { $0.write(Data() as Data?) } == [1, 0])
        #expect(encoded { $0.write(Data([9]) as Data?) } == [1, 1, 9])
        #expect(encoded { $0.write(nil as Date?) } == [0])
        #expect(encoded { $0.write(Date(timeIntervalSinceReferenceDate: 0) as Date?) } == [1, 0, 0, 0, 0, 0, 0, 0, 0])
        #expect(encoded { $0.write(nil as UUID?) } == [0])
        let uuid = try #require(UUID(uuidString: "00112233-4455-6677-8899-AABBCCDDEEFF"))
        #expect(encoded { $0.write(uuid as UUID?) } == [1, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
                                                        0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff])
        #expect(encoded { $0.write(nil as Int?) } == [0])
        #expect(encoded { $0.write(0 as Int?) } == [1, 0, 0, 0, 0, 0, 0, 0, 0])
        #expect(encoded { $0.write(-1 as Int?) } == [1] + [UInt8](repeating: 0xff, count: 8))
        #expect(encoded { $0.write(nil as Double?) } == [0])
        #expect(encoded { $0.write(3.25 as Double?) } == [1, 0, 0, 0, 0, 0, 0, 0x0a, 0x40])
        #expect(encoded { $0.writeOptional(UInt16(0x0102) as UInt16?) { $0.write($1) } } == [1, 0x02, 0x01])
        #expect(encoded { $0.writeOptional(nil as UInt16?) { $0.write($1) } } == [0])
    }

    @Test func optionalRoundTrips() throws {
        let uuid = try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        let date = Date(timeIntervalSinceReferenceDate: 12_345.678_9)
        var writer = DataBuffer()
        writer.write(nil as Data?)
        writer.write(Data() as Data?)
        writer.write(Data([1, 2]) as Data?)
        writer.write(nil as Date?)
        writer.write(Date(timeIntervalSinceReferenceDate: 0) as Date?)
        writer.write(date as Date?)
        writer.write(nil as UUID?)
        writer.write(uuid as UUID?)
        writer.write(nil as Int?)
        writer.write(0 as Int?)
        writer.write(Int.min as Int?)
        writer.write(nil as Double?)
        writer.write(-0.0 as Double?)
        writer.write(Double.nan as Double?)
        writer.writeOptional(nil as UInt16?) { $0.write($1) }
        writer.writeOptional(UInt16(0xbeef) as UInt16?) { $0.write($1) }
        writer.writeOptional([1, 2, 3] as [UInt8]?) { $0.write($1) }
        writer.writeOptional(nil as Bool?) { $0.write($1) }
        writer.writeOptional(false as Bool?) { $0.write($1) }

        var reader = DataBuffer(bytes: writer.bytes)
        #expect(try reader.readOptionalData() == nil)
        #expect(try reader.readOptionalData() == Data())
        #expect(try reader.readOptionalData() == Data([1, 2]))
        #expect(try reader.readOptionalDate() == nil)
        #expect(try reader.readOptionalDate() == Date(timeIntervalSinceReferenceDate: 0))
        #expect(try reader.readOptionalDate() == date)
        #expect(try reader.readOptionalUUID() == nil)
        #expect(try reader.readOptionalUUID() == uuid)
        #expect(try reader.readOptionalInt() == nil)
        #expect(try reader.readOptionalInt() == 0)
        #expect(try reader.readOptionalInt() == Int.min)
        #expect(try reader.readOptionalDouble() == nil)
        let negativeZero = try #require(try reader.readOptionalDouble())
        #expect(negativeZero.bitPattern == (-0.0 as Double).bitPattern)
        let nan = try #require(try reader.readOptionalDouble())
        #expect(nan.bitPattern == Double.nan.bitPattern)
        #expect(try reader.readOptional { try $0.readUInt16() } == nil)
        #expect(try reader.readOptional { try $0.readUInt16() } == 0xbeef)
        #expect(try reader.readOptional { try $0.readBytes() } == [1, 2, 3])
        #expect(try reader.readOptional { try $0.readBool() } == nil)
        #expect(try reader.readOptional { try $0.readBool() } == false)
        #expect(reader.remainingCount == 0)
    }

    @Test func readOptionalDoesNotCallReaderForNil() throws {
        var reader = DataBuffer(bytes: [0, 1, 7])
        var calls = 0
        let none: UInt8? = try reader.readOptional { calls += 1; return try $0.readUInt8() }
        #expect(none == nil)
        #expect(calls == 0)
        #expect(reader.readPosition == 1)
        let some: UInt8? = try reader.readOptional { calls += 1; return try $0.readUInt8() }
        #expect(some == 7)
        #expect(calls == 1)
        #expect(reader.remainingCount == 0)
    }

    // MARK: A whole record

    @Test func mixedRecordRoundTripsInOrder() throws {
        let record = DBTRecord()
        var writer = DataBuffer()
        record.write(to: &writer)
        #expect(writer.readPosition == 0)
        #expect(writer.bytes.count == DBTRecord.encodedCount)

        var reader = DataBuffer(bytes: writer.bytes)
        #expect(reader.remainingCount == writer.bytes.count)
        let read = try DBTRecord(from: &reader)
        #expect(read == record)
        #expect(reader.remainingCount == 0)
        #expect(reader.readPosition == writer.bytes.count)
        // Reading past the end is a typed error at the end offset.
        #expect(readError(on: &reader) { try $0.readUInt8() }
            == .truncated(offset: writer.bytes.count, needed: 1, available: 0))
    }

    @Test func remainingCountTracksEachRead() throws {
        var writer = DataBuffer()
        writer.write(UInt32(7))
        writer.write("abc")
        writer.write(true)
        writer.writeVarInt(300)
        var reader = DataBuffer(bytes: writer.bytes)
        #expect(reader.remainingCount == 11)
        _ = try reader.readUInt32()
        #expect(reader.remainingCount == 7)
        #expect(reader.readPosition == 4)
        #expect(try reader.readString() == "abc")
        #expect(reader.remainingCount == 3)
        #expect(try reader.readBool() == true)
        #expect(reader.remainingCount == 2)
        #expect(try reader.readVarInt() == 300)
        #expect(reader.remainingCount == 0)
    }

    @Test func writingAfterReadingAppends() throws {
        var buffer = DataBuffer()
        buffer.write(UInt8(1))
        #expect(try buffer.readUInt8() == 1)
        #expect(buffer.remainingCount == 0)
        buffer.write(UInt16(0x0203))
        #expect(buffer.remainingCount == 2)
        #expect(buffer.bytes == [1, 0x03, 0x02])
        #expect(try buffer.readUInt16() == 0x0203)
        #expect(buffer.remainingCount == 0)
    }

    // MARK: Bounds checks and errors

    @Test func truncatedFixedWidthReadsThrow() {
        #expect(readError([]) { try $0.readUInt8() } == .truncated(offset: 0, needed: 1, available: 0))
        #expect(readError([1]) { try $0.readUInt16() } == .truncated(offset: 0, needed: 2, available: 1))
        #expect(readError([1, 2, 3]) { try $0.readUInt32() } == .truncated(offset: 0, needed: 4, available: 3))
        #expect(readError([1, 2, 3, 4, 5, 6, 7]) { try $0.readUInt64() } == .truncated(offset: 0, needed: 8, available: 7))
        #expect(readError([]) { try $0.readInt8() } == .truncated(offset: 0, needed: 1, available: 0))
        #expect(readError([0xff]) { try $0.readInt16() } == .truncated(offset: 0, needed: 2, available: 1))
        #expect(readError([]) { try $0.readInt32() } == .truncated(offset: 0, needed: 4, available: 0))
        #expect(readError([1, 2]) { try $0.readInt64() } == .truncated(offset: 0, needed: 8, available: 2))
        #expect(readError([1, 2, 3, 4]) { try $0.readInt() } == .truncated(offset: 0, needed: 8, available: 4))
        #expect(readError([]) { try $0.readBool() } == .truncated(offset: 0, needed: 1, available: 0))
        #expect(readError([0, 0]) { try $0.readFloat() } == .truncated(offset: 0, needed: 4, available: 2))
        #expect(readError([0, 0, 0, 0]) { try $0.readDouble() } == .truncated(offset: 0, needed: 8, available: 4))
        #expect(readError([0, 0, 0, 0, 0, 0, 0]) { try $0.readDate() } == .truncated(offset: 0, needed: 8, available: 7))
        #expect(readError([UInt8](repeating: 0, count: 15)) { try $0.readUUID() }
            == .truncated(offset: 0, needed: 16, available: 15))
    }

    @Test func truncatedReadsReportTheirOffset() throws {
        // Two bytes read, then a UInt32 with only three bytes left.
        var buffer = DataBuffer(bytes: [1, 0, 9, 9, 9])
        #expect(try buffer.readUInt16() == 1)
        #expect(readError(on: &buffer) { try $0.readUInt32() } == .truncated(offset: 2, needed: 4, available: 3))
        // A failed fixed-width read leaves the cursor where it was, so a smaller read still works.
        #expect(buffer.readPosition == 2)
        #expect(try buffer.readUInt16() == 0x0909)
        #expect(readError(on: &buffer) { try $0.readUUID() } == .truncated(offset: 4, needed: 16, available: 1))
        #expect(buffer.readPosition == 4)
    }

    @Test func truncatedVariableLengthReadsThrow() {
        // No length prefix at all.
        #expect(readError([]) { try $0.readString() } == .truncated(offset: 0, needed: 1, available: 0))
        #expect(readError([]) { try $0.readData() } == .truncated(offset: 0, needed: 1, available: 0))
        #expect(readError([]) { try $0.readBytes() } == .truncated(offset: 0, needed: 1, available: 0))
        #expect(readError([]) { try $0.readVarInt() } == .truncated(offset: 0, needed: 1, available: 0))
        // A varint whose continuation bytes run out.
        #expect(readError([0x80]) { try $0.readVarInt() } == .truncated(offset: 0, needed: 2, available: 1))
        #expect(readError([0x80, 0x80]) { try $0.readVarInt() } == .truncated(offset: 0, needed: 3, available: 2))
        #expect(readError([0xac]) { try $0.readString() } == .truncated(offset: 0, needed: 2, available: 1))
        // A length prefix that claims more bytes than remain: needed is the claimed length,
        // available what follows the prefix.
        #expect(readError([0x05, 0x61]) { try $0.readString() } == .truncated(offset: 0, needed: 5, available: 1))
        #expect(readError([0x03, 1, 2]) { try $0.readData() } == .truncated(offset: 0, needed: 3, available: 2))
        #expect(readError([0x02]) { try $0.readBytes() } == .truncated(offset: 0, needed: 2, available: 0))
        #expect(readError([0xac, 0x02] + [UInt8](repeating: 0x61, count: 299)) { try $0.readString() }
            == .truncated(offset: 0, needed: 300, available: 299))
    }

    @Test func truncatedLengthDoesNotMoveCursor() throws {
        var buffer = DataBuffer(bytes: [0x00, 0x05, 0x61])
        #expect(try buffer.readString() == "")
        #expect(readError(on: &buffer) { try $0.readString() } == .truncated(offset: 1, needed: 5, available: 1))
        #expect(buffer.readPosition == 1)
        #expect(try buffer.readUInt8() == 5)
    }

    @Test func aFieldKeyCutShortThrowsAndTheEndReadsAsNil() throws {
        var buffer = DataBuffer(bytes: [0x0d, 0xb5, 0x65, 0x98, 0x01, 0x02, 0x03])
        #expect(try buffer.readFieldKey() == 0x9865_b50d)
        #expect(readError(on: &buffer) { try $0.readFieldKey() } == .truncated(offset: 4, needed: 4, available: 3))
        #expect(buffer.readPosition == 4)
        #expect(try buffer.readUInt8() == 1)
        var empty = DataBuffer(bytes: [0x0d, 0xb5, 0x65, 0x98])
        _ = try empty.readFieldKey()
        #expect(try empty.readFieldKey() == nil)
        #expect(empty.readPosition == 4)
    }

    @Test func truncatedOptionalsThrow() {
        #expect(readError([]) { try $0.readOptionalString() } == .truncated(offset: 0, needed: 1, available: 0))
        #expect(readError([1]) { try $0.readOptionalString() } == .truncated(offset: 1, needed: 1, available: 0))
        #expect(readError([1, 4, 0x61]) { try $0.readOptionalString() } == .truncated(offset: 1, needed: 4, available: 1))
        #expect(readError([1, 2]) { try $0.readOptionalData() } == .truncated(offset: 1, needed: 2, available: 0))
        #expect(readError([1, 0, 0]) { try $0.readOptionalDate() } == .truncated(offset: 1, needed: 8, available: 2))
        #expect(readError([1, 0, 0, 0]) { try $0.readOptionalUUID() } == .truncated(offset: 1, needed: 16, available: 3))
        #expect(readError([1, 0, 0]) { try $0.readOptionalInt() } == .truncated(offset: 1, needed: 8, available: 2))
        #expect(readError([1]) { try $0.readOptionalDouble() } == .truncated(offset: 1, needed: 8, available: 0))
        #expect(readError([]) { try $0.readOptional { try $0.readUInt16() } } == .truncated(offset: 0, needed: 1, available: 0))
        #expect(readError([1, 9]) { try $0.readOptional { try $0.readUInt16() } } == .truncated(offset: 1, needed: 2, available: 1))
    }

    @Test func invalidBooleanThrows() throws {
        #expect(readError([2]) { try $0.readBool() } == .invalidBoolean(offset: 0, byte: 2))
        #expect(readError([0xff]) { try $0.readBool() } == .invalidBoolean(offset: 0, byte: 0xff))
        var buffer = DataBuffer(bytes: [1, 0, 7])
        #expect(try buffer.readBool() == true)
        #expect(try buffer.readBool() == false)
        #expect(readError(on: &buffer) { try $0.readBool() } == .invalidBoolean(offset: 2, byte: 7))
        // The presence byte of every optional is a Bool.
        #expect(readError([2]) { try $0.readOptionalString() } == .invalidBoolean(offset: 0, byte: 2))
        #expect(readError([3]) { try $0.readOptionalData() } == .invalidBoolean(offset: 0, byte: 3))
        #expect(readError([0x80]) { try $0.readOptionalDate() } == .invalidBoolean(offset: 0, byte: 0x80))
        #expect(readError([0x10]) { try $0.readOptionalUUID() } == .invalidBoolean(offset: 0, byte: 0x10))
        #expect(readError([0xff]) { try $0.readOptionalInt() } == .invalidBoolean(offset: 0, byte: 0xff))
        #expect(readError([2, 0, 0, 0, 0, 0, 0, 0, 0]) { try $0.readOptionalDouble() } == .invalidBoolean(offset: 0, byte: 2))
        #expect(readError([5, 1, 2]) { try $0.readOptional { try $0.readUInt16() } } == .invalidBoolean(offset: 0, byte: 5))
    }

    @Test func invalidUTF8Throws() throws {
        #expect(readError([0x02, 0xff, 0xfe]) { try $0.readString() } == .invalidUTF8(offset: 0))
        // A lone continuation byte, a truncated sequence, an overlong NUL, a UTF-16 surrogate.
        #expect(readError([0x01, 0x80]) { try $0.readString() } == .invalidUTF8(offset: 0))
        #expect(readError([0x02, 0xe2, 0x98]) { try $0.readString() } == .invalidUTF8(offset: 0))
        #expect(readError([0x02, 0xc0, 0x80]) { try $0.readString() } == .invalidUTF8(offset: 0))
        #expect(readError([0x03, 0xed, 0xa0, 0x80]) { try $0.readString() } == .invalidUTF8(offset: 0))
        // A valid multi-byte character cut by its length prefix.
        #expect(readError([0x04, 0x43, 0x61, 0x66, 0xc3, 0xa9]) { try $0.readString() } == .invalidUTF8(offset: 0))
        // The offset is where the string (its length prefix) starts.
        var buffer = DataBuffer(bytes: [0x01, 0x61, 0x01, 0xff])
        #expect(try buffer.readString() == "a")
        #expect(readError(on: &buffer) { try $0.readString() } == .invalidUTF8(offset: 2))
        #expect(readError([0x01, 0x02, 0xff, 0xfe]) { try $0.readOptionalString() } == .invalidUTF8(offset: 1))
        // Data and byte blobs take any bytes.
        var data = DataBuffer(bytes: [0x02, 0xff, 0xfe, 0x02, 0xff, 0xfe])
        #expect(try data.readData() == Data([0xff, 0xfe]))
        #expect(try data.readBytes() == [0xff, 0xfe])
    }

    @Test func malformedVarIntsThrow() throws {
        // Eleven bytes of 0xff: the tenth byte carries more than the 64th bit.
        #expect(readError([UInt8](repeating: 0xff, count: 11)) { try $0.readVarInt() } == .malformedVarInt(offset: 0))
        // Ten bytes whose last carries bit 65.
        #expect(readError([UInt8](repeating: 0xff, count: 9) + [0x02]) { try $0.readVarInt() } == .malformedVarInt(offset: 0))
        // Eleven bytes of zero payload: too long even though the value would fit.
        #expect(readError([UInt8](repeating: 0x80, count: 10) + [0x00]) { try $0.readVarInt() } == .malformedVarInt(offset: 0))
        #expect(readError([UInt8](repeating: 0xff, count: 9) + [0x81, 0x00]) { try $0.readVarInt() } == .malformedVarInt(offset: 0))
        // The largest legal ten-byte varint still reads.
        var max = DataBuffer(bytes: [UInt8](repeating: 0xff, count: 9) + [0x01])
        #expect(try max.readVarInt() == .max)
        // The offset is where the varint starts, and the cursor goes back there.
        var buffer = DataBuffer(bytes: [0x05] + [UInt8](repeating: 0xff, count: 11))
        #expect(try buffer.readVarInt() == 5)
        #expect(readError(on: &buffer) { try $0.readVarInt() } == .malformedVarInt(offset: 1))
        #expect(buffer.readPosition == 1)
        // Every length-prefixed read surfaces the malformed prefix.
        let bad = [UInt8](repeating: 0xff, count: 12)
        #expect(readError(bad) { try $0.readString() } == .malformedVarInt(offset: 0))
        #expect(readError(bad) { try $0.readData() } == .malformedVarInt(offset: 0))
        #expect(readError(bad) { try $0.readBytes() } == .malformedVarInt(offset: 0))
        #expect(readError([1] + bad) { try $0.readOptionalString() } == .malformedVarInt(offset: 1))
    }

    @Test func hugeLengthPrefixesThrowWithoutCrashing() throws {
        let maxPrefix = encoded { $0.writeVarInt(.max) }
        let intMaxPrefix = encoded { $0.writeVarInt(UInt64(Int.max)) }
        let justOverIntMax = encoded { $0.writeVarInt(UInt64(Int.max) + 1) }
        for prefix in [maxPrefix, intMaxPrefix, justOverIntMax] {
            let bytes = prefix + [0x61, 0x62, 0x63]
            let expected = DataBufferError.truncated(offset: 0, needed: Int.max, available: 3)
            #expect(readError(bytes) { try $0.readString() } == expected)
            #expect(readError(bytes) { try $0.readData() } == expected)
            #expect(readError(bytes) { try $0.readBytes() } == expected)
            #expect(readError([1] + bytes) { try $0.readOptionalString() }
                == .truncated(offset: 1, needed: Int.max, available: 3))
            #expect(readError([1] + bytes) { try $0.readOptionalData() }
                == .truncated(offset: 1, needed: Int.max, available: 3))
        }
        // One byte more than remains, at the edge.
        var edge = DataBuffer(bytes: [0x04, 1, 2, 3])
        #expect(readError(on: &edge) { try $0.readBytes() } == .truncated(offset: 0, needed: 4, available: 3))
        #expect(edge.readPosition == 0)
        var exact = DataBuffer(bytes: [0x03, 1, 2, 3])
        #expect(try exact.readBytes() == [1, 2, 3])
        #expect(exact.remainingCount == 0)
    }

    @Test func errorDescriptionsNameTheProblem() {
        #expect(DataBufferError.truncated(offset: 3, needed: 4, available: 1).description
            == "truncated data at offset 3: needed 4 bytes, 1 available")
        #expect(DataBufferError.invalidBoolean(offset: 2, byte: 0xab).description == "invalid boolean byte 0xab at offset 2")
        #expect(DataBufferError.invalidUTF8(offset: 5).description == "invalid UTF-8 string at offset 5")
        #expect(DataBufferError.malformedVarInt(offset: 0).description == "malformed variable-length integer at offset 0")
        #expect(DataBufferError.valueOutOfRange(offset: 8).description == "value out of range at offset 8")
    }

    /// Observed inconsistency (see the report): `readLength`, fixed-width reads and a malformed
    /// varint leave the cursor at the start of the failed read, but these failures do not.
    @Test
    func everyFailedReadLeavesTheCursorWhereItStarted() {
        var utf8 = DataBuffer(bytes: [0x02, 0xff, 0xfe])
        _ = readError(on: &utf8) { try $0.readString() }
        #expect(utf8.readPosition == 0)
        var bool = DataBuffer(bytes: [2])
        _ = readError(on: &bool) { try $0.readBool() }
        #expect(bool.readPosition == 0)
        var varint = DataBuffer(bytes: [0x80, 0x80])
        _ = readError(on: &varint) { try $0.readVarInt() }
        #expect(varint.readPosition == 0)
    }

    // MARK: Fuzzing

    @Test func splitMixIsDeterministic() {
        var a = SplitMix(seed: 0)
        var b = SplitMix(seed: 0)
        // Reference output of SplitMix64 seeded with 0.
        #expect(a.next() == 0xe220_a839_7b1d_cdaf)
        #expect(b.next() == 0xe220_a839_7b1d_cdaf)
        #expect(a.next() == b.next())
    }

    @Test func randomBytesNeverCrashAnyRead() {
        var rng = SplitMix(seed: 0x1a2d_e55e_ed00_0001)
        var stats = DBTFuzzStats()
        // Bytes skewed toward the values that steer reads: presence and bool bytes, length
        // prefixes, continuation bits.
        let interesting: [UInt8] = [0, 1, 2, 3, 0x7f, 0x80, 0x81, 0xff, 0xc3, 0xe2, 0x61]
        for iteration in 0 ..< 20_000 {
            let length = Int.random(in: 0 ... 64, using: &rng)
            let skewed = Bool.random(using: &rng)
            let bytes: [UInt8] = (0 ..< length).map { _ in
                skewed && Bool.random(using: &rng) ? interesting.randomElement(using: &rng)! : UInt8.random(in: 0 ... 255, using: &rng)
            }
            var buffer = DataBuffer(bytes: bytes)
            let reads = Int.random(in: 1 ... 12, using: &rng)
            for _ in 0 ..< reads {
                let kind = DBTReadKind.allCases.randomElement(using: &rng)!
                checkedRead(kind, on: &buffer, stats: &stats, context: "iteration \(iteration)")
            }
        }
        #expect(stats.failures.isEmpty, "\(stats.failures.prefix(10))")
        #expect(stats.reads > 100_000)
        // Every read was exercised down both paths.
        for kind in DBTReadKind.allCases {
            #expect(stats.successes[kind, default: 0] > 0, "\(kind) never succeeded")
            #expect(stats.errors[kind, default: 0] > 0, "\(kind) never threw")
        }
        for name in ["truncated", "invalidBoolean", "invalidUTF8", "malformedVarInt"] {
            #expect(stats.errorCases[name, default: 0] > 0, "\(name) never seen")
        }
    }

    @Test func everyTruncationOfARecordThrowsTruncated() throws {
        var writer = DataBuffer()
        DBTRecord().write(to: &writer)
        let full = writer.bytes
        var failures: [String] = []
        for length in 0 ..< full.count {
            var reader = DataBuffer(bytes: Array(full.prefix(length)))
            do {
                _ = try DBTRecord(from: &reader)
                failures.append("prefix \(length) read a whole record")
            } catch let error as DataBufferError {
                guard case let .truncated(offset, needed, available) = error,
                      offset <= length, needed > available, offset + available <= length
                else {
                    failures.append("prefix \(length): \(error)")
                    continue
                }
            } catch {
                failures.append("prefix \(length): non-DataBufferError \(error)")
            }
        }
        #expect(failures.isEmpty, "\(failures.prefix(10))")
        var reader = DataBuffer(bytes: full)
        #expect(try DBTRecord(from: &reader) == DBTRecord())
        #expect(reader.remainingCount == 0)
    }

    @Test func damagedRecordsNeverCrashAnyRead() {
        var writer = DataBuffer()
        DBTRecord().write(to: &writer)
        let full = writer.bytes
        var variants: [[UInt8]] = (0 ... full.count).map { Array(full.prefix($0)) }
        for index in full.indices {
            for bit in 0 ..< 8 {
                var flipped = full
                flipped[index] ^= UInt8(1) << bit
                variants.append(flipped)
            }
        }
        var stats = DBTFuzzStats()
        var recordsRead = 0
        var recordErrors = 0
        for (number, bytes) in variants.enumerated() {
            let context = "variant \(number)"
            // The whole record schema.
            var reader = DataBuffer(bytes: bytes)
            do {
                _ = try DBTRecord(from: &reader)
                recordsRead += 1
            } catch let error as DataBufferError {
                recordErrors += 1
                if let problem = inconsistency(of: error, in: bytes) { stats.failures.append("\(context): \(problem)") }
            } catch {
                stats.failures.append("\(context): non-DataBufferError \(error)")
            }
            // Each single read kind, repeated from the start until it throws or the bytes run out.
            for kind in DBTReadKind.allCases {
                var buffer = DataBuffer(bytes: bytes)
                var steps = 0
                while steps < 64, checkedRead(kind, on: &buffer, stats: &stats, context: context) {
                    steps += 1
                }
            }
        }
        #expect(stats.failures.isEmpty, "\(stats.failures.prefix(10))")
        #expect(recordsRead > 0)
        #expect(recordErrors > full.count)
        #expect(variants.count == full.count * 9 + 1)
    }

    // MARK: Equality, hashing, state

    @Test func equalityIgnoresReadPosition() throws {
        let a = DataBuffer(bytes: [1, 2, 3, 4])
        var b = DataBuffer(bytes: [1, 2, 3, 4])
        _ = try b.readUInt16()
        #expect(b.readPosition == 2)
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(Set([a, b]).count == 1)
        _ = try b.readUInt16()
        #expect(b.remainingCount == 0)
        #expect(a == b)

        var written = DataBuffer()
        written.write(UInt32(0x0403_0201))
        #expect(written == a)
        #expect(written.hashValue == a.hashValue)
    }

    @Test func equalityCoversBytesAndVersion() {
        let a = DataBuffer(bytes: [1, 2, 3])
        #expect(a != DataBuffer(bytes: [1, 2, 4]))
        #expect(a != DataBuffer(bytes: [1, 2]))
        #expect(a != DataBuffer(bytes: [1, 2, 3, 0]))
        #expect(a != DataBuffer(bytes: [1, 2, 3], versionOfData: 2))
        #expect(a == DataBuffer(bytes: [1, 2, 3], versionOfData: 1))
        #expect(DataBuffer() == DataBuffer(bytes: []))
        let set = Set([a, DataBuffer(bytes: [1, 2, 3], versionOfData: 2), DataBuffer(bytes: [1, 2, 3])])
        #expect(set.count == 2)
    }

    @Test func initializersAndHelpers() throws {
        let empty = DataBuffer()
        #expect(empty.bytes.isEmpty)
        #expect(empty.readPosition == 0)
        #expect(empty.remainingCount == 0)
        #expect(empty.versionOfData == 1)
        #expect(DataBuffer(bytes: [9]).versionOfData == 1)
        let old = DataBuffer(bytes: [9, 8], versionOfData: 7)
        #expect(old.versionOfData == 7)
        #expect(old.bytes == [9, 8])
        #expect(old.remainingCount == 2)

        var buffer = DataBuffer()
        buffer.reserveCapacity(4096)
        #expect(buffer.bytes.isEmpty)
        ([0xaa, 0xbb] as [UInt8]).withUnsafeBytes { buffer.appendRaw($0) }
        Data([0xcc]).withUnsafeBytes { buffer.appendRaw($0) }
        #expect(buffer.bytes == [0xaa, 0xbb, 0xcc])
        #expect(try buffer.readUInt8() == 0xaa)
        buffer.removeAll()
        #expect(buffer.bytes.isEmpty)
        #expect(buffer.readPosition == 0)
        buffer.write(UInt8(5))
        #expect(try buffer.readUInt8() == 5)
    }
}

// MARK: - Helpers

/// The bytes `body` writes into a fresh buffer.
private func encoded(_ body: (inout DataBuffer) -> Void) -> [UInt8] {
    var buffer = DataBuffer()
    body(&buffer)
    return buffer.bytes
}

/// The DataBufferError `read` throws on `bytes`, or nil if it returns or throws something else.
private func readError<T>(_ bytes: [UInt8], _ read: (inout DataBuffer) throws -> T) -> DataBufferError? {
    var buffer = DataBuffer(bytes: bytes)
    return readError(on: &buffer, read)
}

/// The DataBufferError `read` throws on `buffer`, or nil if it returns or throws something else.
private func readError<T>(on buffer: inout DataBuffer, _ read: (inout DataBuffer) throws -> T) -> DataBufferError? {
    do {
        _ = try read(&buffer)
        return nil
    } catch let error as DataBufferError {
        return error
    } catch {
        return nil
    }
}


/// Every public read of DataBuffer.
private enum DBTReadKind: CaseIterable, Hashable {
    case uint8, uint16, uint32, uint64, int8, int16, int32, int64, int, bool, float, double, date, uuid
    case string, data, bytes, varInt
    case optionalString, optionalData, optionalDate, optionalUUID, optionalInt, optionalDouble, optionalGeneric

    /// Whether re-encoding a value read this way must give back exactly the bytes consumed
    /// (false where a varint prefix may be non-canonical).
    var isCanonical: Bool {
        switch self {
        case .string, .data, .bytes, .varInt, .optionalString, .optionalData: return false
        default: return true
        }
    }
}

/// Performs one read of `kind`; on success returns the value written back by the matching write.
private func readAndReencode(_ kind: DBTReadKind, from buffer: inout DataBuffer) throws -> [UInt8] {
    var out = DataBuffer()
    switch kind {
    case .uint8: let v = try buffer.readUInt8(); out.write(v)
    case .uint16: let v = try buffer.readUInt16(); out.write(v)
    case .uint32: let v = try buffer.readUInt32(); out.write(v)
    case .uint64: let v = try buffer.readUInt64(); out.write(v)
    case .int8: let v = try buffer.readInt8(); out.write(v)
    case .int16: let v = try buffer.readInt16(); out.write(v)
    case .int32: let v = try buffer.readInt32(); out.write(v)
    case .int64: let v = try buffer.readInt64(); out.write(v)
    case .int: let v = try buffer.readInt(); out.write(v)
    case .bool: let v = try buffer.readBool(); out.write(v)
    case .float: let v = try buffer.readFloat(); out.write(v)
    case .double: let v = try buffer.readDouble(); out.write(v)
    case .date: let v = try buffer.readDate(); out.write(v)
    case .uuid: let v = try buffer.readUUID(); out.write(v)
    case .string: let v = try buffer.readString(); out.write(v)
    case .data: let v = try buffer.readData(); out.write(v)
    case .bytes: let v = try buffer.readBytes(); out.write(v)
    case .varInt: let v = try buffer.readVarInt(); out.writeVarInt(v)
    case .optionalString: let v = try buffer.readOptionalString(); out.write(v)
    case .optionalData: let v = try buffer.readOptionalData(); out.write(v)
    case .optionalDate: let v = try buffer.readOptionalDate(); out.write(v)
    case .optionalUUID: let v = try buffer.readOptionalUUID(); out.write(v)
    case .optionalInt: let v = try buffer.readOptionalInt(); out.write(v)
    case .optionalDouble: let v = try buffer.readOptionalDouble(); out.write(v)
    case .optionalGeneric:
        let v = try buffer.readOptional { try $0.readInt32() }
        out.writeOptional(v) { $0.write($1) }
    }
    return out.bytes
}

private struct DBTFuzzStats {
    var reads = 0
    var successes: [DBTReadKind: Int] = [:]
    var errors: [DBTReadKind: Int] = [:]
    var errorCases: [String: Int] = [:]
    var failures: [String] = []
}

/// Why `error`, thrown by a read of `bytes`, is inconsistent with them; nil when it is sound.
private func inconsistency(of error: DataBufferError, in bytes: [UInt8]) -> String? {
    switch error {
    case let .truncated(offset, needed, available):
        guard offset >= 0, offset <= bytes.count, available >= 0, offset + available <= bytes.count,
              needed > available
        else { return "inconsistent \(error) for \(bytes.count) bytes" }
    case let .invalidBoolean(offset, byte):
        guard offset >= 0, offset < bytes.count, byte > 1, bytes[offset] == byte
        else { return "inconsistent \(error)" }
    case let .invalidUTF8(offset), let .malformedVarInt(offset):
        guard offset >= 0, offset < bytes.count else { return "inconsistent \(error) for \(bytes.count) bytes" }
    case .valueOutOfRange:
        return "valueOutOfRange on a 64-bit host: \(error)"
    }
    return nil
}

private func errorCaseName(_ error: DataBufferError) -> String {
    switch error {
    case .truncated: return "truncated"
    case .invalidBoolean: return "invalidBoolean"
    case .invalidUTF8: return "invalidUTF8"
    case .malformedVarInt: return "malformedVarInt"
    case .valueOutOfRange: return "valueOutOfRange"
    }
}

/// Performs one read and checks everything that must hold whatever the bytes: it returns or
/// throws a consistent DataBufferError, the cursor stays inside the buffer, a success consumes
/// at least a byte and its value writes back to what it read. Returns whether the read succeeded.
@discardableResult
private func checkedRead(_ kind: DBTReadKind, on buffer: inout DataBuffer, stats: inout DBTFuzzStats, context: String) -> Bool {
    let bytes = buffer.bytes
    let start = buffer.readPosition
    stats.reads += 1
    do {
        let reencoded = try readAndReencode(kind, from: &buffer)
        stats.successes[kind, default: 0] += 1
        let end = buffer.readPosition
        guard end > start, end <= bytes.count else {
            stats.failures.append("\(context): \(kind) moved the cursor from \(start) to \(end) of \(bytes.count)")
            return false
        }
        let consumed = Array(bytes[start ..< end])
        if kind.isCanonical {
            if reencoded != consumed {
                stats.failures.append("\(context): \(kind) read \(consumed) but writes back \(reencoded)")
            }
        } else {
            // A non-canonical prefix may be longer; the value must still survive a round trip.
            var again = DataBuffer(bytes: reencoded)
            let second = try? readAndReencode(kind, from: &again)
            if reencoded.count > consumed.count || second != reencoded || again.remainingCount != 0 {
                stats.failures.append("\(context): \(kind) read \(consumed), round trip of \(reencoded) gave \(second.map { "\($0)" } ?? "an error")")
            }
        }
        return true
    } catch let error as DataBufferError {
        stats.errors[kind, default: 0] += 1
        stats.errorCases[errorCaseName(error), default: 0] += 1
        if let problem = inconsistency(of: error, in: bytes) {
            stats.failures.append("\(context): \(kind) at \(start): \(problem)")
        }
        if buffer.readPosition < 0 || buffer.readPosition > bytes.count {
            stats.failures.append("\(context): \(kind) left the cursor at \(buffer.readPosition) of \(bytes.count)")
        }
        if buffer.bytes != bytes {
            stats.failures.append("\(context): \(kind) changed the bytes")
        }
        return false
    } catch {
        stats.failures.append("\(context): \(kind) threw a non-DataBufferError \(error)")
        return false
    }
}

/// A record with one field of every type, written and read in the same order.
private struct DBTRecord: Equatable {
    var format: UInt8 = 0x01
    var version: UInt8 = 3
    var title = "Blue in Green"
    var subtitle: String? = nil
    var artist: String? = "Miles Davis — Kind of Blue ☕"
    var seconds: UInt32 = 337
    var offset: Int8 = -2
    var delta: Int16 = -300
    var gain: Int32 = -123_456
    var balance: Int64 = .min + 5
    var year: UInt16 = 1959
    var playCount = 1_000_000
    var isFavorite = true
    var isExplicit = false
    var volume: Float = 0.75
    var tempo = 132.5
    var added = Date(timeIntervalSinceReferenceDate: 0)
    var lastPlayed: Date? = Date(timeIntervalSinceReferenceDate: 765_432_109.876_543)
    var id = UUID(uuid: (0xe6, 0x21, 0xe1, 0xf8, 0xc3, 0x6c, 0x49, 0x5a, 0x93, 0xfc, 0x0c, 0x24, 0x7a, 0x3e, 0x6e, 0x5f))
    var externalID: UUID? = nil
    var artwork = Data([0x89, 0x50, 0x4e, 0x47])
    var thumbnail: Data? = Data()
    var fingerprint: [UInt8] = [0xde, 0xad, 0xbe, 0xef]
    var rating: Int? = 4
    var peak: Double? = nil
    var bpm: UInt16? = 0x0102
    var bytesPlayed: UInt64 = 0xffee_ddcc_bbaa_9988
    var tags: [String] = ["jazz", "modal", "", "日本語"]
    var counter: UInt64 = 300

    /// The byte count of the default record, field by field.
    static let encodedCount: Int =
        1 + 1                     // format, version
        + 1 + 13                  // title
        + 1                       // subtitle: nil
        + 1 + 1 + 32              // artist: presence, length, "Miles Davis — Kind of Blue ☕"
        + 4 + 1 + 2 + 4 + 8 + 2   // seconds, offset, delta, gain, balance, year
        + 8 + 1 + 1               // playCount, isFavorite, isExplicit
        + 4 + 8 + 8               // volume, tempo, added
        + 1 + 8                   // lastPlayed
        + 16 + 1                  // id, externalID: nil
        + 1 + 4                   // artwork
        + 1 + 1                   // thumbnail: present, empty
        + 1 + 4                   // fingerprint
        + 1 + 8                   // rating
        + 1                       // peak: nil
        + 1 + 2                   // bpm
        + 8                       // bytesPlayed
        + 1 + (1 + 4) + (1 + 5) + 1 + (1 + 9)   // tags
        + 2                       // counter: varint 300

    init() {}

    func write(to buffer: inout DataBuffer) {
        buffer.write(format)
        buffer.write(version)
        buffer.write(title)
        buffer.write(subtitle)
        buffer.write(artist)
        buffer.write(seconds)
        buffer.write(offset)
        buffer.write(delta)
        buffer.write(gain)
        buffer.write(balance)
        buffer.write(year)
        buffer.write(playCount)
        buffer.write(isFavorite)
        buffer.write(isExplicit)
        buffer.write(volume)
        buffer.write(tempo)
        buffer.write(added)
        buffer.write(lastPlayed)
        buffer.write(id)
        buffer.write(externalID)
        buffer.write(artwork)
        buffer.write(thumbnail)
        buffer.write(fingerprint)
        buffer.write(rating)
        buffer.write(peak)
        buffer.writeOptional(bpm) { $0.write($1) }
        buffer.write(bytesPlayed)
        buffer.writeVarInt(UInt64(tags.count))
        for tag in tags { buffer.write(tag) }
        buffer.writeVarInt(counter)
    }

    init(from buffer: inout DataBuffer) throws {
        format = try buffer.readUInt8()
        version = try buffer.readUInt8()
        title = try buffer.readString()
        subtitle = try buffer.readOptionalString()
        artist = try buffer.readOptionalString()
        seconds = try buffer.readUInt32()
        offset = try buffer.readInt8()
        delta = try buffer.readInt16()
        gain = try buffer.readInt32()
        balance = try buffer.readInt64()
        year = try buffer.readUInt16()
        playCount = try buffer.readInt()
        isFavorite = try buffer.readBool()
        isExplicit = try buffer.readBool()
        volume = try buffer.readFloat()
        tempo = try buffer.readDouble()
        added = try buffer.readDate()
        lastPlayed = try buffer.readOptionalDate()
        id = try buffer.readUUID()
        externalID = try buffer.readOptionalUUID()
        artwork = try buffer.readData()
        thumbnail = try buffer.readOptionalData()
        fingerprint = try buffer.readBytes()
        rating = try buffer.readOptionalInt()
        peak = try buffer.readOptionalDouble()
        bpm = try buffer.readOptional { try $0.readUInt16() }
        bytesPlayed = try buffer.readUInt64()
        // The count may be damaged: loop on UInt64 so a huge one cannot trap here; each
        // readString consumes a byte, so a bad count ends in an error.
        let tagCount = try buffer.readVarInt()
        var tags: [String] = []
        var index: UInt64 = 0
        while index < tagCount {
            tags.append(try buffer.readString())
            index += 1
        }
        self.tags = tags
        counter = try buffer.readVarInt()
    }
}
