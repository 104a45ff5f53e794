// Passphrase: where an encrypted store's passphrase comes from. Never the command line (it would
// show in `ps` and the shell's history): an environment variable, for scripts, or a prompt on
// the terminal with echo turned off (termios), as `ssh` and `gpg` ask.

import Foundation
#if canImport(Glibc)
import Glibc
#endif

enum Passphrase {
    /// The variable that gives the passphrase of the store opened.
    static let environmentVariable = "LARDER_PASSPHRASE"
    /// The variable that gives `rekey` and `import --encrypt` the new passphrase.
    static let newEnvironmentVariable = "LARDER_NEW_PASSPHRASE"

    /// The passphrase in the environment variable `name`, else one typed at the terminal after
    /// `prompt`. Throws ``ToolError/passphraseUnavailable(variable:)`` when the variable is
    /// not set and there is no terminal to ask on, ``ToolError/emptyPassphrase`` for an empty one.
    static func read(environment name: String, prompt: String) throws -> String {
        if let value = ProcessInfo.processInfo.environment[name] {
            guard !value.isEmpty else { throw ToolError.emptyPassphrase(source: name) }
            return value
        }
        guard let typed = readFromTerminal(prompt: prompt) else {
            throw ToolError.passphraseUnavailable(variable: name)
        }
        guard !typed.isEmpty else { throw ToolError.emptyPassphrase(source: "the terminal") }
        return typed
    }

    /// A new passphrase (`import --encrypt`, `rekey`): LARDER_NEW_PASSPHRASE, else one typed
    /// twice at the terminal after `prompt`; two that differ throw ``ToolError/passphrasesDiffer``.
    static func readNew(prompt: String) throws -> String {
        let first = try read(environment: newEnvironmentVariable, prompt: prompt)
        if ProcessInfo.processInfo.environment[newEnvironmentVariable] == nil {
            let second = try read(environment: newEnvironmentVariable, prompt: "Repeat it: ")
            guard first == second else { throw ToolError.passphrasesDiffer }
        }
        return first
    }

    /// A line typed at the controlling terminal after `prompt`, without echo; nil when the
    /// process has no terminal.
    static func readFromTerminal(prompt: String) -> String? {
        let descriptor = Glibc.open("/dev/tty", O_RDWR | O_NOCTTY)
        guard descriptor >= 0 else { return nil }
        defer { Glibc.close(descriptor) }
        guard isatty(descriptor) == 1 else { return nil }
        // Echo goes off before the prompt shows, so that nothing typed after it is echoed (or
        // flushed by the change).
        var saved = termios()
        let canHideEcho = tcgetattr(descriptor, &saved) == 0
        if canHideEcho {
            TerminalRestorer.install(descriptor: descriptor, settings: saved)
            var silent = saved
            silent.c_lflag &= ~tcflag_t(ECHO)
            silent.c_lflag |= tcflag_t(ECHONL)
            _ = tcsetattr(descriptor, TCSAFLUSH, &silent)
        }
        write(descriptor, prompt)
        defer {
            if canHideEcho {
                _ = tcsetattr(descriptor, TCSADRAIN, &saved)
                TerminalRestorer.uninstall()
            }
        }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while Glibc.read(descriptor, &byte, 1) == 1, byte != UInt8(ascii: "\n") {
            bytes.append(byte)
        }
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func write(_ descriptor: Int32, _ text: String) {
        var bytes = Array(text.utf8)
        _ = Glibc.write(descriptor, &bytes, bytes.count)
    }
}

/// Puts the terminal's echo back if the user interrupts the prompt (Ctrl-C), then ends the
/// process as the signal would have.
private enum TerminalRestorer {
    // Read only by the signal handler, written before it is installed and after it is removed.
    nonisolated(unsafe) static var descriptor: Int32 = -1
    nonisolated(unsafe) static var settings = termios()

    static func install(descriptor: Int32, settings: termios) {
        Self.descriptor = descriptor
        Self.settings = settings
        signal(SIGINT, restoreAndExit)
        signal(SIGTERM, restoreAndExit)
    }

    static func uninstall() {
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
        descriptor = -1
    }
}

private func restoreAndExit(_ signalNumber: Int32) {
    if TerminalRestorer.descriptor >= 0 {
        _ = tcsetattr(TerminalRestorer.descriptor, TCSAFLUSH, &TerminalRestorer.settings)
    }
    _exit(128 + signalNumber)
}
