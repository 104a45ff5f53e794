// RecordEnvelope: the bytes around an object's content in its class file (and around named
// buffers and metadata): [format byte][version byte][content...]. See docs/FORMAT.md.

/// The framing of every stored record.
internal enum RecordEnvelope {
    /// Format byte of a plain (unencrypted, unchecksummed) record.
    static let plainFormat: UInt8 = 0x01

    /// The two bytes in front of a record's content.
    struct Header: Equatable {
        var format: UInt8 = RecordEnvelope.plainFormat
        var version: UInt8

        func append(to bytes: inout [UInt8]) {
            bytes.append(format)
            bytes.append(version)
        }
    }

    /// Why a record's envelope cannot be opened.
    enum Failure: Error {
        case tooShort
        case unknownFormat(UInt8)
    }

    /// The whole record: header then content.
    static func wrap(_ content: DataBuffer) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(content.bytes.count + 2)
        Header(version: content.versionOfData).append(to: &bytes)
        bytes.append(contentsOf: content.bytes)
        return bytes
    }

    /// Opens a record: its content in a buffer ready for reading, with its version.
    static func open(_ record: UnsafeRawBufferPointer) throws(Failure) -> DataBuffer {
        guard record.count >= 2 else { throw .tooShort }
        guard record[0] == plainFormat else { throw .unknownFormat(record[0]) }
        return DataBuffer(bytes: Array(record[2...]), versionOfData: record[1])
    }
}
