// FileIO: the few POSIX file operations the commit journal and shadow copies need (write, copy,
// fsync, read, unlink, rename, directory sync), with errno turned into BackendError.

import Glibc

/// Whole-file POSIX operations.
internal enum FileIO {
    /// Replaces the file at `path` with `bytes`; with `sync`, fsyncs the file.
    static func write(_ bytes: [UInt8], to path: String, sync: Bool) throws {
        try withNewFile(at: path, sync: sync) { file in try bytes.withUnsafeBytes { try file.append($0) } }
    }

    /// Creates (or empties) the file at `path` and calls `body` with it open for writing;
    /// with `sync`, fsyncs the file after `body` returns.
    static func withNewFile(at path: String, sync: Bool, _ body: (NewFile) throws -> Void) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw failure("create", path) }
        defer { close(fd) }
        try body(NewFile(descriptor: fd, path: path))
        if sync, fsync(fd) != 0 { throw failure("fsync", path) }
    }

    /// A file ``withNewFile(at:sync:_:)`` opened, written in pieces.
    struct NewFile {
        fileprivate let descriptor: Int32
        let path: String

        /// Appends every byte of `bytes` at the end of what was written.
        func append(_ bytes: UnsafeRawBufferPointer) throws {
            try writeAll(bytes, to: descriptor, path: path)
        }

        /// Writes every byte of `bytes` at `offset`, over what is there.
        func write(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws {
            try writeAll(bytes, to: descriptor, path: path, at: offset)
        }
    }

    /// Writes every byte of `bytes` to `fd` (the file at `path`), at its offset or at
    /// `offset`, retrying short and interrupted writes.
    fileprivate static func writeAll(_ bytes: UnsafeRawBufferPointer, to fd: Int32, path: String, at offset: Int? = nil) throws {
        guard let base = bytes.baseAddress else { return }
        var written = 0
        while written < bytes.count {
            let result = offset.map { pwrite(fd, base + written, bytes.count - written, off_t($0 + written)) }
                ?? Glibc.write(fd, base + written, bytes.count - written)
            if result < 0 {
                if errno == EINTR { continue }
                throw failure("write", path)
            }
            written += result
        }
    }

    /// The whole file at `path`, or nil when there is none.
    static func read(_ path: String) throws -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw failure("open", path)
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw failure("read", path)
            }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[..<count])
        }
    }

    /// Copies the file at `source` to a new file at `destination` (replacing any file there)
    /// with plain reads and writes, a megabyte at a time; with `sync`, fsyncs the copy.
    static func copy(_ source: String, to destination: String, sync: Bool) throws {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw failure("open", source) }
        defer { close(input) }
        let output = open(destination, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard output >= 0 else { throw failure("create", destination) }
        defer { close(output) }
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        try chunk.withUnsafeMutableBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            while true {
                let count = Glibc.read(input, base, buffer.count)
                if count < 0 {
                    if errno == EINTR { continue }
                    throw failure("read", source)
                }
                if count == 0 { break }
                try writeAll(UnsafeRawBufferPointer(start: base, count: count), to: output, path: destination)
            }
        }
        if sync, fsync(output) != 0 { throw failure("fsync", destination) }
    }

    /// The size in bytes of the file at `path`, or nil when there is none.
    static func size(of path: String) -> Int? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return Int(status.st_size)
    }

    /// Opens the file at `path` (created if missing) for writing from its start, without
    /// emptying it first, and calls `body` with it; then cuts the file where `body`'s appends
    /// ended and, with `sync`, fsyncs it. Emptying a file to rewrite it (`O_TRUNC`) makes ext4
    /// write it out at close (its guard for files replaced by truncation): a file rewritten at
    /// every save would cost a disk write per save even without sync.
    static func withRewrittenFile(at path: String, sync: Bool, _ body: (NewFile) throws -> Void) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw failure("create", path) }
        defer { close(fd) }
        try body(NewFile(descriptor: fd, path: path))
        let end = lseek(fd, 0, SEEK_CUR)
        var status = stat()
        guard end >= 0, fstat(fd, &status) == 0 else { throw failure("stat", path) }
        if status.st_size > end, ftruncate(fd, end) != 0 { throw failure("truncate", path) }
        if sync, fsync(fd) != 0 { throw failure("fsync", path) }
    }

    /// Writes `bytes` at `offset` of the existing file at `path`; a missing file is not an
    /// error.
    static func overwrite(_ bytes: [UInt8], at offset: Int, inFileAt path: String) throws {
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return }
            throw failure("open", path)
        }
        defer { close(fd) }
        try bytes.withUnsafeBytes { try writeAll($0, to: fd, path: path, at: offset) }
    }

    /// Removes the file at `path`; a missing file is not an error.
    static func remove(_ path: String) throws {
        if unlink(path) != 0 && errno != ENOENT { throw failure("remove", path) }
    }

    static func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }

    /// Fsyncs the file at `path`.
    static func syncFile(_ path: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw failure("open", path) }
        defer { close(fd) }
        if fsync(fd) != 0 { throw failure("fsync", path) }
    }

    /// Gives the file at `source` the name `destination` too, unless that name exists
    /// (`link(2)`: never replaces a file). Returns false when `destination` exists.
    static func linkUnlessExists(_ source: String, as destination: String) throws -> Bool {
        guard link(source, destination) != 0 else { return true }
        if errno == EEXIST { return false }
        throw failure("link", destination)
    }

    /// Renames `source` to `destination`, replacing any file there, atomically (`rename(2)`).
    static func rename(_ source: String, to destination: String) throws {
        if Glibc.rename(source, destination) != 0 { throw failure("rename", destination) }
    }

    /// Fsyncs a directory, so the files created or removed in it are durable.
    static func syncDirectory(_ path: String) throws {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw failure("open directory", path) }
        defer { close(fd) }
        if fsync(fd) != 0 { throw failure("fsync directory", path) }
    }

    fileprivate static func failure(_ operation: String, _ path: String) -> BackendError {
        .ioFailure(path: path, operation: operation, reason: String(cString: strerror(errno)))
    }
}
