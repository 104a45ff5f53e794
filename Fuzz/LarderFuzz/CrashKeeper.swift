// CrashKeeper: keeps the input that is running in memory, and on a fatal signal (a trap, a
// bad access, an abort) writes it to a file before the process dies, so that a crash of the
// mutation fuzzer leaves its input behind.

import Foundation
#if canImport(Glibc)
import Glibc
#endif

enum CrashKeeper {
    /// The input running and the file it goes to, read by the signal handler.
    nonisolated(unsafe) private static var input: UnsafeMutablePointer<UInt8>?
    nonisolated(unsafe) private static var inputCount = 0
    nonisolated(unsafe) private static var capacity = 0
    nonisolated(unsafe) private static var path: UnsafeMutablePointer<CChar>?

    /// Where a crash's input is written; installs the signal handlers.
    static func prepare(file: URL) {
        try? FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        path = strdup(file.path)
        for signal in [SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGABRT, SIGFPE] {
            Glibc.signal(signal) { number in
                if let path = CrashKeeper.path, let input = CrashKeeper.input {
                    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
                    if descriptor >= 0 {
                        _ = write(descriptor, input, CrashKeeper.inputCount)
                        close(descriptor)
                    }
                    let message = "\ncrashed: the input is in \(String(cString: path))\n"
                    _ = message.withCString { write(2, $0, strlen($0)) }
                }
                Glibc.signal(number, SIG_DFL)
                raise(number)
            }
        }
    }

    /// Keeps `bytes` as the input running.
    static func keep(_ bytes: [UInt8]) {
        if bytes.count > capacity {
            input?.deallocate()
            capacity = max(bytes.count, 2 * capacity, 256)
            input = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        }
        bytes.withUnsafeBufferPointer { if let base = $0.baseAddress { input?.update(from: base, count: bytes.count) } }
        inputCount = bytes.count
    }

    /// No input is running any more.
    static func finish() {
        inputCount = 0
        free(path)
        path = nil
    }
}
