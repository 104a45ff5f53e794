// StandardError: where `larder` writes its errors, notes and progress bar.

import Foundation

/// Standard error, written unbuffered.
enum StandardError {
    static func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// Whether standard error is a terminal.
    static var isTerminal: Bool { isatty(STDERR_FILENO) == 1 }
}
