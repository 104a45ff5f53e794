// JSONTextWriter: a streaming writer of JSON text, into memory or into a file in chunks of
// 64 KB, so that an export of any size is written in flat memory. A file is written under a
// temporary name beside its destination and renamed over it once complete (``finish()``), so a
// failed export never leaves a partial file in its place. Numbers are written so that the
// reader gets back the same kind: doubles always with a point or an exponent.

import Glibc

/// Writes JSON text.
///
/// ```swift
/// var writer = JSONTextWriter()
/// writer.raw("{")
/// writer.string("name")
/// writer.raw(":")
/// writer.integer(36)
/// writer.raw("}")
/// print(String(decoding: writer.bytes, as: UTF8.self))   // {"name":36}
/// ```
package struct JSONTextWriter {
    private static let chunkSize = 1 << 16

    /// The text written and not yet flushed (all of it, for a writer into memory).
    package private(set) var bytes: [UInt8] = []
    private let file: WritableFile?

    /// A writer into memory (``bytes``).
    package init() {
        file = nil
    }

    /// A writer of the file at `path`, replaced once ``finish()`` is called.
    package init(path: String) throws {
        file = try WritableFile(path: path)
        bytes.reserveCapacity(Self.chunkSize + 4096)
    }

    /// Appends ASCII punctuation or text as it is.
    package mutating func raw(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends `value` quoted, with `"`, `\` and control characters escaped.
    package mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case ..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                          hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Appends an integer.
    package mutating func integer(_ value: Int64) {
        bytes.append(contentsOf: String(value).utf8)
    }

    /// Appends an unsigned integer.
    package mutating func unsigned(_ value: UInt64) {
        bytes.append(contentsOf: String(value).utf8)
    }

    /// Appends a finite double, always with a point or an exponent (`1.0`, `1e-05`), so that
    /// it reads back as a double; a non-finite one (which JSON cannot hold) as `null`.
    package mutating func double(_ value: Double) {
        guard value.isFinite else { return raw("null") }
        bytes.append(contentsOf: value.description.utf8)
    }

    /// Appends `value` compactly, its object members in their order.
    package mutating func value(_ value: JSONTextValue) {
        switch value {
        case .null: raw("null")
        case let .bool(flag): flag ? raw("true") : raw("false")
        case let .integer(number): integer(number)
        case let .unsignedInteger(number): unsigned(number)
        case let .double(number): double(number)
        case let .string(text): string(text)
        case let .array(elements):
            raw("[")
            for (position, element) in elements.enumerated() {
                if position > 0 { raw(",") }
                self.value(element)
            }
            raw("]")
        case let .object(members):
            raw("{")
            for (position, member) in members.enumerated() {
                if position > 0 { raw(",") }
                string(member.key)
                raw(":")
                self.value(member.value)
            }
            raw("}")
        }
    }

    /// Writes the text so far to the file once 64 KB are waiting (nothing for a writer into
    /// memory).
    package mutating func flushIfFull() throws {
        guard let file, bytes.count >= Self.chunkSize else { return }
        try file.write(bytes)
        bytes.removeAll(keepingCapacity: true)
    }

    /// Writes what is left, syncs the file and puts it in place of its destination.
    package mutating func finish() throws {
        guard let file else { return }
        try file.write(bytes)
        bytes.removeAll()
        try file.complete()
    }
}

/// A file written under a temporary name, renamed over its destination once complete and
/// removed if it never is.
private final class WritableFile {
    private let descriptor: Int32
    private let path: String
    private let temporaryPath: String
    private var isComplete = false

    init(path: String) throws {
        self.path = path
        temporaryPath = path + ".partial-\(getpid())"
        descriptor = open(temporaryPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw Self.failure(path) }
    }

    deinit {
        close(descriptor)
        if !isComplete { unlink(temporaryPath) }
    }

    func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            var written = 0
            while written < bytes.count {
                let result = Glibc.write(descriptor, base + written, bytes.count - written)
                if result < 0 {
                    if errno == EINTR { continue }
                    throw Self.failure(path)
                }
                written += result
            }
        }
    }

    func complete() throws {
        guard fsync(descriptor) == 0, rename(temporaryPath, path) == 0 else { throw Self.failure(path) }
        isComplete = true
    }

    private static func failure(_ path: String) -> InterchangeError {
        .fileFailure(path: path, reason: String(cString: strerror(errno)))
    }
}
