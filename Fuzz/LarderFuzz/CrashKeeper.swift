// CrashKeeper: keeps the input that is running in memory, and on a fatal signal (a trap, a
// bad access, an abort) or when one input runs for longer than a watchdog allows, writes it
// to a file before the process ends, so that a crash or a hang of the mutation fuzzer leaves
// its input behind.

import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

enum CrashKeeper {
    /// Inputs started so far, which the watchdog sees move.
    private static let started = Atomic<Int>(0)
    /// An input that runs this long is a hang: the process ends with it kept.
    static let hangSeconds = 10

    /// The input running and the file it goes to, read by the signal handler.
    nonisolated(unsafe) private static var input: UnsafeMutablePointer<UInt8>?
    nonisolated(unsafe) private static var inputCount = 0
    nonisolated(unsafe) private static var capacity = 0
    nonisolated(unsafe) private static var path: UnsafeMutablePointer<CChar>?

    /// Where a crash's input is written; installs the signal handlers and the watchdog.
    static func prepare(file: URL) {
        try? FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        path = strdup(file.path)
        for signal in [SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGABRT, SIGFPE] {
            Glibc.signal(signal) { number in
                CrashKeeper.writeInput(saying: "crashed")
                Glibc.signal(number, SIG_DFL)
                raise(number)
            }
        }
        startWatchdog()
    }

    /// Writes the input running to the prepared file (with what happened, on standard error).
    private static func writeInput(saying what: String) {
        guard let path, let input else { return }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        if descriptor >= 0 {
            _ = write(descriptor, input, inputCount)
            close(descriptor)
        }
        let message = "\n\(what): the input is in \(String(cString: path))\n"
        _ = message.withCString { write(2, $0, strlen($0)) }
    }

    /// Once: a thread that ends the process when no input started for ``hangSeconds``.
    nonisolated(unsafe) private static var watchdog: Thread?

    private static func startWatchdog() {
        guard watchdog == nil else { return }
        let thread = Thread {
            var last = -1, still = 0
            while true {
                sleep(1)
                let now = started.load(ordering: .relaxed)
                still = now == last ? still + 1 : 0
                last = now
                if still >= hangSeconds {
                    writeInput(saying: "hung (one input ran for \(hangSeconds) s)")
                    exit(3)
                }
            }
        }
        thread.start()
        watchdog = thread
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
        started.add(1, ordering: .relaxed)
    }

    /// No input is running any more.
    static func finish() {
        inputCount = 0
        free(path)
        path = nil
    }
}
